import Foundation
import ReelTestSupport
import Testing

/// Issue 19.5 and 19.6 through the built binary: ink that leaves the canvas, audio that outlasts the pictures, and
/// `output.end` shortening a timeline.
@Suite struct CanvasAndEndTests: CLISuite {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        (folder, reel) = try Self.workspace(prefix: "reel-canvas")
    }

    func project(output: String = #""path": "out.mov", "size": [320, 180], "frameRate": 30"#,
                 timeline: String) -> String {
        """
        { "reel": 1, "output": { \(output) },
          "assets": { "clip": { "path": "clip.mp4" }, "music": { "path": "music.wav" } },
          "timeline": { \(timeline) } }
        """
    }

    /// Warnings of `validate --json`, as (path, message).
    func warnings(_ path: String, strict: Bool = false) throws -> (status: Int32, lines: [(String, String)]) {
        let result = try reel(["validate", path, "--json"] + (strict ? ["--strict"] : []))
        let lines = result.stdoutText.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.map { ($0["path"] as? String ?? "", $0["message"] as? String ?? "") }
        return (result.status, lines)
    }

    // MARK: 19.5

    @Test func inkLeavingTheCanvasIsAWarningAndAnErrorUnderStrict() throws {
        try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=red:size=16x16", "-frames:v", "1",
                                  folder.file("logo.png").path])
        let path = try write("p.json", """
            { "reel": 1, "output": { "path": "out.mov", "size": [320, 180], "frameRate": 30 },
              "assets": { "clip": { "path": "clip.mp4" }, "logo": { "image": "logo.png" } },
              "timeline": { "clips": [ { "asset": "clip" } ],
                "titles": [
                  { "text": "Maximilian Alexander Featherstonehaugh-Worthington", "start": 0, "duration": 1, "size": 14,
                    "position": [0.3, 0.85] },
                  { "text": "in frame", "start": 0, "duration": 1, "size": 14, "position": [0.5, 0.2] },
                  { "text": "slides in", "start": 0, "duration": 1, "size": 14, "position": [0.5, 0.5],
                    "animations": [ { "property": "position", "from": [-0.3, 0.5], "to": [0.5, 0.5], "start": 0, "duration": 0.5 } ] },
                  { "text": "a much wider spinning caption here", "start": 0, "duration": 1, "size": 14, "position": [0.5, 0.5],
                    "animations": [ { "property": "rotation", "from": 0, "to": 180, "start": 0, "duration": 1 } ] },
                  { "text": "hidden", "start": 0, "duration": 1, "size": 14, "position": [1.2, 0.5],
                    "animations": [ { "property": "opacity", "from": 0, "to": 0, "start": 0, "duration": 1 } ] } ],
                "overlays": [ { "image": "logo", "start": 0, "duration": 1, "position": [0.95, 0.5], "size": [64, 64] } ] } }
            """)
        let (status, lines) = try warnings(path)
        #expect(status == 0)
        // The long name, the spin (inside at its start and end, outside half-way), the logo; not the slide in from
        // outside, nor the transparent title.
        #expect(lines.map(\.0) == ["$.timeline.titles[0]", "$.timeline.titles[3]", "$.timeline.overlays[0]"],
                "\(lines)")
        #expect(lines.first?.1.contains("leaves the canvas past its left edge") == true, "\(lines)")
        #expect(lines.dropFirst().first?.1.contains("top and bottom edges") == true, "\(lines)")
        #expect(lines.last?.1.contains("right edge by up to 16 pixels") == true, "\(lines)")
        let strict = try warnings(path, strict: true)
        #expect(strict.status == 65)
        let render = try reel(["render", path, "--strict", "-q"])
        #expect(render.status == 65)
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.mov").path))
    }

    // MARK: 19.6

    func makeMusic(seconds: Int) throws {
        try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=duration=\(seconds):sample_rate=48000",
                                  "-c:a", "pcm_s16le", folder.file("music.wav").path])
    }

    @Test func audioLongerThanThePicturesIsAWarning() throws {
        try makeMusic(seconds: 3)
        let path = try write("p.json", project(timeline: """
            "clips": [ { "asset": "clip" } ], "audio": [ { "id": "music", "asset": "music" } ]
            """))
        let (status, lines) = try warnings(path)
        #expect(status == 0)
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.0 == "$.timeline.audio[0]")
        #expect(lines.first?.1.contains("runs to 3 s (frame 90), but the pictures end at 1 s (frame 30)") == true,
                "\(lines)")
        #expect(try warnings(path, strict: true).status == 65)
        // Saying where the render ends silences it, either way.
        for end in ["1", "3"] {
            let ended = try write("p\(end).json", project(output: #""path": "out.mov", "size": [320, 180], "frameRate": 30, "end": \#(end)"#,
                                                          timeline: #""clips": [ { "asset": "clip" } ], "audio": [ { "id": "music", "asset": "music" } ]"#))
            #expect(try warnings(ended).lines.isEmpty)
        }
    }

    /// `output.end` before the content's end cuts the timeline there: frames and samples are exactly those of the
    /// full render up to the cut, the compiled form validates and renders the same, and nothing after the cut is
    /// heard.
    @Test
    func outputEndShortensATimelineFrameAndSampleExact() throws {
        try makeMusic(seconds: 3)
        let timeline = #""clips": [ { "asset": "clip" } ], "audio": [ { "id": "music", "asset": "music", "volume": 0 } ]"#
        let cut = try write("cut.json", project(
            output: #""path": "cut.mov", "size": [64, 36], "frameRate": 30, "audio": { "codec": "pcm" }, "end": "15f""#,
            timeline: timeline))
        let full = try write("full.json", project(
            output: #""path": "full.mov", "size": [64, 36], "frameRate": 30, "audio": { "codec": "pcm" }, "end": 3"#,
            timeline: timeline))
        #expect(try reel(["render", cut, "-q"]).status == 0)
        #expect(try reel(["render", full, "-q"]).status == 0)
        let shown = try IndexedMedia.readFrameIndices(of: folder.file("cut.mov"), width: 64, height: 36)
        #expect(shown == Array(0..<15))
        let cutSamples = try readAudioSamplesS16(of: folder.file("cut.mov"), sampleRate: 48000, channels: 2)
        let fullSamples = try readAudioSamplesS16(of: folder.file("full.mov"), sampleRate: 48000, channels: 2)
        #expect(cutSamples[0].count == 24000)
        #expect(cutSamples[0] == Array(fullSamples[0].prefix(24000)))
        #expect(cutSamples[0].contains { $0 != 0 })
        // The compiled form is cut too, validates, and renders the same pictures.
        let compiled = try reel(["compile", cut, "-o", folder.file("explicit.json").path])
        #expect(compiled.status == 0, "\(compiled.stderrText)")
        #expect(try reel(["validate", folder.file("explicit.json").path]).status == 0)
        #expect(try reel(["render", folder.file("explicit.json").path, "-o", folder.file("explicit.mov").path, "-q"]).status == 0)
        #expect(try IndexedMedia.readFrameIndices(of: folder.file("explicit.mov"), width: 64, height: 36) == shown)
        let inspected = try reel(["inspect", cut])
        #expect(inspected.stdoutText.hasPrefix("duration 0.5 s, 15 frames"), "\(inspected.stdoutText)")
    }
}
