import Foundation
import ReelTestSupport
import Testing

/// Issue 24 point 4 through the built binary: a chroma-keyed layer, and sources with their own alpha (PNG,
/// ProRes 4444, VP9 with alpha, QuickTime Animation), show the layer below through their transparent parts,
/// as ffmpeg's `chromakey` (+ `despill`) and `overlay` filters do on the same input (PSNR ≥ 40 dB), and a
/// wrong key is refused with the JSON path.
@Suite struct KeyingRenderTests {
    let folder: TemporaryDirectory
    let reel: URL
    /// The BT.709 video-range conversion around RGB filters that docs/effects.md describes (with alpha).
    static let flags = "flags=bicubic+accurate_rnd+full_chroma_int+full_chroma_inp"
    /// #00FF00 in BT.709 video-range Y′CbCr, which is what reel hands chromakey.
    static let greenKey = "chromakey=color=0xAD2A1A:yuv=1"

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-keying")
        reel = try builtExecutable(named: "reel")
        let tags = ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv"]
        // A "presenter" (an 80×60 testsrc) in front of a pure green screen, and a background scene, 1 s at 25 fps.
        try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=0x00FF00:s=160x120:r=25:d=1",
                                  "-f", "lavfi", "-i", "testsrc=s=80x60:r=25:d=1", "-filter_complex",
                                  "[0][1]overlay=40:30,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p"]
                       + tags + ["-c:v", "libx264", "-crf", "0", "-g", "25", "-bf", "0", folder.file("green.mp4").path])
        try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i",
                                  "mandelbrot=s=160x120:r=25,trim=end_frame=25,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p"]
                       + tags + ["-c:v", "libx264", "-crf", "0", "-g", "25", "-bf", "0", folder.file("back.mp4").path])
    }

    /// An explicit-form project: asset `top` on track 1 (layer keys `layer`) over `back.mp4` on track 2.
    func project(top: String, layer: String) -> String {
        """
        {"reel": 1, "output": {"path": "out.mp4", "video": {"crf": 0}, "audio": false},
         "assets": {"top": {"path": "\(top)"}, "back": {"path": "back.mp4"}},
         "composition": {"tracks": [
           {"id": 1, "type": "video", "segments": [{"asset": "top", "source": {"start": 0, "duration": 1}, "target": {"start": 0, "duration": 1}}]},
           {"id": 2, "type": "video", "segments": [{"asset": "back", "source": {"start": 0, "duration": 1}, "target": {"start": 0, "duration": 1}}]}]},
         "videoComposition": {"frameDuration": "1/25", "renderSize": [160, 120], "instructions": [
           {"start": 0, "duration": 1, "layers": [{"track": 1\(layer.isEmpty ? "" : ", " + layer)}, {"track": 2}]}]}}
        """
    }

    func render(_ text: String) throws -> (ProcessResult, URL) {
        let path = folder.file("p.json")
        try text.write(to: path, atomically: true, encoding: .utf8)
        let out = folder.file("out.mp4")
        return (try run(reel.path, ["render", path.path, "-o", out.path, "--force", "--quiet"]), out)
    }

    /// The PSNR (dB, average over the 25 frames; infinity when identical) of `output` against ffmpeg overlaying
    /// `top` (after the filters `topFilters`) on back.mp4 at (`x`, `y`).
    func psnr(_ output: URL, top: String, topInput: [String] = [], topFilters: String, x: Int = 0, y: Int = 0) throws
        -> Double {
        let graph = "[0:v]\(topFilters)[k];[1:v][k]overlay=x=\(x):y=\(y):format=auto:shortest=1[r];[r][2:v]psnr"
        let result = try run("ffmpeg", ["-hide_banner"] + topInput + ["-i", folder.file(top).path,
                                        "-i", folder.file("back.mp4").path, "-i", output.path,
                                        "-lavfi", graph, "-f", "null", "-"])
        return try averagePSNR(result.stderrText)
    }

    static let keyCases: [(layer: String, reference: String, x: Int, y: Int)] = [
        // The key alone, over the whole canvas.
        (##""effects": [{"type": "chromaKey", "color": "#00FF00", "similarity": 0.3, "blend": 0.1}]"##,
         "\(greenKey):similarity=0.3:blend=0.1", 0, 0),
        // With spill suppression: despill in BT.709 R′G′B′ with alpha.
        (##""effects": [{"type": "chromaKey", "color": "#00FF00", "similarity": 0.3, "blend": 0.1, "spill": 0.8}]"##,
         "\(greenKey):similarity=0.3:blend=0.1,scale=in_color_matrix=bt709:in_range=tv:\(flags),format=gbrap,"
            + "despill=type=green:mix=0.5:expand=0:red=0:green=-0.8:blue=0,"
            + "scale=out_color_matrix=bt709:out_range=tv:\(flags),format=yuva420p", 0, 0),
        // Scaled by half and moved (libswscale's bicubic path): alpha is scaled with the picture.
        (##""effects": [{"type": "chromaKey", "color": "#00FF00", "similarity": 0.3, "blend": 0.1}], "transform": [{"at": 0, "value": [0.5, 0, 0, 0.5, 40, 30]}]"##,
         "\(greenKey):similarity=0.3:blend=0.1,scale=80:60", 40, 30),
        // Moved by whole even pixels (the row-copy path).
        (##""effects": [{"type": "chromaKey", "color": "#00FF00", "similarity": 0.2}], "transform": [{"at": 0, "value": [1, 0, 0, 1, 20, -12]}]"##,
         "\(greenKey):similarity=0.2:blend=0", 20, -12),
        // The layer's opacity multiplies each pixel's alpha.
        (##""effects": [{"type": "chromaKey", "color": "#00FF00", "similarity": 0.3, "blend": 0.1}], "opacity": [{"at": 0, "value": 0.5}]"##,
         "\(greenKey):similarity=0.3:blend=0.1,lutyuv=a=val*0.5", 0, 0),
    ]

    @Test(arguments: 0..<keyCases.count)
    func keyedLayerShowsTheLayerBelowLikeFFmpeg(_ index: Int) throws {
        let (layer, reference, x, y) = Self.keyCases[index]
        let (result, out) = try render(project(top: "green.mp4", layer: layer))
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try countFrames(out) == 25)
        let matched = try psnr(out, top: "green.mp4", topFilters: reference, x: x, y: y)
        #expect(matched >= 40, "PSNR \(matched) dB against \(reference)")
        // And the key did something: overlaying the unkeyed layer is far from it.
        let unkeyed = try psnr(out, top: "green.mp4", topFilters: "null", x: x, y: y)
        #expect(unkeyed < 30, "PSNR \(unkeyed) dB against the unkeyed layer")
    }

    @Test func keyedLayerTurnedShowsTheLayerBelowAroundIt() throws {
        // A turned keyed layer (the bilinear path): where the green screen lands, the background scene shows, so
        // the picture is close to the scene wherever the presenter is not.
        let layer = ##""effects": [{"type": "chromaKey", "color": "#00FF00", "similarity": 0.3}], "transform": [{"at": 0, "value": [0.8, 0.3, -0.3, 0.8, 30, 10]}]"##
        let (result, out) = try render(project(top: "green.mp4", layer: layer))
        #expect(result.status == 0, "\(result.stderrText)")
        // Mask out the presenter's box in both pictures: turned, its corners land at (53, 46), (117, 70), (35, 94)
        // and (99, 118).
        let box = "drawbox=x=32:y=43:w=89:h=77:color=black:t=fill"
        let graph = "[0:v]\(box)[a];[1:v]\(box)[b];[a][b]psnr"
        let db = try averagePSNR(try run("ffmpeg", ["-hide_banner", "-i", folder.file("back.mp4").path,
                                                         "-i", out.path, "-lavfi", graph, "-f", "null", "-"]).stderrText)
        #expect(db >= 35, "PSNR \(db) dB of the scene around the turned presenter")
    }

    @Test func sourcesWithAlphaShowTheLayerBelow() throws {
        // PNG (rgba), ProRes 4444 (yuva444p12), VP9 with alpha in WebM (libvpx), QuickTime Animation (argb):
        // each half transparent, with a gradient alpha in the PNG.
        try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i",
                                  "testsrc=s=160x120:d=1,format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='if(lt(X,80),0,255*Y/120)'",
                                  "-frames:v", "1", folder.file("logo.png").path])
        try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i",
                                  "testsrc=s=160x120:r=25:d=1,format=yuva444p10le,geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':a='if(lt(Y,60),0,1023)'",
                                  "-c:v", "prores_ks", "-profile:v", "4444", "-pix_fmt", "yuva444p10le", folder.file("p4444.mov").path])
        try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i",
                                  "testsrc=s=160x120:r=25:d=1,format=yuva420p,geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':a='if(lt(Y,60),0,255)'",
                                  "-c:v", "libvpx-vp9", "-pix_fmt", "yuva420p", "-b:v", "2M", folder.file("alpha.webm").path])
        try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i",
                                  "testsrc=s=160x120:r=25:d=1,format=argb,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='if(lt(X,60),0,255)'",
                                  "-c:v", "qtrle", folder.file("anim.mov").path])
        let toWorking = "scale=out_color_matrix=bt709:out_range=tv,format=yuva420p"
        for (file, input) in [("logo.png", ["-loop", "1"]), ("p4444.mov", []), ("alpha.webm", ["-c:v", "libvpx-vp9"]),
                              ("anim.mov", [])] {
            let (result, out) = try render(project(top: file, layer: ""))
            #expect(result.status == 0, "\(file): \(result.stderrText)")
            let matched = try psnr(out, top: file, topInput: input, topFilters: toWorking)
            #expect(matched >= 40, "\(file): PSNR \(matched) dB against ffmpeg's overlay")
            let opaque = try psnr(out, top: file, topInput: input, topFilters: "format=yuv420p")
            #expect(opaque < 30, "\(file): PSNR \(opaque) dB against the picture without its alpha")
        }
    }

    @Test func keyedClipOnTheStorylineShowsTheBackground() throws {
        let path = folder.file("p.json")
        try """
            {"reel": 1, "output": {"path": "out.mp4", "video": {"crf": 0}, "audio": false, "background": "#FF0000"},
             "assets": {"g": {"path": "green.mp4"}},
             "timeline": {"clips": [{"asset": "g", "effects": [{"type": "chromaKey", "color": "#00FF00", "similarity": 0.3}]}]}}
            """.write(to: path, atomically: true, encoding: .utf8)
        let out = folder.file("out.mp4")
        let result = try run(reel.path, ["render", path.path, "-o", out.path, "--force", "--quiet"])
        #expect(result.status == 0, "\(result.stderrText)")
        // Red (BT.709 video range Y′ 63, Cb 102, Cr 240) shows where the screen was.
        let graph = "color=c=0xFF0000:s=160x120:r=25:d=1,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p[bg];"
            + "[0:v]\(Self.greenKey):similarity=0.3[k];[bg][k]overlay=format=auto:shortest=1[r];[r][1:v]psnr"
        let db = try averagePSNR(try run("ffmpeg", ["-hide_banner", "-i", folder.file("green.mp4").path,
                                                         "-i", out.path, "-lavfi", graph, "-f", "null", "-"]).stderrText)
        #expect(db >= 40, "PSNR \(db) dB against the key over red")
    }

    @Test func compiledProjectKeepsTheKey() throws {
        let path = folder.file("p.json")
        try project(top: "green.mp4", layer: ##""effects": [{"type": "chromaKey", "color": "#00ff00", "similarity": 0.25, "blend": 0.05, "spill": 0.5}]"##)
            .write(to: path, atomically: true, encoding: .utf8)
        let compiled = try run(reel.path, ["compile", path.path])
        #expect(compiled.status == 0, "\(compiled.stderrText)")
        let text = String(decoding: compiled.stdout, as: UTF8.self)
        #expect(text.contains(#""type": "chromaKey""#) && text.contains(##""color": "#00FF00""##), "\(text)")
        #expect(text.contains(#""similarity": 0.25"#) && text.contains(#""blend": 0.05"#) && text.contains(#""spill": 0.5"#))
    }

    static let invalid: [(effect: String, path: String, message: String)] = [
        (#"{"type": "chromaKey"}"#, "effects[0]", #"a chromaKey effect needs "color""#),
        (#"{"type": "chromaKey", "color": "green"}"#, "effects[0].color", #""green" is not a colour"#),
        (##"{"type": "chromaKey", "color": "#00FF00", "similarity": 0}"##, "effects[0].similarity", "similarity 0 is outside 0.01…1"),
        (##"{"type": "chromaKey", "color": "#00FF00", "blend": 2}"##, "effects[0].blend", "blend 2 is outside 0…1"),
        (##"{"type": "chromaKey", "color": "#FF0000", "spill": 0.5}"##, "effects[0].spill", "spill suppression needs a green or blue key colour"),
        (##"{"type": "chromaKey", "color": "#00FF00", "radius": 3}"##, "effects[0].radius", #""radius" does not apply to a chromaKey effect"#),
    ]

    @Test(arguments: 0..<invalid.count)
    func badKeysAreRefusedWithTheirPath(_ index: Int) throws {
        let (effect, path, message) = Self.invalid[index]
        let (result, out) = try render(project(top: "green.mp4", layer: "\"effects\": [\(effect)]"))
        #expect(result.status == 65)
        #expect(result.stderrText.contains("$.videoComposition.instructions[0].layers[0].\(path)"), "\(result.stderrText)")
        #expect(result.stderrText.contains(message), "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
