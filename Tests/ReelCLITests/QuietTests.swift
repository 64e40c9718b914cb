import Foundation
import ReelTestSupport
import Testing

/// FFmpeg's and the encoders' own log lines reach stderr only when `--log-level` asks for them.
@Suite struct QuietTests {
    @Test(arguments: [("h264", nil), ("hevc", nil), ("hevc", "info")] as [(String, String?)])
    func encodersAreQuietUnlessAsked(codec: String, logLevel: String?) throws {
        let folder = try TemporaryDirectory(prefix: "reel-quiet")
        let reel = try builtExecutable(named: "reel")
        _ = try IndexedMedia.makeVideo(at: folder.file("clip.mp4"), frameCount: 10)
        let project = folder.file("p.json")
        try """
            { "reel": 1, "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30,
                                     "video": { "codec": "\(codec)", "encoderPreset": "ultrafast" } },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ { "asset": "clip" } ] } }
            """.write(to: project, atomically: true, encoding: .utf8)
        let result = try run(reel.path, ["render", project.path, "-q"] + (logLevel.map { ["--log-level", $0] } ?? []))
        #expect(result.status == 0, "\(result.stderrText)")
        if logLevel == nil {
            #expect(result.stderrText.isEmpty, "\(result.stderrText)")
        } else {
            #expect(result.stderrText.contains("x265"), "\(result.stderrText)")
        }
    }
}
