import Foundation
import ReelTestSupport
import Testing

/// Animations (`.gif .webp .apng`) and image sequences (`frame_%05d.png|.jpg|.webp`), checked from outside: ffprobe,
/// the frame indices decoded back, the play counts in the files' own bytes. The clip is the suites' indexed 1 s,
/// 30 fps clip with sound; rendering it at 15 fps shows its frames 0, 2, 4, … 28.
@Suite struct PictureOutputTests: CLISuite {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        (folder, reel) = try Self.workspace(prefix: "reel-pictures")
    }

    private static let everyOtherFrame = Array(stride(from: 0, to: 30, by: 2))

    private func project(_ name: String = "p.json", output: String, extra: String = "") throws -> String {
        try write(name, """
            { "reel": 1, "output": { "path": "\(output)", "size": [64, 36], "frameRate": 15\(extra) },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ { "asset": "clip" } ] } }
            """)
    }

    private func streams(_ file: URL) throws -> String {
        try run("ffprobe", ["-v", "error", "-count_frames", "-show_entries",
                            "stream=codec_type,codec_name,width,height,nb_read_frames", "-of", "csv=p=0", file.path])
            .stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aGifShowsEveryFrameOnceWithoutSoundAndLoopsForEver() throws {
        let result = try reel(["render", try project(output: "out.gif"), "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let file = folder.file("out.gif")
        // The clip's sound is ignored: one video stream, no audio.
        #expect(try streams(file) == "gif,video,64,36,15")
        #expect(try IndexedMedia.readFrameIndices(of: file, width: 64, height: 36) == Self.everyOtherFrame)
        #expect(try gifLoopCount(file) == 0)
        // Centisecond delays of 7 and 6 keep the clock: 15 frames last 1 s.
        let times = try frameTimes(file)
        #expect(times.count == 15 && abs(times[14] - 14.0 / 15) < 0.006, "\(times)")
    }

    @Test(arguments: [(1, nil), (2, 1), (5, 4)] as [(Int, Int?)])
    func aGifPlaysAsOftenAsLoopSays(plays: Int, netscapeCount: Int?) throws {
        let result = try reel(["render", try project(output: "loop.gif", extra: ", \"loop\": \(plays)"), "-q", "--force"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try gifLoopCount(folder.file("loop.gif")) == netscapeCount)
    }

    @Test func anAPNGShowsEveryFrameOnceAndCountsItsPlays() throws {
        let result = try reel(["render", try project(output: "out.apng", extra: ", \"loop\": 3"), "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let file = folder.file("out.apng")
        #expect(try streams(file) == "apng,video,64,36,15")
        #expect(try IndexedMedia.readFrameIndices(of: file, width: 64, height: 36) == Self.everyOtherFrame)
        let chunks = try pngChunks(file)
        let control = try #require(chunks.first { $0.type == "acTL" }?.data)
        #expect(bigEndian(control, 0, 4) == 15 && bigEndian(control, 4, 4) == 3)
        // Every frame lasts exactly 1/15 s.
        let delays = chunks.filter { $0.type == "fcTL" }.map { (bigEndian($0.data, 20, 2), bigEndian($0.data, 22, 2)) }
        #expect(delays.count == 15 && delays.allSatisfy { $0 == (1, 15) }, "\(delays)")
    }

    /// FFmpeg 5.1 cannot decode animated WebP, so the frames are counted in the file's own chunks (ANMF) and their
    /// durations summed; the play count is ANIM's.
    @Test func anAnimatedWebPHoldsOneFramePerOutputFrame() throws {
        let result = try reel(["render", try project(output: "out.webp"), "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let bytes = [UInt8](try Data(contentsOf: folder.file("out.webp")))
        #expect(Array(bytes[0..<4]) == Array("RIFF".utf8) && Array(bytes[8..<12]) == Array("WEBP".utf8))
        var offset = 12
        var frames: [Int] = []
        var loopCount: Int?
        while offset + 8 <= bytes.count {
            let type = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = littleEndian(bytes, offset + 4, 4)
            if type == "ANIM" { loopCount = littleEndian(bytes, offset + 12, 2) }
            if type == "ANMF" { frames.append(littleEndian(bytes, offset + 8 + 12, 3)) }
            offset += 8 + size + size % 2
        }
        #expect(loopCount == 0)
        #expect(frames.count == 15, "\(frames)")
        // Millisecond durations (66 or 67) adding up to the second.
        #expect(frames.allSatisfy { $0 == 66 || $0 == 67 } && abs(frames.reduce(0, +) - 1000) <= 1, "\(frames)")
    }

    @Test(arguments: ["png", "jpg", "webp"])
    func anImageSequenceHoldsEveryFrameExactlyNumberedFromZero(ext: String) throws {
        try FileManager.default.createDirectory(at: folder.file("seq-\(ext)"), withIntermediateDirectories: false)
        let result = try reel(["render", try project("p-\(ext).json", output: "seq-\(ext)/f_%05d.\(ext)"), "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.file("seq-\(ext)").path).sorted()
        #expect(names == (0..<15).map { String(format: "f_%05d.%@", $0, ext) }, "\(names)")
        let codec = ["png": "png", "jpg": "mjpeg", "webp": "webp"][ext]!
        for (number, name) in names.enumerated() {
            let file = folder.file("seq-\(ext)/\(name)")
            #expect(try streams(file) == "\(codec),video,64,36,1")
            #expect(try IndexedMedia.readFrameIndices(of: file, width: 64, height: 36) == [2 * number], "\(name)")
        }
    }

    @Test func aSequenceNeverReplacesFilesWithoutForceAndForceReplacesTheWholePattern() throws {
        let seq = folder.file("seq")
        try FileManager.default.createDirectory(at: seq, withIntermediateDirectories: false)
        // An older, longer sequence of the same pattern, and a file of another name.
        for number in 0..<20 { try Data("old".utf8).write(to: seq.appendingPathComponent(String(format: "f_%03d.png", number))) }
        try Data("keep".utf8).write(to: seq.appendingPathComponent("notes.txt"))
        let path = try project(output: "seq/f_%03d.png")
        let refused = try reel(["render", path, "-q"])
        #expect(refused.status == 73, "\(refused.stderrText)")
        #expect(refused.stderrText.contains("f_000.png exists") && refused.stderrText.contains("--force"))
        // Nothing was written: the old files untouched, no hidden folder.
        let before = try FileManager.default.contentsOfDirectory(atPath: seq.path).sorted()
        #expect(before.count == 21 && !before.contains { $0.hasPrefix(".") })
        #expect(try Data(contentsOf: seq.appendingPathComponent("f_007.png")) == Data("old".utf8))

        let forced = try reel(["render", path, "-q", "--force"])
        #expect(forced.status == 0, "\(forced.stderrText)")
        let after = try FileManager.default.contentsOfDirectory(atPath: seq.path).sorted()
        #expect(after == (0..<15).map { String(format: "f_%03d.png", $0) } + ["notes.txt"], "\(after)")
        #expect(try IndexedMedia.readFrameIndices(of: seq.appendingPathComponent("f_014.png"), width: 64, height: 36) == [28])
    }

    /// SIGINT in the middle of an image sequence: frames were already written into the hidden folder; reel removes
    /// it and exits 130, and the output folder is as it was.
    @Test func anInterruptedSequenceLeavesNothing() throws {
        let out = folder.file("int")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
        let path = try write("long.json", """
            { "reel": 1, "output": { "path": "int/f_%05d.png", "size": [640, 360], "frameRate": 30 },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ { "asset": "clip", "speed": 0.02 } ] } }
            """)
        let process = try start(reel.path, ["render", path, "-q"])
        // Wait until frames are on disk in the hidden folder (at most 60 s).
        var sawFrames = false
        for _ in 0..<600 where !sawFrames {
            usleep(100_000)
            let hidden = (try? FileManager.default.contentsOfDirectory(atPath: out.path))?.filter { $0.hasPrefix(".") } ?? []
            sawFrames = hidden.contains { name in
                ((try? FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent(name).path)) ?? []).count > 2
            }
        }
        process.send(SIGINT)
        let result = try process.wait()
        #expect(sawFrames)
        #expect(result.status == 130)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == [])
    }

    @Test func aSequenceWhosePatternNamesAnInputIsRefusedEvenWithForce() throws {
        let seq = folder.file("in")
        try FileManager.default.createDirectory(at: seq, withIntermediateDirectories: false)
        _ = try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=red:s=64x36", "-frames:v", "1",
                                      seq.appendingPathComponent("f_0003.png").path])
        let path = try write("clash.json", """
            { "reel": 1, "output": { "path": "in/f_%04d.png", "size": [64, 36], "frameRate": 15 },
              "assets": { "still": { "image": "in/f_0003.png" } },
              "timeline": { "clips": [ { "asset": "still", "duration": 1 } ] } }
            """)
        let result = try reel(["render", path, "-q", "--force"])
        #expect(result.status == 73, "\(result.stderrText)")
        #expect(result.stderrText.contains("asset \"still\""), "\(result.stderrText)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: seq.path) == ["f_0003.png"])
    }

    @Test(arguments: [
        (#""path": "still.png""#, "$.output.path"),
        (#""path": "anim_%03d.gif""#, "$.output.path"),
        (#""path": "x.gif", "video": {"codec": "h264"}"#, "$.output.video.codec"),
        (#""path": "x.webp", "video": {"crf": 30}"#, "$.output.video.crf"),
        (#""path": "x.mp4", "loop": 2"#, "$.output.loop"),
    ])
    func aProjectAskingWhatTheKindCannotDoIsRefused(output: String, path: String) throws {
        let file = try write("bad.json", """
            { "reel": 1, "output": { \(output), "size": [64, 36], "frameRate": 15 },
              "assets": { "clip": { "path": "clip.mp4" } }, "timeline": { "clips": [ { "asset": "clip" } ] } }
            """)
        let result = try reel(["render", file, "-q"])
        #expect(result.status == 65, "\(result.stderrText)")
        #expect(result.stderrText.contains(path), "\(result.stderrText)")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(!left.contains { $0.hasPrefix("x.") || $0.hasPrefix("still") || $0.contains("reel-partial") }, "\(left)")
    }

    /// The GIF's one palette from every frame, against the ffmpeg CLI's two-pass recipe (palettegen, then
    /// paletteuse, both with their defaults but reserve_transparent=0) on the same pictures: a rendering of a
    /// colourful moving source, written by reel as a GIF and as PNG stills that the CLI then turns into its GIF.
    @Test func aGifIsAboutAsSmallAsTheCLIsTwoPassPalette() throws {
        _ = try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=30:d=2",
                                      "-c:v", "libx264", "-crf", "10", folder.file("colour.mp4").path])
        for output in ["colour.gif", "cframes/f_%04d.png"] {
            if output.hasPrefix("cframes") {
                try FileManager.default.createDirectory(at: folder.file("cframes"), withIntermediateDirectories: false)
            }
            let file = try write("colour.json", """
                { "reel": 1, "output": { "path": "\(output)", "size": [320, 180], "frameRate": 15 },
                  "assets": { "c": { "path": "colour.mp4" } }, "timeline": { "clips": [ { "asset": "c" } ] } }
                """)
            let result = try reel(["render", file, "-q"])
            #expect(result.status == 0, "\(result.stderrText)")
        }
        let frames = folder.file("cframes/f_%04d.png").path
        _ = try runChecked("ffmpeg", ["-v", "error", "-framerate", "15", "-start_number", "0", "-i", frames,
                                      "-vf", "palettegen=reserve_transparent=0", folder.file("palette.png").path])
        _ = try runChecked("ffmpeg", ["-v", "error", "-framerate", "15", "-start_number", "0", "-i", frames,
                                      "-i", folder.file("palette.png").path, "-lavfi", "paletteuse",
                                      folder.file("cli.gif").path])
        let ours = try FileManager.default.attributesOfItem(atPath: folder.file("colour.gif").path)[.size] as! Int
        let theirs = try FileManager.default.attributesOfItem(atPath: folder.file("cli.gif").path)[.size] as! Int
        let ratio = Double(ours) / Double(theirs)
        #expect(ratio > 0.95 && ratio < 1.05, "reel \(ours) B, ffmpeg two-pass \(theirs) B, ratio \(ratio)")
    }
}

/// The loop count of a GIF's NETSCAPE2.0 block (repeats after the first play, 0 for ever), nil without one.
private func gifLoopCount(_ file: URL) throws -> Int? {
    let bytes = [UInt8](try Data(contentsOf: file))
    let marker = Array("NETSCAPE2.0".utf8)
    guard let start = (0...(bytes.count - marker.count - 5)).first(where: { Array(bytes[$0..<$0 + marker.count]) == marker })
    else { return nil }
    let block = start + marker.count
    #expect(bytes[block] == 3 && bytes[block + 1] == 1)
    return littleEndian(bytes, block + 2, 2)
}

private func pngChunks(_ file: URL) throws -> [(type: String, data: [UInt8])] {
    let bytes = [UInt8](try Data(contentsOf: file))
    var chunks: [(String, [UInt8])] = []
    var offset = 8
    while offset + 8 <= bytes.count {
        let length = bigEndian(bytes, offset, 4)
        chunks.append((String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self),
                       Array(bytes[offset + 8..<offset + 8 + length])))
        offset += 12 + length
    }
    return chunks
}

private func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
    (0..<count).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
}

private func littleEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
    (0..<count).reversed().reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
}
