import Foundation
import ReelTestSupport

/// What the suites that drive the built `reel` binary share: a scratch folder holding a 1 s, 30 fps indexed clip
/// (`clip.mp4`, B-frames, AAC counter audio), project files written into it, and the binary itself.
protocol CLISuite {
    var folder: TemporaryDirectory { get }
    var reel: URL { get }
}

extension CLISuite {
    /// A new scratch folder with `clip.mp4` in it, and the binary under test.
    static func workspace(prefix: String) throws -> (folder: TemporaryDirectory, reel: URL) {
        let folder = try TemporaryDirectory(prefix: prefix)
        try IndexedMedia.makeVideo(
            at: folder.file("clip.mp4"), frameCount: 30, frameRate: "30", gop: 12, bFrames: 2,
            audio: .counter(sampleRate: 48000, channels: 2, codec: "aac"))
        return (folder, try builtExecutable(named: "reel"))
    }

    /// Writes `text` as `name` in the folder and returns its path.
    func write(_ name: String, _ text: String) throws -> String {
        let url = folder.file(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// Runs the binary with `args`.
    func reel(_ args: [String], stdin: Data? = nil) throws -> ProcessResult {
        try run(reel.path, args, stdin: stdin)
    }
}
