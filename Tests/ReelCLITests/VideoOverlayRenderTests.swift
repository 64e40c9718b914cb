import Foundation
import ReelTestSupport
import Testing

/// Issue 24 point 5 through the built binary: video overlays in `timeline.overlays` (picture-in-picture, split
/// screens, keyed presenters) and image overlays with effects render where, when and how they are declared — the
/// overlay's frame indices read back from the output's pixels, its sound mixed sample-exact — in ranges, thumbnails
/// and smart renders too; bad overlays stop with exit 65 and nothing written.
@Suite struct VideoOverlayRenderTests {
    let folder: TemporaryDirectory
    let reel: URL
    static let tags = ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv"]

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-video-overlays")
        reel = try builtExecutable(named: "reel")
        // The storyline: 2 s of blue, 128×72 at 30 fps, no sound (an H.264 profile smart render can copy).
        _ = try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=blue:s=128x72:r=30:d=2",
                                  "-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p"] + Self.tags
                       + ["-c:v", "libx264", "-crf", "18", "-g", "30", "-bf", "0", folder.file("back.mp4").path])
        // The overlay: 64×36 frames showing their own index, with the PCM counter as sound.
        try IndexedMedia.makeVideo(at: folder.file("pip.mov"), frameCount: 60, frameRate: "30", width: 64, height: 36,
                                   audio: .counter(sampleRate: 48000, channels: 2, codec: "pcm_s16le"))
        // A presenter: a red 32×18 box in front of a green screen.
        _ = try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=0x00FF00:s=128x72:r=30:d=2",
                                  "-vf", "drawbox=x=48:y=27:w=32:h=18:color=red:t=fill,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p"]
                       + Self.tags + ["-c:v", "libx264", "-crf", "0", "-g", "30", "-bf", "0", folder.file("presenter.mp4").path])
        _ = try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=red:s=32x18", "-frames:v", "1",
                                  folder.file("red.png").path])
    }

    func project(_ overlays: String, output: String = #""path": "out.mkv", "video": {"crf": 0}, "audio": {"codec": "pcm"}"#)
        -> String {
        """
        {"reel": 1, "output": {\(output), "size": [128, 72], "frameRate": 30},
         "assets": {"back": {"path": "back.mp4"}, "pip": {"path": "pip.mov"}, "presenter": {"path": "presenter.mp4"},
                    "red": {"image": "red.png"}, "sound": {"path": "sound.wav"}},
         "timeline": {"clips": [{"asset": "back"}], "overlays": [\(overlays)]}}
        """
    }

    func reel(_ arguments: [String], project text: String) throws -> ProcessResult {
        let path = folder.file("p.json")
        try text.write(to: path, atomically: true, encoding: .utf8)
        return try run(reel.path, [arguments[0], path.path] + arguments.dropFirst())
    }

    func render(_ text: String, to name: String = "out.mkv", _ extra: [String] = ["--quiet"]) throws -> (ProcessResult, URL) {
        let out = folder.file(name)
        return (try reel(["render", "-o", out.path, "--force"] + extra, project: text), out)
    }

    /// The index shown in the `w`×`h` region at (`x`, `y`) of every frame of `url` (-1: none).
    func indices(_ url: URL, x: Int, y: Int, w: Int, h: Int) throws -> [Int] {
        let data = [UInt8](try runChecked("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:v:0", "-vf", "crop=\(w):\(h):\(x):\(y)",
                                                      "-pix_fmt", "gray", "-f", "rawvideo", "-"]))
        return stride(from: 0, to: data.count, by: w * h).map {
            IndexedMedia.decodeIndex(luma: Array(data[$0..<$0 + w * h]), width: w, height: h)
        }
    }

    /// The RGB colour of pixel (`x`, `y`) (even coordinates: the 2×2 block sharing one chroma sample) in frame
    /// `frame` of `url`.
    func colour(_ url: URL, frame: Int, x: Int, y: Int) throws -> [Int] {
        let data = try runChecked("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:v:0",
                                             "-vf", "select=eq(n\\,\(frame)),crop=2:2:\(x):\(y)", "-frames:v", "1",
                                             "-pix_fmt", "rgb24", "-f", "rawvideo", "-"])
        return data.prefix(3).map { Int($0) }
    }

    func isClose(_ colour: [Int], _ expected: [Int], within tolerance: Int = 12) -> Bool {
        colour.count == 3 && zip(colour, expected).allSatisfy { abs($0 - $1) <= tolerance }
    }

    @Test func pictureInPictureShowsTheRightFramesAndMixesItsSound() throws {
        // pip from 0.2 s (frame 6), for 1 s, at 0.5 s (frame 15): the box 64…128 × 36…72, at half volume.
        let (result, out) = try render(project(#"""
            {"video": "pip", "start": 0.5, "in": 0.2, "duration": 1, "position": [0.75, 0.75], "volume": 0.5}
            """#))
        #expect(result.status == 0, "\(result.stderrText)")
        let streams = try probe(out)
        #expect(try countFrames(out) == 60)
        #expect(abs((streams.formatDuration ?? 0) - 2) < 0.04)
        let shown = try indices(out, x: 64, y: 36, w: 64, h: 36)
        #expect(shown == (0..<60).map { (15..<45).contains($0) ? $0 - 15 + 6 : -1 })
        for frame in [0, 20, 59] {
            #expect(isClose(try colour(out, frame: frame, x: 16, y: 16), [0, 0, 255]), "frame \(frame)")
        }
        // Its sound: source sample 9600 (0.2 s) lands at output sample 24000 (0.5 s), halved; silence around it.
        let left = try readAudioSamplesS16(of: out, sampleRate: 48000, channels: 2)[0]
        #expect(left.count == 96000)
        var wrong: [Int] = []
        for k in 0..<min(left.count, 96000) {
            let expected = (24000..<72000).contains(k) ? Int(AudioSignal.counter.expectedS16(k - 24000 + 9600)) / 2 : 0
            if Int(left[k]) != expected { wrong.append(k) }
        }
        #expect(wrong.isEmpty, "\(wrong.count) samples differ, first at \(wrong.prefix(5))")
    }

    @Test func splitScreenShowsBothHalves() throws {
        // The same clip twice, stretched to 64×72 each: the left half from its start, the right half from 1 s.
        let (result, out) = try render(project(#"""
            {"video": "pip", "start": 0, "duration": 1, "size": [64, 72], "position": [0.25, 0.5], "muted": true},
            {"video": "pip", "start": 0, "in": 1, "size": [64, 72], "position": [0.75, 0.5], "muted": true}
            """#))
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try indices(out, x: 0, y: 0, w: 64, h: 72) == (0..<60).map { $0 < 30 ? $0 : -1 })
        #expect(try indices(out, x: 64, y: 0, w: 64, h: 72) == (0..<60).map { $0 < 30 ? $0 + 30 : -1 })
        // Muted: the output is silent.
        let left = try readAudioSamplesS16(of: out, sampleRate: 48000, channels: 2)[0]
        #expect(left.allSatisfy { $0 == 0 })
    }

    @Test func keyedPresenterShowsTheStorylineThroughTheScreen() throws {
        let (result, out) = try render(project(#"""
            {"video": "presenter", "start": 0, "effects": [{"type": "chromaKey", "color": "#00FF00", "similarity": 0.3}]}
            """#))
        #expect(result.status == 0, "\(result.stderrText)")
        for frame in [0, 45] {
            #expect(isClose(try colour(out, frame: frame, x: 10, y: 10), [0, 0, 255]), "screen, frame \(frame)")
            #expect(isClose(try colour(out, frame: frame, x: 64, y: 36), [255, 0, 0]), "presenter, frame \(frame)")
        }
    }

    @Test func rangesAndThumbnailsSeeTheOverlay() throws {
        let text = project(#"{"video": "pip", "start": 0.5, "in": 0.2, "duration": 1, "position": [0.75, 0.75], "muted": true}"#)
        // Frames 18…29 of the timeline: overlay frames 9…20.
        let (result, out) = try render(text, ["--quiet", "--range", "0.6..1"])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try indices(out, x: 64, y: 36, w: 64, h: 36) == Array(9..<21))
        let thumbnail = folder.file("t.png")
        let made = try reel(["thumbnail", "--at", "1", "--exact", "-o", thumbnail.path], project: text)
        #expect(made.status == 0, "\(made.stderrText)")
        #expect(try indices(thumbnail, x: 64, y: 36, w: 64, h: 36) == [21])
    }

    @Test func smartRenderEncodesOnlyTheFramesUnderTheOverlay() throws {
        let text = project(#"{"video": "pip", "start": 1, "duration": 1, "position": [0.75, 0.75], "muted": true}"#,
                           output: #""path": "out.mp4", "video": {"codec": "h264", "smart": true}, "audio": false"#)
        let (result, out) = try render(text, to: "smart.mp4", [])
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(result.stderrText.contains("copied 30 of 60 frames"), "\(result.stderrText)")
        #expect(result.stderrText.contains("re-encoded frames 30–59: several layers (a transition or an overlay)"))
        #expect(try indices(out, x: 64, y: 36, w: 64, h: 36) == (0..<60).map { $0 < 30 ? -1 : $0 - 30 })
    }

    @Test func imageOverlaysWithEffectsAndTheirOrder() throws {
        // A red image turned grey by its effect, under a video overlay listed after it, and a plain red image last
        // (drawn by the layer stage, on top of both).
        let (result, out) = try render(project(#"""
            {"image": "red", "start": 0, "duration": 1, "size": [64, 36], "position": [0.5, 0.5],
             "effects": [{"type": "color", "preset": "greyscale"}]},
            {"video": "pip", "start": 0, "duration": 1, "position": [0.75, 0.75], "muted": true},
            {"image": "red", "start": 0, "duration": 1, "position": [0.125, 0.125]}
            """#))
        #expect(result.status == 0, "\(result.stderrText)")
        let grey = try colour(out, frame: 5, x: 40, y: 24)
        #expect(grey.count == 3 && abs(grey[0] - grey[1]) <= 3 && abs(grey[1] - grey[2]) <= 3 && grey[0] > 30 && grey[0] < 120,
                "\(grey)")
        // Where the grey image and the video overlap (64…96 × 36…54), the video is on top.
        #expect(try indices(out, x: 64, y: 36, w: 64, h: 36).prefix(30) == ArraySlice(0..<30))
        #expect(isClose(try colour(out, frame: 5, x: 8, y: 4), [255, 0, 0]))
        #expect(isClose(try colour(out, frame: 45, x: 40, y: 24), [0, 0, 255]))
    }

    @Test func badOverlaysStopWithTheirPathAndWriteNothing() throws {
        _ = try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=d=1", folder.file("sound.wav").path])
        for (overlay, message) in [
            (#"{"video": "sound", "start": 0}"#, "$.timeline.overlays[0].video: asset \"sound\" has no video stream: it is audio only"),
            (#"{"video": "pip", "start": 2}"#, "$.timeline.overlays[0].start: the overlay starts at 2 s"),
            (#"{"video": "red", "start": 0, "duration": 1}"#, "$.timeline.overlays[0].video: asset \"red\" is an image"),
        ] {
            let (result, out) = try render(project(overlay), to: "bad.mkv")
            #expect(result.status == 65, "\(overlay): \(result.stderrText)")
            #expect(result.stderrText.contains(message), "\(result.stderrText)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }
}
