import Foundation
import ReelTestSupport
import Testing

/// `output.audio.loudness` checked from outside: ffmpeg's own EBU R128 meter (`ebur128=peak=true`) reads the
/// rendered file at the target within ±0.5 LU with its true peak under the ceiling, for a speech-like, a music-like
/// and a ducked mix; the report and the last `--progress json` line carry the measurements; a near-silent timeline
/// is left alone; the same project gives the same samples; `inspect --loudness` measures files and projects.
@Suite(.serialized) struct LoudnessTests {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-loudness")
        reel = try builtExecutable(named: "reel")
        // Speech-like: noise in syllables (3.3 per second) with pauses, band-limited to 3 kHz, around −27 LUFS.
        let syllables = "0.25*(random(CH)*2-1)*max(0,sin(2*PI*3.3*t))*gt(sin(2*PI*0.23*t),-0.4)"
        try make("speech.wav", expression: syllables, filter: "lowpass=3000")
        // Music-like: a quiet chord under a noise hit every half second, band-limited to 16 kHz: a high crest
        // factor, so that reaching −16 LUFS needs the limiter.
        let chord = "0.05*sin(2*PI*220*t)+0.04*sin(2*PI*277.2*t)+0.04*sin(2*PI*329.6*t)"
        try make("music.wav", expression: chord + "+0.5*(random(CH)*2-1)*exp(-40*mod(t,0.5))",
                 filter: "lowpass=f=16000:p=2,lowpass=f=16000:p=2")
        // Near-silent: a tone at −100 dBFS, far below the −70 LUFS gate.
        try make("hush.wav", expression: "0.00001*sin(2*PI*440*t)", filter: "anull")
    }

    private func make(_ name: String, expression: String, filter: String) throws {
        let channels = [0, 1].map { expression.replacingOccurrences(of: "CH", with: String($0)) }.joined(separator: "|")
        let result = try run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i",
                                        "aevalsrc='\(channels)':s=48000:d=8", "-af", filter, "-c:a", "pcm_s16le",
                                        folder.file(name).path])
        #expect(result.status == 0, "\(result.stderrText)")
    }

    /// A project of the kind `mix` names writing `output`, normalised to −16 LUFS under −1 dBTP (range 8 LU).
    private func project(_ mix: String, output: String, loudness: Bool = true) throws -> String {
        let audio: String
        switch mix {
        case "speech": audio = #"{ "id": "voice", "asset": "speech", "at": 0 }"#
        case "music": audio = #"{ "id": "music", "asset": "music", "at": 0 }"#
        case "hush": audio = #"{ "id": "hush", "asset": "hush", "at": 0 }"#
        default:
            audio = #"{ "id": "music", "asset": "music", "at": 0 }, "#
                + #"{ "id": "voice", "asset": "speech", "at": 2, "in": 0, "duration": 4 } ], "#
                + #""ducking": [ { "duck": "music", "under": "voice", "to": 0.2, "ramp": 0.5 } "#
        }
        let target = loudness ? #", "audio": { "loudness": { "integrated": -16, "truePeak": -1, "range": 8 } }"# : ""
        let url = folder.file("\(mix)-\(output).json")
        try """
            { "reel": 1,
              "output": { "path": "\(output)", "size": [64, 36], "frameRate": 30, "end": 8\(target) },
              "assets": { "speech": { "path": "speech.wav" }, "music": { "path": "music.wav" },
                          "hush": { "path": "hush.wav" } },
              "timeline": { "clips": [], "audio": [ \(audio) ] } }
            """.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// ffmpeg's EBU R128 summary of `file`: integrated LUFS, LRA and true peak (dBTP), as it prints them.
    static func ffmpegLoudness(_ file: String) throws -> (integrated: Double, range: Double, truePeak: Double) {
        let result = try run("ffmpeg", ["-nostats", "-hide_banner", "-i", file, "-af", "ebur128=peak=true",
                                        "-f", "null", "-"])
        let summary = result.stderrText.components(separatedBy: "Summary:").last ?? ""
        func value(after label: String) -> Double? {
            guard let line = summary.split(separator: "\n").first(where: { $0.contains(label) }) else { return nil }
            return line.split(separator: " ").compactMap { Double($0) }.first
        }
        guard let integrated = value(after: "I:"), let range = value(after: "LRA:"), let peak = value(after: "Peak:")
        else { throw SupportError("no ebur128 summary for \(file): \(result.stderrText.suffix(400))") }
        return (integrated, range, peak)
    }

    /// The last `--progress json` line's object.
    private func lastProgress(_ stderr: String) throws -> [String: Any] {
        let line = stderr.split(separator: "\n").last { $0.hasPrefix("{\"frame\"") }.map(String.init) ?? ""
        return try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
    }

    @Test(arguments: ["speech", "music", "ducked"])
    func reachesTheTargetUnderTheCeiling(mix: String) throws {
        let result = try run(reel.path, ["render", try project(mix, output: "out-\(mix).wav"), "--progress", "json"])
        #expect(result.status == 0, "\(result.stderrText)")
        let measured = try Self.ffmpegLoudness(folder.file("out-\(mix).wav").path)
        #expect(abs(measured.integrated - -16) <= 0.5, "\(mix): ffmpeg reads \(measured)")
        #expect(measured.truePeak <= -1.0, "\(mix): ffmpeg reads \(measured)")
        let last = try lastProgress(result.stderrText)
        #expect(last["done"] as? Bool == true)
        let loudness = try #require(last["loudness"] as? [String: Any], "\(result.stderrText)")
        let input = try #require(loudness["input"] as? [String: Any])
        let output = try #require(loudness["output"] as? [String: Any])
        let reportedOutput = try #require(output["integrated"] as? Double)
        #expect(abs(reportedOutput - measured.integrated) <= 0.2, "report \(reportedOutput), ffmpeg \(measured)")
        #expect(input["integrated"] as? Double != nil && input["truePeak"] as? Double != nil)
        #expect(output["samples"] as? Int == 8 * 48000)
        let limiter = try #require(loudness["limiter"] as? [String: Any])
        // The music's hits would peak above 0 dBTP at −16 LUFS; the speech has headroom to spare.
        if mix == "music" { #expect(limiter["engaged"] as? Bool == true, "\(loudness)") }
        if mix == "speech" { #expect(limiter["engaged"] as? Bool == false, "\(loudness)") }
    }

    @Test func theReportSaysWhatWasMeasuredAndDone() throws {
        let result = try run(reel.path, ["render", try project("music", output: "report.wav")])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.contains("loudness: input -"), "\(result.stderrText)")
        #expect(result.stderrText.contains("true-peak limiter engaged"), "\(result.stderrText)")
        #expect(result.stderrText.contains("  output -16."), "\(result.stderrText)")
    }

    @Test(arguments: ["ducked", "music"])
    func lossyOutputsReachTheTargetUnderTheCeiling(mix: String) throws {
        for kind in ["m4a", "mp3", "opus"] {
            let result = try run(reel.path, ["render", try project(mix, output: "\(mix).\(kind)"), "-q"])
            #expect(result.status == 0, "\(result.stderrText)")
            let measured = try Self.ffmpegLoudness(folder.file("\(mix).\(kind)").path)
            #expect(abs(measured.integrated - -16) <= 0.5, "\(kind): ffmpeg reads \(measured)")
            // The decoded file's true peak, as ffmpeg's meter reads it, under the -1 dBTP ceiling.
            #expect(measured.truePeak <= -1, "\(kind): ffmpeg reads \(measured)")
        }
    }

    @Test func aNormalisedVideoRenderCarriesTheNormalisedMix() throws {
        let result = try run(reel.path, ["render", try project("speech", output: "speech.mkv"), "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let measured = try Self.ffmpegLoudness(folder.file("speech.mkv").path)
        #expect(abs(measured.integrated - -16) <= 0.5, "ffmpeg reads \(measured)")
    }

    @Test func theSameProjectGivesTheSameSamples() throws {
        let path = try project("music", output: "again.wav")
        #expect(try run(reel.path, ["render", path, "-q"]).status == 0)
        let first = try Data(contentsOf: folder.file("again.wav"))
        #expect(try run(reel.path, ["render", path, "-q", "--force"]).status == 0)
        let second = try Data(contentsOf: folder.file("again.wav"))
        #expect(first == second)
    }

    @Test func aNearSilentTimelineIsReportedNotAmplified() throws {
        let result = try run(reel.path, ["render", try project("hush", output: "out-hush.wav"), "--progress", "json"])
        #expect(result.status == 0, "\(result.stderrText)")
        let loudness = try #require(try lastProgress(result.stderrText)["loudness"] as? [String: Any])
        #expect(loudness["belowGate"] as? Bool == true, "\(loudness)")
        #expect(loudness["gain"] as? Double == 0, "\(loudness)")
        // Left as it is: the −100 dBFS tone comes out where it went in.
        let stats = try run("ffmpeg", ["-nostats", "-hide_banner", "-i", folder.file("out-hush.wav").path, "-af",
                                       "astats=measure_perchannel=none", "-f", "null", "-"])
        let peakLine = stats.stderrText.split(separator: "\n").first { $0.contains("Peak level dB") } ?? ""
        let peak = try #require(peakLine.split(separator: " ").compactMap { Double($0) }.last)
        #expect(peak < -90, "\(peakLine)")
        let text = try run(reel.path, ["render", try project("hush", output: "hush2.wav")])
        #expect(text.stderrText.contains("below the -70 LUFS absolute gate"), "\(text.stderrText)")
    }

    @Test func inspectMeasuresAFileAsFFmpegDoes() throws {
        let file = folder.file("speech.wav").path
        let result = try run(reel.path, ["inspect", "--loudness", "--json", file])
        #expect(result.status == 0, "\(result.stderrText)")
        let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        let loudness = try #require(object?["loudness"] as? [String: Any], "\(result.stdoutText)")
        let integrated = try #require(loudness["integrated"] as? Double)
        let measured = try Self.ffmpegLoudness(file)
        #expect(abs(integrated - measured.integrated) <= 0.2, "reel \(integrated), ffmpeg \(measured)")
        #expect(loudness["samples"] as? Int == 8 * 48000)
        let text = try run(reel.path, ["inspect", "--loudness", file])
        #expect(text.stdoutText.contains("LUFS, LRA"), "\(text.stdoutText)")
    }

    @Test func inspectMeasuresAProjectsMixWithoutRendering() throws {
        let path = try project("ducked", output: "never.wav")
        let result = try run(reel.path, ["inspect", "--loudness", path])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stdoutText.hasPrefix("mix: -"), "\(result.stdoutText)")
        #expect(result.stdoutText.contains("target -16 LUFS, -1 dBTP: a render applies +"), "\(result.stdoutText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("never.wav").path))
        let plain = try run(reel.path, ["inspect", "--loudness", "--json",
                                        try project("speech", output: "x.wav", loudness: false)])
        let object = try JSONSerialization.jsonObject(with: plain.stdout) as? [String: Any]
        #expect(object?["target"] == nil && object?["loudness"] != nil, "\(plain.stdoutText)")
    }

    @Test func anOutOfRangeTargetIsAProjectError() throws {
        let url = folder.file("bad.json")
        try """
            { "reel": 1, "output": { "path": "bad.wav", "end": 1,
                                     "audio": { "loudness": { "integrated": -3, "truePeek": -1 } } },
              "timeline": { "clips": [] } }
            """.write(to: url, atomically: true, encoding: .utf8)
        let result = try run(reel.path, ["validate", url.path])
        #expect(result.status == 65, "\(result.stderrText)")
        #expect(result.stderrText.contains("$.output.audio.loudness.integrated"), "\(result.stderrText)")
        #expect(result.stderrText.contains("truePeak"), "\(result.stderrText)")
    }
}
