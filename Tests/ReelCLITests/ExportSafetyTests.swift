import Foundation
import ReelTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What an export leaves on disk when it is interrupted, fails, races another, or is refused (SPEC §7).
@Suite struct ExportSafetyTests {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-safety")
        reel = try builtExecutable(named: "reel")
    }

    func write(_ name: String, _ text: String) throws -> URL {
        let url = folder.file(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
    }

    /// Temporary files of an export, `.NAME.*.reel-partial`, in the folder.
    func partials() throws -> [String] {
        try files().filter { $0.hasPrefix(".") && $0.hasSuffix(".reel-partial") }
    }

    /// A project rendering `seconds` of a 64×36 source upscaled to 640×360, slow enough to interrupt.
    func longProject(output: String, seconds: Int) throws -> URL {
        if !FileManager.default.fileExists(atPath: folder.file("clip.mp4").path) {
            try IndexedMedia.makeVideo(at: folder.file("clip.mp4"), frameCount: 300,
                                       audio: .counter(sampleRate: 48000, channels: 2, codec: "aac"))
        }
        let clips = Array(repeating: #"{ "asset": "clip" }"#, count: max(1, seconds / 10)).joined(separator: ", ")
        return try write("long-\(output).json", """
            { "reel": 1, "output": { "path": "\(output)", "size": [640, 360], "frameRate": 30 },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ \(clips) ] } }
            """)
    }

    /// Starts `reel` with the given arguments (its output is collected, and not looked at).
    func start(_ args: [String]) throws -> RunningProcess {
        try ReelTestSupport.start(reel.path, args)
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func signalStopsTheRenderAndLeavesNothing(_ signalNumber: Int32) throws {
        let project = try longProject(output: "out.mp4", seconds: 120)
        let before = try files()
        let process = try start(["render", project.path, "-q"])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let started = try waitUntil(30) { try !partials().isEmpty }
        let seen = try files()
        try #require(started && process.isRunning, "no temporary file appeared while rendering; files: \(seen)")
        usleep(200_000)
        try #require(process.isRunning, "the render finished before the signal could be sent")

        kill(process.processIdentifier, signalNumber)
        let signalled = Date()
        let clean = try waitUntil(1) { try files() == before }
        let cleanAfter = Date().timeIntervalSince(signalled)
        let left = try files()
        #expect(clean, "1 s after the signal the folder holds \(left) (had \(before))")
        let exited = waitUntil(5) { !process.isRunning }
        try #require(exited, "reel still running 5 s after signal \(signalNumber)")
        #expect(!process.terminatedBySignal && process.terminationStatus == 130,
                "ended by \(!process.terminatedBySignal ? "exit" : "signal") \(process.terminationStatus)")
        #expect(cleanAfter <= 1, "clean after \(cleanAfter) s")
        #expect(try files() == before)
    }

    /// With `outputs`, every hidden file of the render (a movie's temporary file, another's, an HLS package's
    /// folder) is gone within a second of the signal.
    @Test func signalLeavesNoOutputOfARenderWithOutputs() throws {
        let long = try longProject(output: "main.mp4", seconds: 120)
        var text = try String(contentsOf: long, encoding: .utf8)
        text = text.replacingOccurrences(of: #""assets":"#, with: #""outputs": [ { "path": "small.mp4", "size": [320, 180] }, { "path": "index.m3u8", "segmentDuration": 1 } ], "assets":"#)
        let project = try write("long-outputs.json", text)
        let before = try files()
        let process = try start(["render", project.path, "-q"])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let started = try waitUntil(30) { try partials().count == 3 }
        let seen = try files()
        try #require(started && process.isRunning, "the three hidden outputs did not appear; files: \(seen)")
        usleep(200_000)
        kill(process.processIdentifier, SIGTERM)
        let clean = try waitUntil(1) { try files() == before }
        let left = try files()
        #expect(clean, "1 s after the signal the folder holds \(left) (had \(before))")
        let exited = waitUntil(5) { !process.isRunning }
        try #require(exited, "reel still running 5 s after the signal")
        #expect(process.terminationStatus == 130)
        #expect(try files() == before)
    }

    /// A signal while the project is still being validated (200 assets to probe) also exits 130, not by
    /// the signal's default action, and writes nothing.
    @Test(arguments: [SIGINT, SIGTERM])
    func signalDuringValidationExits130(_ signalNumber: Int32) throws {
        try IndexedMedia.makeVideo(at: folder.file("clip.mp4"), frameCount: 30,
                                   audio: .counter(sampleRate: 48000, channels: 2, codec: "aac"))
        let assets = (0..<200).map { #""a\#($0)": { "path": "clip.mp4" }"# }.joined(separator: ", ")
        let clips = (0..<200).map { #"{ "asset": "a\#($0)", "in": 0, "out": 0.1 }"# }.joined(separator: ", ")
        let project = try write("many.json", """
            { "reel": 1, "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30 },
              "assets": { \(assets) }, "timeline": { "clips": [ \(clips) ] } }
            """)
        let before = try files()
        let process = try start(["render", project.path, "-q"])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // A signal before reel has installed its handlers (while the runtime loads) would take the default
        // action; wait until /proc shows SIGINT and SIGTERM handled, as they are from main's first line on.
        let ready = waitUntil(5) { Self.interruptsHandled(process.processIdentifier) }
        try #require(ready, "reel never installed its signal handlers")
        try #require(process.isRunning && (try partials()).isEmpty, "validation finished already; cannot test")
        kill(process.processIdentifier, signalNumber)
        let exited = waitUntil(5) { !process.isRunning }
        try #require(exited, "reel still running 5 s after signal \(signalNumber)")
        #expect(!process.terminatedBySignal && process.terminationStatus == 130,
                "ended by \(!process.terminatedBySignal ? "exit" : "signal") \(process.terminationStatus)")
        #expect(try files() == before)
    }

    /// Whether process `pid` ignores or catches both SIGINT and SIGTERM (its SigIgn/SigCgt masks in /proc).
    static func interruptsHandled(_ pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
        var mask: UInt64 = 0
        for line in status.split(separator: "\n") where line.hasPrefix("SigIgn:") || line.hasPrefix("SigCgt:") {
            mask |= UInt64(line.split(separator: "\t").last.map(String.init) ?? "", radix: 16) ?? 0
        }
        let wanted: UInt64 = 1 << (UInt64(SIGINT) - 1) | 1 << (UInt64(SIGTERM) - 1)
        return mask & wanted == wanted
    }

    /// A 3 s, 90-frame mp4 (busy picture, so frames are large) whose mdat has 4000 bytes of noise in its
    /// middle: video frames around 1.5 s are damaged.
    func makeCorruptSource(_ name: String) throws -> URL {
        let good = folder.file("good-\(name)")
        let made = try run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=3",
                                      "-c:v", "libx264", "-g", "30", "-bf", "0", "-crf", "10", good.path])
        try #require(made.status == 0, "ffmpeg: \(made.stderrText)")
        var bytes = [UInt8](try Data(contentsOf: good))
        var offset = 0
        var mdat: Range<Int>?
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard size >= 8 else { break }
            if type == "mdat" { mdat = offset + 8..<min(bytes.count, offset + size) }
            offset += size
        }
        let data = try #require(mdat, "no mdat box in \(good.lastPathComponent)")
        try #require(data.count > 20_000, "mdat only \(data.count) bytes")
        var state: UInt32 = 12345
        for i in (data.lowerBound + data.count / 2)..<(data.lowerBound + data.count / 2 + 4000) {
            state = state &* 1_103_515_245 &+ 12345
            bytes[i] = UInt8(truncatingIfNeeded: state >> 16)
        }
        let url = folder.file(name)
        try Data(bytes).write(to: url)
        try FileManager.default.removeItem(at: good)
        return url
    }

    @Test func corruptSourceFailsNamingAssetAndTimeUnlessConcealed() throws {
        _ = try makeCorruptSource("damaged.mp4")
        let project = try write("p.json", """
            { "reel": 1, "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30 },
              "assets": { "cam7": { "path": "damaged.mp4" } },
              "timeline": { "clips": [ { "asset": "cam7" } ] } }
            """)
        let before = try files()
        let failed = try run(reel.path, ["render", project.path, "-q"])
        #expect(failed.status == 65, "stderr: \(failed.stderrText)")
        #expect(failed.stderrText.contains("cam7"), "stderr: \(failed.stderrText)")
        #expect(failed.stderrText.range(of: #"[0-9][0-9./]* ?s\b"#, options: .regularExpression) != nil,
                "no source time in: \(failed.stderrText)")
        #expect(try files() == before)

        let concealed = try run(reel.path, ["render", project.path, "-q", "--conceal"])
        #expect(concealed.status == 0, "stderr: \(concealed.stderrText)")
        #expect(try files() == (before + ["out.mp4"]).sorted())
        if concealed.status == 0 {
            #expect(try countFrames(folder.file("out.mp4")) == 90)
        }
        // What was concealed is said once, in reel's words; FFmpeg's own lines stay off stderr.
        #expect(concealed.stderrText.contains("damaged.mp4: warning: "), "stderr: \(concealed.stderrText)")
        #expect(concealed.stderrText.contains("damaged.mp4") && concealed.stderrText.contains("concealed (--conceal)"),
                "stderr: \(concealed.stderrText)")
        #expect(!concealed.stderrText.contains(" @ 0x"), "stderr: \(concealed.stderrText)")
    }

    /// A faststart mp4 cut in the middle of its media data: the header promises 3 s, the file holds less.
    @Test func truncatedSourceFailsAndLeavesNothing() throws {
        let whole = folder.file("whole.mp4")
        try IndexedMedia.makeVideo(at: whole, frameCount: 90, width: 320, height: 180, gop: 30,
                                   extraArgs: ["-movflags", "+faststart"])
        let bytes = try Data(contentsOf: whole)
        try bytes.prefix(bytes.count * 6 / 10).write(to: folder.file("cut.mp4"))
        try FileManager.default.removeItem(at: whole)
        let project = try write("p.json", """
            { "reel": 1, "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30 },
              "assets": { "cut": { "path": "cut.mp4" } },
              "timeline": { "clips": [ { "asset": "cut", "in": 0, "out": 3 } ] } }
            """)
        let before = try files()
        let result = try run(reel.path, ["render", project.path, "-q"])
        #expect(result.status == 65, "stderr: \(result.stderrText)")
        #expect(result.stderrText.contains("cut"), "stderr: \(result.stderrText)")
        #expect(try files() == before)
    }

    @Test func racingRendersNeverClobber() throws {
        let project = try longProject(output: "race.mp4", seconds: 20)
        let before = try files()
        let first = try start(["render", project.path, "-q"])
        let second = try start(["render", project.path, "-q"])
        defer {
            for process in [first, second] where process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        let finished = waitUntil(120) { !first.isRunning && !second.isRunning }
        try #require(finished, "renders did not finish within 120 s")
        let statuses = [first.terminationStatus, second.terminationStatus].sorted()
        #expect(statuses == [0, 73], "exit statuses \(statuses)")
        #expect(try files() == (before + ["race.mp4"]).sorted())
        let output = folder.file("race.mp4")
        #expect(try countFrames(output) == 600)
        let decode = try run("ffmpeg", ["-v", "error", "-i", output.path, "-f", "null", "-"])
        #expect(decode.stderrText == "")
    }

    @Test(.enabled(if: getuid() != 0, "running as root: directory permissions do not bind"))
    func unwritableOutputFolderExits73() throws {
        try IndexedMedia.makeVideo(at: folder.file("clip.mp4"), frameCount: 10)
        let locked = folder.file("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false)
        #expect(chmod(locked.path, 0o555) == 0)
        defer { chmod(locked.path, 0o755) }
        let project = try write("p.json", """
            { "reel": 1, "output": { "path": "locked/out.mp4", "size": [64, 36], "frameRate": 30 },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ { "asset": "clip" } ] } }
            """)
        let result = try run(reel.path, ["render", project.path, "-q"])
        #expect(result.status == 73, "stderr: \(result.stderrText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: locked.path).isEmpty)
    }

    struct InvalidCase: Sendable, CustomStringConvertible {
        let name: String
        let project: String
        /// Acceptable exit statuses.
        let status: Set<Int32>
        var description: String { name }
    }

    static func valid(clip: String = #"{ "asset": "clip", "in": 0.1, "out": 0.5 }"#, output: String = "",
                      asset: String = #"{ "path": "clip.mp4" }"#) -> String {
        """
        { "reel": 1, "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30\(output) },
          "assets": { "clip": \(asset) },
          "timeline": { "clips": [ \(clip) ] } }
        """
    }

    static let invalidCases: [InvalidCase] = [
        InvalidCase(name: "syntax", project: #"{ "reel": 1, "output": { "path": "out.mp4" ,, } }"#, status: [65]),
        InvalidCase(name: "unknown key", project: valid(output: #", "sise": [2, 2]"#), status: [65]),
        InvalidCase(name: "odd size", project: valid().replacingOccurrences(of: "[64, 36]", with: "[63, 36]"), status: [65]),
        InvalidCase(name: "speed 0", project: valid(clip: #"{ "asset": "clip", "speed": 0 }"#), status: [65]),
        InvalidCase(name: "unknown asset", project: valid(clip: #"{ "asset": "clap" }"#), status: [65]),
        InvalidCase(name: "trim past the end", project: valid(clip: #"{ "asset": "clip", "in": 0.5, "out": 9 }"#), status: [65]),
        InvalidCase(name: "missing media", project: valid(asset: #"{ "path": "nowhere.mp4" }"#), status: [66]),
        InvalidCase(name: "null value", project: valid(clip: #"{ "asset": "clip", "in": null }"#), status: [65]),
        InvalidCase(name: "duplicate key", project: valid(clip: #"{ "asset": "clip", "in": 0.1, "in": 0.2 }"#), status: [65]),
        InvalidCase(name: "huge time", project: valid(clip: #"{ "asset": "clip", "out": 1e300 }"#), status: [65]),
        InvalidCase(name: "transition too long", project: valid(
            clip: #"{ "asset": "clip", "in": 0, "out": 0.5 }, { "asset": "clip", "in": 0, "out": 0.5, "transition": { "type": "dissolve", "duration": 2 } }"#),
            status: [65]),
        InvalidCase(name: "codec the container cannot hold",
                    project: valid(output: #", "video": { "codec": "h264" }"#).replacingOccurrences(of: "out.mp4", with: "out.webm"),
                    status: [65, 69]),
        InvalidCase(name: "renderScale 0", project: valid(output: #", "renderScale": 0"#), status: [65]),
    ]

    @Test(arguments: invalidCases)
    func invalidProjectsWriteNothing(_ invalid: InvalidCase) throws {
        try IndexedMedia.makeVideo(at: folder.file("clip.mp4"), frameCount: 30,
                                   audio: .counter(sampleRate: 48000, channels: 2, codec: "aac"))
        let project = try write("p.json", invalid.project)
        let before = try files()
        let result = try run(reel.path, ["render", project.path, "-q"])
        #expect(invalid.status.contains(result.status), "status \(result.status), stderr: \(result.stderrText)")
        #expect(!result.stderrText.isEmpty)
        #expect(try files() == before)
        // -o replaces output.path, container included: keep the project's extension so the case stays invalid.
        let written = invalid.project.contains("out.webm") ? "forced.webm" : "forced.mp4"
        let forced = try run(reel.path, ["render", project.path, "-q", "--force", "-o", folder.file(written).path])
        #expect(invalid.status.contains(forced.status))
        #expect(try files() == before)
    }
}

/// Random and adversarial damage to a valid project through `reel validate --no-probe`: exit codes only
/// 0, 65, 66 or 69, never a crash or a hang, and always a message on failure.
@Suite struct UntrustedInputTests {
    let reel: URL

    init() throws {
        reel = try builtExecutable(named: "reel")
    }

    static let base = """
        { "reel": 1,
          "output": { "path": "out.mp4", "size": [1280, 720], "frameRate": "30000/1001", "preset": "draft",
                      "background": "#102030", "metadata": { "title": "t" }, "end": "00:00:20.5",
                      "audio": { "codec": "aac", "sampleRate": 48000, "channels": 2 } },
          "assets": { "cat": { "path": "media/cat.mov", "rotation": 90 }, "music": { "path": "media/music.m4a" },
                      "logo": { "image": "media/logo.png" }, "red": { "color": "#FF0000" } },
          "timeline": {
            "clips": [ { "asset": "cat", "in": 2, "out": 10, "speed": 1.5, "volume": "-6dB" },
                       { "asset": "red", "duration": "3f",
                         "transition": { "type": "dissolve", "duration": "1f" } },
                       { "asset": "cat", "in": "00:00:01;02", "duration": 2.5, "fit": "cover",
                         "transition": { "type": "push", "direction": "up", "duration": 0.01 } },
                       { "gap": "48f" } ],
            "audio": [ { "id": "music", "asset": "music", "at": 0, "in": 0, "out": 10, "duration": 20, "volume": 0.8,
                         "loop": true, "fadeIn": 1, "fadeOut": 2 } ],
            "ducking": [ { "duck": "music", "under": "main", "to": 0.2, "ramp": 0.5 } ],
            "volume": [ { "track": "main", "volume": [ { "at": 0, "value": 1.0 },
                                                       { "start": 10.5, "duration": 0.5, "from": 1.0, "to": 0.2 } ] } ] } }
        """

    static let allowedStatuses: Set<Int32> = [0, 65, 66, 69]

    /// Runs `reel validate - --no-probe` on `document` under a 10 s timeout and checks the outcome.
    func check(_ document: [UInt8], _ what: String) throws {
        let result = try run("timeout", ["-s", "KILL", "10", reel.path, "validate", "-", "--no-probe"], stdin: Data(document))
        let preview = String(decoding: document.prefix(160), as: UTF8.self)
        if result.status == 137 {
            Issue.record("\(what): no answer within 10 s (or killed by SIGKILL); document starts \(preview)")
            return
        }
        #expect(!result.terminatedBySignal && Self.allowedStatuses.contains(result.status),
                "\(what): exit \(result.status) \(result.terminatedBySignal ? "(signal)" : ""); stderr \(result.stderrText.suffix(400)); document starts \(preview)")
        if result.status != 0 {
            #expect(!result.stderrText.isEmpty, "\(what): exit \(result.status) with empty stderr")
        }
    }

    @Test func baseProjectIsValid() throws {
        let result = try run(reel.path, ["validate", "-", "--no-probe"], stdin: Data(Self.base.utf8))
        #expect(result.status == 0, "stderr: \(result.stderrText)")
    }

    struct Adversarial: Sendable, CustomStringConvertible {
        let name: String
        let document: [UInt8]
        var description: String { name }
    }

    static func replacing(_ old: String, with new: String) -> [UInt8] {
        Array(base.replacingOccurrences(of: old, with: new).utf8)
    }

    static let adversarial: [Adversarial] = [
        Adversarial(name: "deep arrays", document: Array(("{\"reel\": " + String(repeating: "[", count: 200_000)).utf8)),
        Adversarial(name: "deep objects", document: Array(String(repeating: "{\"a\":", count: 100_000).utf8)),
        Adversarial(name: "deep closed arrays",
                    document: Array(("{\"reel\": 1, \"x\": " + String(repeating: "[", count: 50_000)
                                     + String(repeating: "]", count: 50_000) + "}").utf8)),
        Adversarial(name: "1e300 in", document: replacing(#""in": 2,"#, with: #""in": 1e300,"#)),
        Adversarial(name: "1e-300 out", document: replacing(#""out": 10"#, with: #""out": 1e-300"#)),
        Adversarial(name: "int64 overflow rational", document: replacing(#""gap": "48f""#, with: #""gap": "9223372036854775808/1""#)),
        Adversarial(name: "int64 min rational", document: replacing(#""gap": "48f""#, with: #""gap": "-9223372036854775808/1""#)),
        Adversarial(name: "int64 max frames", document: replacing(#""gap": "48f""#, with: #""gap": "9223372036854775807f""#)),
        Adversarial(name: "max over min", document: replacing(#""gap": "48f""#, with: #""gap": "9223372036854775807/-1""#)),
        Adversarial(name: "zero denominator", document: replacing(#""gap": "48f""#, with: #""gap": "1/0""#)),
        Adversarial(name: "huge exponent", document: replacing(#""speed": 1.5"#, with: #""speed": 1e2147483648"#)),
        Adversarial(name: "long mantissa", document: replacing(#""speed": 1.5"#, with: #""speed": 1.\#(String(repeating: "5", count: 100_000))"#)),
        Adversarial(name: "negative zero speed", document: replacing(#""speed": 1.5"#, with: #""speed": -0"#)),
        Adversarial(name: "negative zero time", document: replacing(#""in": 2,"#, with: #""in": -0,"#)),
        Adversarial(name: "null value", document: replacing(#""volume": 0.8"#, with: #""volume": null"#)),
        Adversarial(name: "duplicate keys", document: replacing(#""reel": 1,"#, with: #""reel": 1, "reel": 1,"#)),
        Adversarial(name: "big frame rate", document: replacing(#""30000/1001""#, with: #""9223372036854775807/1""#)),
        Adversarial(name: "frame rate over min", document: replacing(#""30000/1001""#, with: #""-9223372036854775808/-1""#)),
        Adversarial(name: "huge size", document: replacing("[1280, 720]", with: "[9223372036854775807, 1e300]")),
        Adversarial(name: "timecode overflow", document: replacing(#""00:00:01;02""#, with: #""9999999999999999:59:59;29""#)),
        Adversarial(name: "clock overflow", document: replacing(#""00:00:20.5""#, with: #""99999999999999999:00.5""#)),
        Adversarial(name: "25 hours", document: replacing(#""end": "00:00:20.5""#, with: #""end": "25:00:00.0""#)),
        Adversarial(name: "huge loop count", document: replacing(#""duration": 30"#, with: #""duration": 86399.999"#)),
        Adversarial(name: "tiny transition", document: replacing(#""duration": 0.01"#, with: #""duration": "1/2147483647""#)),
        Adversarial(name: "huge gain", document: replacing(#""-6dB""#, with: #""1e308dB""#)),
        Adversarial(name: "nan gain", document: replacing(#""-6dB""#, with: #""NaNdB""#)),
        Adversarial(name: "negative infinity gain", document: replacing(#""-6dB""#, with: #""-1e400dB""#)),
        Adversarial(name: "huge font", document: replacing(#""size": 72"#, with: #""size": 1e18"#)),
        Adversarial(name: "huge track id", document: replacing(#""track": "main""#, with: #""track": 9223372036854775808"#)),
        Adversarial(name: "invalid utf8", document: Array(base.utf8.prefix(40)) + [0xC3, 0x28, 0xFF, 0xFE] + Array(base.utf8.dropFirst(40))),
        Adversarial(name: "BOM and NUL", document: [0xEF, 0xBB, 0xBF] + Array(base.utf8) + [0]),
        Adversarial(name: "empty", document: []),
        Adversarial(name: "lone surrogate escape", document: replacing(#""title": "t""#, with: #""title": "\ud800""#)),
        Adversarial(name: "10000 clips", document: replacing(#"{ "gap": "48f" },"#,
            with: String(repeating: #"{ "gap": "1f" }, "#, count: 10_000))),
        Adversarial(name: "speed 1e-2 on a long clip", document: replacing(#""speed": 1.5"#, with: #""speed": 0.01"#)),
    ]

    @Test(arguments: adversarial)
    func adversarialDocumentsNeverCrash(_ adversarial: Adversarial) throws {
        try check(adversarial.document, adversarial.name)
    }

    /// 200 random mutations of `base`, reproducible from their seed.
    @Test func randomMutationsNeverCrash() throws {
        let baseBytes = Array(Self.base.utf8)
        let numbers = ["1e300", "1e-300", "-0", "9223372036854775808", "-9223372036854775809", "\"9223372036854775808/1\"",
                       "4294967296", "2147483648", "1e999999999", "-1", "0", "0.0000000000000000000001", "\"1/0\"",
                       "\"0/0\"", "\"99:99:99:99\"", "\"-1f\"", "123456789012345678901234567890", "true", "null", "[]",
                       "{}", "\"\"", "1.7976931348623157e309", "-2147483648", "\"2147483648/2147483647\""]
        let bytesToInsert: [[UInt8]] = ["{", "}", "[", "]", "\"", ":", ",", "\\", "-", "e", "0", "9", "."].map { Array($0.utf8) }
            + [[0], [0xFF], [0xC3], [0xED, 0xA0, 0x80], [0xEF, 0xBB, 0xBF]]
        var rng = SeededGenerator(seed: 0x5EED_2026)
        for trial in 0..<200 {
            var doc = baseBytes
            var what: [String] = []
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let position = Int.random(in: 0..<max(1, doc.count), using: &rng)
                switch Int.random(in: 0..<8, using: &rng) {
                case 0:
                    let length = Int.random(in: 1...8, using: &rng)
                    doc.removeSubrange(position..<min(doc.count, position + length))
                    what.append("delete \(length) at \(position)")
                case 1:
                    let insert = bytesToInsert.randomElement(using: &rng) ?? []
                    doc.insert(contentsOf: insert, at: position)
                    what.append("insert \(insert) at \(position)")
                case 2:
                    if position < doc.count { doc[position] = UInt8.random(in: 0...255, using: &rng) }
                    what.append("replace byte at \(position)")
                case 3, 4:
                    // Replace the number literal at or after position.
                    let digits = Array("-0123456789.eE+".utf8)
                    guard let start = doc[position...].firstIndex(where: { (48...57).contains($0) }) else { continue }
                    var first = start
                    while first > 0, digits.contains(doc[first - 1]) { first -= 1 }
                    var end = start
                    while end < doc.count, digits.contains(doc[end]) { end += 1 }
                    let replacement = numbers.randomElement(using: &rng) ?? "0"
                    doc.replaceSubrange(first..<end, with: Array(replacement.utf8))
                    what.append("number at \(first) -> \(replacement)")
                case 5:
                    let depth = [100, 5_000, 100_000].randomElement(using: &rng) ?? 100
                    doc.insert(contentsOf: Array((String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth) + ",").utf8)
                               , at: position)
                    what.append("nest \(depth) at \(position)")
                case 6:
                    doc = Array(doc.prefix(position))
                    what.append("truncate at \(position)")
                default:
                    // Duplicate a member: copy `"key": value` from the base right after an opening brace.
                    if let brace = doc[position...].firstIndex(of: UInt8(ascii: "{")) {
                        doc.insert(contentsOf: Array(#""reel": 1, "output": null, "#.utf8), at: brace + 1)
                        what.append("duplicate members after \(brace)")
                    }
                }
            }
            try check(doc, "trial \(trial) (\(what.joined(separator: "; ")))")
        }
    }
}

/// A small deterministic random number generator (SplitMix64) so failures reproduce.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
