import Foundation
import ReelTestSupport
import Testing

/// `reel play` end to end: without a display it explains itself; under Xvfb, driven by `--script` with SDL's dummy
/// audio driver, the window shows the frames the script asks for, read back from the window (`--dump-frames`).
@Suite struct PlayTests {
    let folder: TemporaryDirectory
    let reel: URL
    let project: String

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-play")
        reel = try builtExecutable(named: "reel")
        // Frame n of the source shows code n, and the project plays the source as it is: frame n shows code n.
        try IndexedMedia.makeVideo(
            at: folder.file("clip.mp4"), frameCount: 90, frameRate: "30", gop: 12, bFrames: 2,
            audio: .counter(sampleRate: 48000, channels: 2, codec: "aac"))
        project = folder.file("play.json").path
        try """
            { "reel": 1,
              "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30 },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [{ "asset": "clip" }] } }
            """.write(toFile: project, atomically: true, encoding: .utf8)
    }

    /// The environment without any display.
    private var headless: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in ["DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"] { environment[name] = nil }
        environment["SDL_AUDIODRIVER"] = "dummy"
        return environment
    }

    /// `headless` for a player in an X server (xvfb-run sets DISPLAY). Under `make asan` its leak check is off:
    /// SDL loads its X11 driver libraries with dlopen and unloads them at SDL_Quit, so what libX11, libdbus and
    /// Mesa keep for the process's life is reported from modules that are gone, which no suppression can name.
    /// AddressSanitizer's memory errors are still fatal there, and the player's own code is leak-checked by the
    /// headless and scripted tests and ReelRenderTests' player item tests.
    private var windowed: [String: String] {
        var environment = headless
        if environment["REEL_SANITIZER"] == "address" {
            environment["ASAN_OPTIONS"] = (environment["ASAN_OPTIONS"].map { $0 + ":" } ?? "") + "detect_leaks=0"
        }
        return environment
    }

    @Test func withoutADisplayExitsUnavailableWithAHint() throws {
        defer { folder.remove() }
        let result = try run(reel.path, ["play", project], environment: headless)
        #expect(result.status == 69, "\(result.stderrText)")
        #expect(result.stderrText.contains("reel render PROJECT -o - | ffplay -"), "\(result.stderrText)")
    }

    @Test func badScriptIsAUsageError() throws {
        defer { folder.remove() }
        let result = try run(reel.path, ["play", project, "--script", "play 1s; jump 3"], environment: headless)
        #expect(result.status == 64)
        #expect(result.stderrText.contains("jump 3"), "\(result.stderrText)")
    }

    @Test(.enabled(if: Self.which("xvfb-run") != nil, "xvfb-run is not installed (make deps installs xvfb)"))
    func scriptedPlaybackUnderXvfbShowsTheExpectedFrames() throws {
        defer { folder.remove() }
        let xvfbRun = try #require(Self.which("xvfb-run"))
        let dump = folder.file("dump")
        try FileManager.default.createDirectory(at: dump, withIntermediateDirectories: true)
        let result = try run(xvfbRun, [
            "-a", "-s", "-screen 0 640x480x24", reel.path, "play", project, "--scale", "2", "--stats",
            "--dump-frames", dump.path, "--script", "play 1s; pause; seek 2; step 3; step -2; quit",
        ], environment: windowed)
        #expect(result.status == 0, "\(result.stderrText)")

        // --stats: three lines, each a number.
        let stats = Dictionary(uniqueKeysWithValues: result.stdoutText.split(separator: "\n").compactMap { line in
            line.split(separator: ":", maxSplits: 1).map(String.init).count == 2
                ? (String(line.split(separator: ":")[0]), String(line.split(separator: ":")[1]).trimmingCharacters(in: .whitespaces))
                : nil
        })
        let shown = try #require(stats["frames shown"].flatMap { Int($0) }, "\(result.stdoutText)")
        #expect(stats["frames dropped"] != nil)
        #expect(stats["largest A/V drift"]?.hasSuffix(" ms") == true)

        // What the window showed, in order: read back from its pixels.
        let files = try FileManager.default.contentsOfDirectory(atPath: dump.path).sorted()
        #expect(files.count == shown)
        var indices: [Int] = []
        for name in files {
            let frameIndex = try #require(Int(name.split(separator: "frame")[1].dropLast(4)))
            let (luma, width, height) = try Self.readPGM(dump.appendingPathComponent(name))
            #expect(width == 128 && height == 72)
            #expect(IndexedMedia.decodeIndex(luma: luma, width: width, height: height) == frameIndex,
                    "the window showed another picture than frame \(frameIndex)")
            indices.append(frameIndex)
        }
        // Playing one second from 0: rising frames from the first; then, paused (so that a loaded machine cannot
        // move the clock between the commands), the seek and the steps.
        #expect(indices.first == 0)
        let played = Array(indices.dropLast(3))
        #expect(played == played.sorted() && played.count >= 15, "\(indices)")
        #expect(Array(indices.suffix(3)) == [60, 63, 61], "\(indices)")
    }

    @Test(.enabled(if: Self.which("xvfb-run") != nil, "xvfb-run is not installed (make deps installs xvfb)"))
    func keysUnderXvfbMoveAsDocumented() throws {
        defer { folder.remove() }
        let xvfbRun = try #require(Self.which("xvfb-run"))
        let dump = folder.file("dump")
        try FileManager.default.createDirectory(at: dump, withIntermediateDirectories: true)
        let result = try run(xvfbRun, [
            "-a", "-s", "-screen 0 640x480x24", reel.path, "play", project, "--stats", "--dump-frames", dump.path,
            "--script", "key end; key comma; key home; key period; key shift-right; key left; quit",
        ], environment: windowed)
        #expect(result.status == 0, "\(result.stderrText)")
        let files = try FileManager.default.contentsOfDirectory(atPath: dump.path).sorted()
        var indices: [Int] = []
        for name in files {
            let frameIndex = try #require(Int(name.split(separator: "frame")[1].dropLast(4)))
            let (luma, width, height) = try Self.readPGM(dump.appendingPathComponent(name))
            #expect(IndexedMedia.decodeIndex(luma: luma, width: width, height: height) == frameIndex)
            indices.append(frameIndex)
        }
        // Paused at 0; End: the last frame; comma: one back; Home; period: one on; shift+→: 1 s on; ←: 5 s back,
        // clamped to the start.
        #expect(indices == [0, 89, 88, 0, 1, 31, 0], "\(indices)")
    }

    @Test(.enabled(if: Self.which("xvfb-run") != nil, "xvfb-run is not installed (make deps installs xvfb)"))
    func theTimeLineIsDrawnOverTheBottomOfThePicture() throws {
        defer { folder.remove() }
        let xvfbRun = try #require(Self.which("xvfb-run"))
        let dump = folder.file("dump")
        try FileManager.default.createDirectory(at: dump, withIntermediateDirectories: true)
        // Window 256×144: paused on frame 0, then `t` redraws it with the line.
        let result = try run(xvfbRun, [
            "-a", "-s", "-screen 0 640x480x24", reel.path, "play", project, "--scale", "4", "--dump-frames", dump.path,
            "--script", "key t; quit",
        ], environment: windowed)
        #expect(result.status == 0, "\(result.stderrText)")
        let files = try FileManager.default.contentsOfDirectory(atPath: dump.path).sorted()
        try #require(files.count == 2, "\(files)")
        let (before, width, height) = try Self.readPGM(dump.appendingPathComponent(files[0]))
        let (after, _, _) = try Self.readPGM(dump.appendingPathComponent(files[1]))
        try #require(width == 256 && height == 144)
        var inside = 0, outside = 0
        for y in 0..<height {
            for x in 0..<width where before[y * width + x] != after[y * width + x] {
                if y >= height - 40 { inside += 1 } else { outside += 1 }
            }
        }
        #expect(inside > 1000, "the line changed only \(inside) pixels along the bottom")
        #expect(outside == 0, "the line changed \(outside) pixels elsewhere")
    }

    /// The path of `tool` in `PATH`, or nil (ReelTestSupport's lookup, the runner's own).
    static func which(_ tool: String) -> String? {
        toolPath(tool)
    }

    /// A binary PGM (P5) as written by --dump-frames.
    static func readPGM(_ url: URL) throws -> ([UInt8], Int, Int) {
        let data = [UInt8](try Data(contentsOf: url))
        var fields: [String] = []
        var position = 0
        while fields.count < 4, position < data.count {
            while position < data.count, data[position] == 0x0A || data[position] == 0x20 { position += 1 }
            var field = ""
            while position < data.count, data[position] != 0x0A, data[position] != 0x20 {
                field.append(Character(UnicodeScalar(data[position])))
                position += 1
            }
            fields.append(field)
        }
        position += 1
        guard fields.count == 4, fields[0] == "P5", let width = Int(fields[1]), let height = Int(fields[2]),
              data.count - position == width * height
        else { throw SupportError("\(url.lastPathComponent) is not a P5 picture") }
        return (Array(data[position...]), width, height)
    }
}
