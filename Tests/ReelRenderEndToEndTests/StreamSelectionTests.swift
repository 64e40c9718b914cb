import Foundation
import ReelTestSupport
import Testing

/// `audioTrack` and `language` on an asset pick which audio stream of a file plays (SPEC §2.2).
@Suite struct StreamSelectionTests {
    @Test(arguments: [
        (#""language": "fra""#, 660.0),
        (#""audioTrack": 2"#, 660.0),
        (#""language": "eng""#, 440.0),
        ("", 440.0),
    ])
    func assetPicksTheAudioStream(selection: String, expectedFrequency: Double) throws {
        let folder = try TemporaryDirectory(prefix: "reel-streams")
        defer { folder.remove() }
        // Stream 0: video; stream 1: 440 Hz tagged eng; stream 2: 660 Hz tagged fra.
        let make = try run("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "color=c=gray:s=64x36:r=30:d=1",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=1",
            "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=48000:duration=1",
            "-map", "0:v", "-map", "1:a", "-map", "2:a", "-c:v", "libx264", "-c:a", "pcm_s16le",
            "-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra",
            folder.file("two.mov").path,
        ])
        try #require(make.status == 0, "\(make.stderrText)")
        let extra = selection.isEmpty ? "" : ", \(selection)"
        let project = """
            { "reel": 1, "output": { "path": "out.mov", "size": [64, 36], "frameRate": 30, "audio": { "codec": "pcm" } },
              "assets": { "a": { "path": "two.mov"\(extra) } },
              "timeline": { "clips": [ { "asset": "a" } ] } }
            """
        try project.write(to: folder.file("p.json"), atomically: true, encoding: .utf8)
        let reel = try builtExecutable(named: "reel")
        let result = try run(reel.path, ["render", folder.file("p.json").path, "-q"])
        try #require(result.status == 0, "\(result.stderrText)")
        let samples = try readAudioSamples(of: folder.file("out.mov"), sampleRate: 48000, channels: 2)[0]
        let middle = samples[12000..<36000]
        let wanted = Spine.goertzel(middle, frequency: expectedFrequency, sampleRate: 48000)
        let other = Spine.goertzel(middle, frequency: expectedFrequency == 440 ? 660 : 440, sampleRate: 48000)
        #expect(wanted > 100 * other)
    }

    @Test func unknownLanguageIsAnError() throws {
        let folder = try TemporaryDirectory(prefix: "reel-streams-bad")
        defer { folder.remove() }
        try IndexedMedia.makeVideo(
            at: folder.file("a.mov"), frameCount: 10,
            audio: .counter(sampleRate: 48000, channels: 2, codec: "pcm_s16le"))
        let project = """
            { "reel": 1, "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30 },
              "assets": { "a": { "path": "a.mov", "language": "deu" } },
              "timeline": { "clips": [ { "asset": "a" } ] } }
            """
        try project.write(to: folder.file("p.json"), atomically: true, encoding: .utf8)
        let result = try run(try builtExecutable(named: "reel").path, ["validate", folder.file("p.json").path])
        #expect(result.status == 65)
        #expect(result.stderrText.contains("$.assets.a.language"))
    }
}
