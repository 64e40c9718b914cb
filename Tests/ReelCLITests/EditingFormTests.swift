import Foundation
import ReelTestSupport
import Testing

/// The editing-form additions of issue 19.8, run through the binary and checked from outside: split edits heard
/// sample-exactly, JSONC projects, time units, thumbnail patterns and sizes, and `play` on imported files.
@Suite struct EditingFormTests: CLISuite {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        (folder, reel) = try Self.workspace(prefix: "reel-editing")
        // 2 s at 30 fps, PCM counter audio: sample k carries k mod 4000 exactly.
        try IndexedMedia.makeVideo(
            at: folder.file("pcm.mov"), frameCount: 60, frameRate: "30", gop: 12,
            audio: .counter(sampleRate: 48000, channels: 2, codec: "pcm_s16le"))
    }

    /// The counter phase (k mod 4000 of the source sample) of each output sample of the first channel.
    func phases(_ url: URL) throws -> [Int?] {
        try readAudioSamplesS16(of: url, sampleRate: 48000, channels: 2)[0].map { AudioSignal.counter.counterPhase(of: $0) }
    }

    @Test func aJCutIsHeardFromTheExactSampleBeforeItsFirstPicture() throws {
        // Clip 2 shows source 1.4 s (frame 42) from timeline 1 s; its sound starts 0.25 s earlier, at source 1.15 s.
        let path = try write("j.json", """
            { "reel": 1,
              "output": { "path": "j.mkv", "size": [64, 36], "frameRate": 30, "audio": { "codec": "pcm" } },
              "assets": { "m": { "path": "pcm.mov" } },
              "timeline": { "clips": [
                { "asset": "m", "in": 0, "out": 1 },
                { "asset": "m", "in": 1.4, "out": 1.9, "audioLead": "250ms" } ] } }
            """)
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let output = folder.file("j.mkv")
        let frames = try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36)
        #expect(frames == Array(0..<30) + Array(42..<57))
        let heard = try phases(output)
        #expect(heard.count == 72000)
        // Up to sample 35999 the first clip (source sample k); from 36000 (0.75 s) source sample k + 19200.
        let expected = (0..<72000).map { k in k < 36000 ? k % 4000 : (k + 19200) % 4000 }
        let mismatches = heard.indices.filter { heard[$0] != expected[$0] }
        #expect(mismatches.isEmpty, "first mismatch at sample \(mismatches.first ?? -1)")
    }

    @Test func anLCutRunsOnOverTheNextPicture() throws {
        let path = try write("l.json", """
            { "reel": 1,
              "output": { "path": "l.mkv", "size": [64, 36], "frameRate": 30, "audio": { "codec": "pcm" } },
              "assets": { "m": { "path": "pcm.mov" } },
              "timeline": { "clips": [
                { "asset": "m", "in": 0.5, "out": 1, "audioTail": "10f" },
                { "asset": "m", "in": 0.1, "out": 1.1 } ] } }
            """)
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let output = folder.file("l.mkv")
        #expect(try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36) == Array(15..<30) + Array(3..<33))
        let heard = try phases(output)
        // Clip 1's sound runs on for 10 frames (16000 samples) past its last picture: to sample 40000.
        let expected = (0..<72000).map { k in k < 40000 ? (k + 24000) % 4000 : (k - 24000 + 4800) % 4000 }
        let mismatches = heard.indices.filter { heard[$0] != expected[$0] }
        #expect(heard.count == 72000)
        #expect(mismatches.isEmpty, "first mismatch at sample \(mismatches.first ?? -1)")
    }

    @Test func aSplitEditThatCannotBeIsALocatedError() throws {
        let path = try write("bad.json", """
            { "reel": 1,
              "output": { "path": "bad.mkv", "size": [64, 36], "frameRate": 30 },
              "assets": { "m": { "path": "pcm.mov" } },
              "timeline": { "clips": [
                { "asset": "m", "in": 0, "out": 1 },
                { "asset": "m", "in": 0.1, "out": 1, "audioLead": 0.5 } ] } }
            """)
        let result = try reel(["validate", path])
        #expect(result.status == 65)
        #expect(result.stderrText.contains("$.timeline.clips[1].audioLead"), "\(result.stderrText)")
        #expect(result.stderrText.contains("bad.json:6:"), "\(result.stderrText)")
        #expect(try reel(["render", path, "-q"]).status == 65)
        #expect(!FileManager.default.fileExists(atPath: folder.file("bad.mkv").path))
    }

    @Test func aProjectWithCommentsAndTimeUnitsRenders() throws {
        let path = try write("c.json", """
            // A project written by hand.
            { "reel": 1, /* format 1 */
              "output": { "path": "c.mp4", "size": [64, 36], "frameRate": 30 },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [
                // 200 ms in, half a second long
                { "asset": "clip", "in": "200ms", "duration": "0.5s" } ] } }
            """)
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try IndexedMedia.readFrameIndices(of: folder.file("c.mp4"), width: 64, height: 36) == Array(6..<21))
    }

    @Test func errorsInACommentedProjectKeepTheirLineAndColumn() throws {
        let path = try write("e.json", """
            { "reel": 1,
              /* two
                 lines */ "output": { "path": "e.mp4", "size": [64, 36], "frameRate": 30 },
              "assets": { "clip": { "path": "clip.mp4" } }, // the clip
              "timeline": { "clips": [ { "asset": "clip", "in": "2 s" } ] } }
            """)
        let result = try reel(["validate", path, "--json"])
        #expect(result.status == 65)
        let line = try #require(result.stdoutText.split(separator: "\n").first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["path"] as? String == "$.timeline.clips[0].in")
        #expect(object["line"] as? Int == 5)
        #expect(object["column"] as? Int == 53)
        let open = try write("o.json", "{ \"reel\": 1 /* never closed\n")
        let syntax = try reel(["validate", open])
        #expect(syntax.status == 65)
        #expect(syntax.stderrText.contains("unterminated /* comment (no closing */) at line 1, column 13"), "\(syntax.stderrText)")
    }

    @Test func framesAndTimecodesCountAtTheFirstClipsRateWithoutOutputFrameRate() throws {
        try IndexedMedia.makeVideo(at: folder.file("pal.mp4"), frameCount: 50, frameRate: "25", gop: 10)
        let path = try write("pal.json", """
            { "reel": 1,
              "output": { "path": "pal-out.mp4" },
              "assets": { "pal": { "path": "pal.mp4" } },
              "timeline": { "clips": [ { "asset": "pal", "in": "5f", "out": "00:00:01:05" } ] } }
            """)
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let output = folder.file("pal-out.mp4")
        #expect(try probe(output).first("video")?.rFrameRate == "25/1")
        #expect(try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36) == Array(5..<30))
        // Without probing there is no rate to count at: the time is an error that says how to fix it.
        let lint = try reel(["validate", path, "--no-probe"])
        #expect(lint.status == 65)
        #expect(lint.stderrText.contains("\"5f\" counts frames, but the project has no frame rate"), "\(lint.stderrText)")
    }

    @Test func aClipMovesAsItsAnimationSaysAndItsCompiledFormRendersTheSame() throws {
        _ = try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=white:s=64x36:r=30:d=3",
                                      "-pix_fmt", "yuv420p", "-c:v", "libx264", "-y", folder.file("white.mp4").path])
        // A half-size white box slides from x = 0.25 to 0.75 of the width over 2 s, across a dissolve starting at 1.5 s.
        let path = try write("m.json", """
            { "reel": 1,
              "output": { "path": "m.mkv", "size": [64, 36], "frameRate": 30, "video": { "codec": "h264", "crf": 0 } },
              "assets": { "white": { "path": "white.mp4" }, "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [
                { "asset": "white", "out": 2.5, "scale": 0.5,
                  "animations": [ { "property": "position", "from": [0.25, 0.5], "to": [0.75, 0.5], "start": 0, "duration": 2 } ] },
                { "asset": "clip", "in": 0, "out": 1, "transition": { "type": "dissolve", "duration": 1 } } ] } }
            """)
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let frames = try runChecked("ffmpeg", ["-v", "error", "-i", folder.file("m.mkv").path, "-fps_mode", "passthrough", "-f", "rawvideo",
                                               "-pix_fmt", "gray", "-"])
        let luma = [UInt8](frames)
        #expect(luma.count == 75 * 64 * 36)
        // In the clip's solo stretch, the white columns of the middle row are centred where the animation says
        // (layer edges snap to even pixels: within 2 px).
        for n in [0, 15, 30, 44] {
            let row = Array(luma[(n * 36 + 18) * 64..<(n * 36 + 18) * 64 + 64])
            let white = row.indices.filter { row[$0] > 128 }
            let first = try #require(white.first), last = try #require(white.last)
            let centre = Double(first + last + 1) / 2
            let expected = 64 * (0.25 + 0.5 * Double(n) / 60)
            #expect(abs(centre - expected) <= 2, "frame \(n): centre \(centre), expected \(expected)")
            #expect(last + 1 - first >= 30 && last + 1 - first <= 34, "frame \(n): width \(last + 1 - first)")
        }
        // The explicit form reel compiles renders the same pictures.
        let compiled = try reel(["compile", path])
        #expect(compiled.status == 0, "\(compiled.stderrText)")
        let explicit = try write("m-explicit.json", compiled.stdoutText)
        let again = try reel(["render", explicit, "-o", folder.file("m2.mkv").path, "-q"])
        #expect(again.status == 0, "\(again.stderrText)")
        let framesAgain = try runChecked("ffmpeg", ["-v", "error", "-i", folder.file("m2.mkv").path, "-fps_mode", "passthrough", "-f", "rawvideo",
                                                    "-pix_fmt", "gray", "-"])
        #expect(framesAgain == frames)
    }

    @Test func anImageSequencePlaysFrameExactlyAndAMissingFrameIsNamed() throws {
        let frames = folder.file("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        try IndexedMedia.makeVideo(at: folder.file("seq-src.mp4"), frameCount: 24, frameRate: "24", gop: 1)
        // ffmpeg numbers the files from 1: img_0001.png shows index 0.
        _ = try runChecked("ffmpeg", ["-v", "error", "-i", folder.file("seq-src.mp4").path,
                                      frames.appendingPathComponent("img_%04d.png").path])
        let path = try write("seq.json", """
            { "reel": 1,
              "output": { "path": "seq.mp4" },
              "assets": { "shots": { "sequence": "frames/img_%04d.png", "frameRate": 24 } },
              "timeline": { "clips": [ { "asset": "shots", "in": "5f", "out": "15f" } ] } }
            """)
        let result = try reel(["render", path, "-q"])
        #expect(result.status == 0, "\(result.stderrText)")
        let output = folder.file("seq.mp4")
        #expect(try probe(output).first("video")?.rFrameRate == "24/1")
        #expect(try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36) == Array(5..<15))
        let compiled = try reel(["compile", path])
        // compile names the files absolutely, and keeps the sequence a sequence.
        #expect(compiled.stdoutText.contains(#""sequence": ""#) && compiled.stdoutText.contains(#"frames/img_%04d.png""#),
                "\(compiled.stdoutText)")
        try FileManager.default.removeItem(at: frames.appendingPathComponent("img_0009.png"))
        let broken = try reel(["validate", path])
        #expect(broken.status == 66, "\(broken.stderrText)")
        #expect(broken.stderrText.contains("$.assets.shots.sequence"), "\(broken.stderrText)")
        #expect(broken.stderrText.contains("frame 9 (") && broken.stderrText.contains("img_0009.png) is missing"),
                "\(broken.stderrText)")
    }

    func thumbnailProject() throws -> String {
        try write("t.json", """
            { "reel": 1,
              "output": { "path": "t.mp4", "size": [64, 36], "frameRate": 30 },
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ { "asset": "clip" } ] } }
            """)
    }

    @Test func thumbnailPatternsTakePrintfWidths() throws {
        let path = try thumbnailProject()
        let result = try reel(["thumbnail", path, "--at", "0,1/30,2f", "-o", folder.file("shot-%03d-%%.png").path])
        #expect(result.status == 0, "\(result.stderrText)")
        for (index, want) in [0, 1, 2].enumerated() {
            let png = folder.file(String(format: "shot-%03d-%%.png", index))
            let gray = try run("ffmpeg", ["-v", "error", "-i", png.path, "-f", "rawvideo", "-pix_fmt", "gray", "-"])
            #expect(gray.status == 0, "\(png.lastPathComponent)")
            #expect(IndexedMedia.decodeIndex(luma: [UInt8](gray.stdout), width: 64, height: 36) == want)
        }
        let bad = try reel(["thumbnail", path, "--at", "0,1", "-o", folder.file("x-%s.png").path])
        #expect(bad.status == 64)
        #expect(bad.stderrText.contains("%0Nd"), "\(bad.stderrText)")
    }

    @Test func thumbnailSizesMayBeOddForPNGAndKeepTheAspectWithAWidthAlone() throws {
        let path = try thumbnailProject()
        #expect(try reel(["thumbnail", path, "--at", "0", "-o", folder.file("odd.png").path, "--size", "33x19"]).status == 0)
        var stream = try #require(try probe(folder.file("odd.png")).first("video"))
        #expect(stream.width == 33 && stream.height == 19)
        // 64×36 at width 101: 101 × 36 / 64 = 56.8 → 57 for PNG, 56 (even) for JPEG.
        #expect(try reel(["thumbnail", path, "--at", "0", "-o", folder.file("w.png").path, "--size", "101"]).status == 0)
        stream = try #require(try probe(folder.file("w.png")).first("video"))
        #expect(stream.width == 101 && stream.height == 57)
        #expect(try reel(["thumbnail", path, "--at", "0", "-o", folder.file("w.jpg").path, "--size", "100"]).status == 0)
        stream = try #require(try probe(folder.file("w.jpg")).first("video"))
        #expect(stream.width == 100 && stream.height == 56)
        #expect(try reel(["thumbnail", path, "--at", "0", "-o", folder.file("odd.jpg").path, "--size", "33x19"]).status == 64)
    }

    @Test func playOpensAnEDLLikeEveryOtherCommand() throws {
        let edl = try write("cut.edl", """
            TITLE: CUT
            FCM: NON-DROP FRAME

            001  CLIP     V     C        00:00:00:05 00:00:00:20 01:00:00:00 01:00:00:15
            * FROM CLIP NAME: clip.mp4
            """)
        var environment = ProcessInfo.processInfo.environment
        for name in ["DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"] { environment[name] = nil }
        environment["SDL_AUDIODRIVER"] = "dummy"
        // Without a display, play gets as far as opening its window: the EDL was imported, compiled and validated.
        let result = try run(reel.path, ["play", edl, "--media-dir", folder.url.path, "--frame-rate", "30"],
                             environment: environment)
        #expect(result.status == 69, "\(result.stderrText)")
        #expect(result.stderrText.contains("ffplay"), "\(result.stderrText)")
        // A missing medium is told as for render, naming the EDL's event.
        let missing = try write("missing.edl", """
            TITLE: MISSING

            001  NOWHERE  V     C        00:00:00:05 00:00:00:20 01:00:00:00 01:00:00:15
            * FROM CLIP NAME: nowhere.mp4
            """)
        let failed = try run(reel.path, ["play", missing, "--frame-rate", "30"], environment: environment)
        #expect(failed.status == 66 || failed.status == 65, "\(failed.stderrText)")
        #expect(failed.stderrText.contains("missing.edl"), "\(failed.stderrText)")
    }
}
