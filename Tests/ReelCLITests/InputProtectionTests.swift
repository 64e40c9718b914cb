import Foundation
import ReelTestSupport
import Testing

/// An output that is one of the project's inputs is refused with exit 73, with or without `--force`, however it
/// is named, and the input is left as it was.
@Suite struct InputProtectionTests {
    let folder: TemporaryDirectory
    let reel: URL
    let source: URL
    let sourceBytes: Data

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-inputs")
        reel = try builtExecutable(named: "reel")
        try FileManager.default.createDirectory(at: folder.file("media"), withIntermediateDirectories: true)
        source = folder.file("media/clip.mp4")
        _ = try IndexedMedia.makeVideo(at: source, frameCount: 10)
        sourceBytes = try Data(contentsOf: source)
    }

    /// A project using media/clip.mp4 that writes `output`.
    func project(output: String) throws -> URL {
        let url = folder.file("p.json")
        try """
            { "reel": 1, "output": { "path": "\(output)", "size": [64, 36], "frameRate": 30 },
              "assets": { "clip": { "path": "media/clip.mp4" } },
              "timeline": { "clips": [ { "asset": "clip" } ] } }
            """.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    enum Way: String, CaseIterable, CustomStringConvertible {
        case outputPath, outputFlag, symbolicLink, hardLink
        var description: String { rawValue }
    }

    @Test(arguments: Way.allCases, [false, true])
    func anOutputThatIsAnInputIsRefused(way: Way, force: Bool) throws {
        var output = "media/clip.mp4"
        switch way {
        case .outputPath, .outputFlag:
            break
        case .symbolicLink:
            try FileManager.default.createSymbolicLink(
                atPath: folder.file("link.mp4").path, withDestinationPath: source.path)
            output = "link.mp4"
        case .hardLink:
            try FileManager.default.linkItem(at: source, to: folder.file("hard.mp4"))
            output = "hard.mp4"
        }
        var args: [String]
        if way == .outputFlag {
            // -o resolves against the working directory: name the input from elsewhere.
            args = ["render", try project(output: "elsewhere.mp4").path, "-o", folder.file(output).path]
        } else {
            args = ["render", try project(output: output).path]
        }
        if force { args.append("--force") }

        let result = try run(reel.path, args)
        #expect(result.status == 73, "\(result.stderrText)")
        #expect(result.stderrText.contains("asset \"clip\""), "\(result.stderrText)")
        #expect(result.stderrText.contains(source.lastPathComponent), "\(result.stderrText)")
        #expect(try Data(contentsOf: source) == sourceBytes)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
            .filter { $0.hasSuffix(".reel-partial") || $0 == "elsewhere.mp4" }
        #expect(leftovers.isEmpty)
    }

    @Test(arguments: ["media/still.png", "shot%d.png"])
    func aThumbnailThatIsAnInputIsRefusedBeforeAnyPictureIsWritten(pattern: String) throws {
        let still = folder.file("media/still.png")
        _ = try run("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=red:s=64x36", "-frames:v", "1", still.path])
        let stillBytes = try Data(contentsOf: still)
        // shot1.png, the second picture of the pattern (numbered from 0), is the still under another name.
        try FileManager.default.createSymbolicLink(atPath: folder.file("shot1.png").path, withDestinationPath: still.path)
        let projectURL = folder.file("t.json")
        try """
            { "reel": 1, "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30 },
              "assets": { "clip": { "path": "media/clip.mp4" }, "still": { "image": "media/still.png" } },
              "timeline": { "clips": [ { "asset": "clip" }, { "asset": "still", "duration": 1 } ] } }
            """.write(to: projectURL, atomically: true, encoding: .utf8)

        let times = pattern.contains("%d") ? "0,0.1" : "0.1"
        let result = try run(reel.path, ["thumbnail", projectURL.path, "--at", times, "-o", folder.file(pattern).path])
        #expect(result.status == 73, "\(result.stderrText)")
        #expect(result.stderrText.contains("asset \"still\""), "\(result.stderrText)")
        #expect(try Data(contentsOf: still) == stillBytes)
        #expect(!FileManager.default.fileExists(atPath: folder.file("shot0.png").path))
    }

    @Test func anotherOutputBesideTheInputIsWritten() throws {
        let result = try run(reel.path, ["render", try project(output: "media/render.mp4").path])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(FileManager.default.fileExists(atPath: folder.file("media/render.mp4").path))
    }
}
