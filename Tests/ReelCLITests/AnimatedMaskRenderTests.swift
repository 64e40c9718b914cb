import Foundation
import ReelTestSupport
import Testing

/// Issue 38 points 2 and 4 through the built binary: a mask's `position` and a `cornerRadius` (of a clip, a mask's
/// shape, a shape overlay) and a shape overlay's `size` written as key lists move the edges each frame to where the
/// keys put them, measured from outside (the half-way crossings of the decoded luma within 1 px of the analytic edge;
/// the corner pixels against the analytic circle's coverage); `reel compile` writes the keys and the explicit form
/// renders the same frames (framemd5); bad keys stop with exit 65 at their JSON path, nothing written.
@Suite struct AnimatedMaskRenderTests {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-animated-masks")
        reel = try builtExecutable(named: "reel")
        // A white 160×120 clip, 1 s at 25 fps, lossless: its mask's edges are read from the luma.
        _ = try runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i",
                                      "color=white:s=160x120:r=25:d=1,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p",
                                      "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv",
                                      "-c:v", "libx264", "-crf", "0", "-g", "25", "-bf", "0", folder.file("white.mp4").path])
    }

    func project(clip: String = "", overlays: String = "") -> String {
        """
        {"reel": 1, "output": {"path": "out.mp4", "video": {"crf": 0}, "audio": false, "size": [160, 120], "frameRate": 25,
                               "background": "#000000"},
         "assets": {"white": {"path": "white.mp4"}, "black": {"color": "#000000"}},
         "timeline": {"clips": [\(clip.isEmpty ? #"{"asset": "white"}"# : clip)], "overlays": [\(overlays)]}}
        """
    }

    func render(_ text: String, name: String = "p.json") throws -> (ProcessResult, URL) {
        let path = folder.file(name)
        try text.write(to: path, atomically: true, encoding: .utf8)
        let out = folder.file("out.mp4")
        try? FileManager.default.removeItem(at: out)
        return (try run(reel.path, ["render", path.path, "-o", out.path, "--force", "--quiet"]), out)
    }

    /// Frame `frame` of `url` as luma samples, 160×120, in full range (ffmpeg's `gray` maps 16…235 to 0…255).
    func luma(_ url: URL, frame: Int) throws -> [Int] {
        [UInt8](try runChecked("ffmpeg", ["-v", "error", "-i", url.path, "-vf", "select=eq(n\\,\(frame))", "-frames:v", "1",
                                           "-pix_fmt", "gray", "-f", "rawvideo", "-"])).map { Int($0) }
    }

    /// Where luma crosses half-way between black (16) and white (235) along `samples` (sample i's centre is i + 0.5).
    static func crossings(_ samples: [Int]) -> [Double] {
        let half = (16.0 + 235.0) / 2
        var found: [Double] = []
        for i in 1..<samples.count {
            let a = Double(samples[i - 1]), b = Double(samples[i])
            if (a - half) * (b - half) < 0 || (b == half && a != half) {
                found.append(Double(i - 1) + 0.5 + (half - a) / (b - a))
            }
        }
        return found
    }

    static func near(_ found: [Double], _ expected: [Double]) -> Bool {
        found.count == expected.count && zip(found, expected).allSatisfy { abs($0 - $1) <= 1 }
    }

    @Test func aMovingMaskPutsItsEdgesWhereThePositionKeysSay() throws {
        // A 40×40 square whose centre moves from (0.25, 0.3) to (0.75, 0.7) of the picture over the second: at frame k
        // (t = k/25) it is at (40 + 3.2k, 36 + 1.92k).
        let (result, out) = try render(project(clip: #"""
            {"asset": "white", "mask": {"shape": {"type": "rectangle", "size": [40, 40]},
                                        "position": [{"start": 0, "duration": 1, "from": [0.25, 0.3], "to": [0.75, 0.7]}]}}
            """#))
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try countFrames(out) == 25)
        for frame in [0, 5, 12, 24] {
            let pixels = try luma(out, frame: frame)
            let cx = 40 + 3.2 * Double(frame), cy = 36 + 1.92 * Double(frame)
            let row = Self.crossings((0..<160).map { pixels[Int(cy) * 160 + $0] })
            let column = Self.crossings((0..<120).map { pixels[$0 * 160 + Int(cx)] })
            #expect(Self.near(row, [cx - 20, cx + 20]), "frame \(frame): columns \(row), expected \(cx - 20), \(cx + 20)")
            #expect(Self.near(column, [cy - 20, cy + 20]), "frame \(frame): rows \(column), expected \(cy - 20), \(cy + 20)")
        }
    }

    /// The share of pixel (x, y) inside a rounded rectangle's top-left corner arc of radius `r` (centre (r, r)),
    /// counted on a 16×16 grid of sub-pixels.
    static func cornerCoverage(_ x: Int, _ y: Int, radius r: Double) -> Double {
        var inside = 0
        for i in 0..<16 {
            for j in 0..<16 {
                let u = Double(x) + (Double(i) + 0.5) / 16, v = Double(y) + (Double(j) + 0.5) / 16
                let dx = max(0, r - u), dy = max(0, r - v)
                if dx * dx + dy * dy <= r * r { inside += 1 }
            }
        }
        return Double(inside) / 256
    }

    /// Checks frame `frame`'s top-left corner against a circle of radius `radius`: every pixel of the corner's square
    /// within 24 levels of the analytic coverage (mean error under 4), and the diagonal's half-way crossing within
    /// 1 px of r(1 − 1/√2).
    func expectRoundCorner(_ out: URL, frame: Int, radius: Double, _ what: String) throws {
        let pixels = try luma(out, frame: frame)
        var worst = 0.0, total = 0.0, count = 0
        let side = Int(radius.rounded(.up)) + 2
        for y in 0..<side {
            for x in 0..<side {
                // ffmpeg's gray output is full range: black 0, white 255.
                let expected = 255 * Self.cornerCoverage(x, y, radius: radius)
                let error = abs(Double(pixels[y * 160 + x]) - expected)
                worst = max(worst, error)
                total += error
                count += 1
            }
        }
        #expect(worst <= 24 && total / Double(count) < 4, "\(what) frame \(frame), r = \(radius): worst \(worst), mean \(total / Double(count))")
        let diagonal = Self.crossings((0..<40).map { pixels[$0 * 160 + $0] })
        let expected = radius * (1 - 1 / 2.0.squareRoot())
        #expect(diagonal.count == 1 && abs(diagonal[0] - expected) <= 1, "\(what) frame \(frame): diagonal \(diagonal), expected \(expected)")
    }

    @Test(arguments: [
        #"{"asset": "white", "cornerRadius": [{"start": 0, "duration": 1, "from": 0, "to": 40}]}"#,
        #"{"asset": "white", "mask": {"shape": {"type": "rectangle", "cornerRadius": [{"at": 0, "value": 0}, {"at": 1, "value": 40, "easing": "linear"}]}}}"#,
    ])
    func anAnimatedCornerRadiusRoundsTheCornersByTheKeysRadius(_ clip: String) throws {
        // The radius ramps 0 → 40 over the second: 1.6k at frame k.
        let (result, out) = try render(project(clip: clip))
        #expect(result.status == 0, "\(result.stderrText)")
        let first = try luma(out, frame: 0)
        #expect(first[0] > 220, "frame 0 has square corners, its corner pixel is \(first[0])")
        for frame in [10, 24] {
            try expectRoundCorner(out, frame: frame, radius: 1.6 * Double(frame), clip)
        }
    }

    @Test func aShapeOverlaysSizeAndCornerRadiusKeysRedrawItEachFrame() throws {
        // On black: a white rectangle centred at (80, 60) whose box grows from 40×30 to 140×110 and whose radius
        // ramps 0 → 40 over the second: at frame k, (40 + 4k)×(30 + 3.2k), radius 1.6k.
        let (result, out) = try render(project(clip: #"{"asset": "black", "duration": 1}"#, overlays: #"""
            {"shape": {"type": "rectangle", "fill": "#FFFFFF",
                       "size": [{"start": 0, "duration": 1, "from": [40, 30], "to": [140, 110]}],
                       "cornerRadius": [{"start": 0, "duration": 1, "from": 0, "to": 40}]},
             "start": 0, "duration": 1}
            """#))
        #expect(result.status == 0, "\(result.stderrText)")
        for frame in [0, 8, 24] {
            let pixels = try luma(out, frame: frame)
            let width = 40 + 4 * Double(frame), height = 30 + 3.2 * Double(frame)
            let row = Self.crossings((0..<160).map { pixels[60 * 160 + $0] })
            let column = Self.crossings((0..<120).map { pixels[$0 * 160 + 80] })
            #expect(Self.near(row, [80 - width / 2, 80 + width / 2]), "frame \(frame): columns \(row), width \(width)")
            #expect(Self.near(column, [60 - height / 2, 60 + height / 2]), "frame \(frame): rows \(column), height \(height)")
            // The box's corner is outside the arc once the radius is a few pixels: black 1 px in from it.
            let radius = 1.6 * Double(frame)
            let cornerX = Int((80 - width / 2).rounded(.up)), cornerY = Int((60 - height / 2).rounded(.up))
            let corner = pixels[(cornerY + 1) * 160 + cornerX + 1]
            #expect(radius < 4 ? corner > 200 : corner < 40, "frame \(frame): the corner pixel is \(corner) at radius \(radius)")
        }
    }

    @Test func compileWritesTheKeysAndTheExplicitFormRendersTheSameFrames() throws {
        // Size and position keyed with different times (sampled per frame in the explicit form), a keyed corner radius
        // on the clip, a shape overlay with keyed size and corner radius.
        let text = project(clip: #"""
            {"asset": "white", "cornerRadius": [{"at": 0, "value": 4}, {"at": 0.8, "value": [30, 10], "easing": "easeIn"}],
             "mask": {"shape": {"type": "ellipse", "size": [{"start": 0.2, "duration": 0.5, "from": [30, 30], "to": [90, 60]}]},
                      "position": [{"at": 0, "value": [0.3, 0.5]}, {"at": 1, "value": [0.6, 0.4], "easing": "easeInOut"}]}}
            """#, overlays: #"""
            {"shape": {"type": "rectangle", "fill": "#FF000080", "size": [{"at": 0, "value": [20, 20]}, {"at": 0.6, "value": [60, 40], "easing": "easeOut"}],
                       "cornerRadius": [{"start": 0.1, "duration": 0.5, "from": 2, "to": 12}]},
             "start": 0, "duration": 1, "position": [0.7, 0.3]}
            """#)
        let (result, out) = try render(text)
        #expect(result.status == 0, "\(result.stderrText)")
        let editing = try runChecked("ffmpeg", ["-v", "error", "-i", out.path, "-f", "framemd5", "-"])
        let compiled = try run(reel.path, ["compile", folder.file("p.json").path])
        #expect(compiled.status == 0, "\(compiled.stderrText)")
        let object = try JSONSerialization.jsonObject(with: Data(compiled.stdoutText.utf8)) as? [String: Any]
        let videoComposition = object?["videoComposition"] as? [String: Any]
        let instructions = videoComposition?["instructions"] as? [[String: Any]] ?? []
        let effects = instructions.flatMap { ($0["layers"] as? [[String: Any]] ?? []).flatMap { $0["effects"] as? [[String: Any]] ?? [] } }
        #expect(effects.contains { $0["cornerRadius"] is [[String: Any]] }, "no corner radius keys in \(effects)")
        #expect(effects.contains { $0["rect"] is [[String: Any]] }, "no rect keys in \(effects)")
        let shape = ((videoComposition?["overlays"] as? [[String: Any]])?.first?["shape"]) as? [String: Any]
        #expect(shape?["size"] is [[String: Any]] && shape?["cornerRadius"] is [[String: Any]], "shape \(String(describing: shape))")
        let (again, out2) = try render(compiled.stdoutText, name: "explicit.json")
        #expect(again.status == 0, "\(again.stderrText)")
        let explicit = try runChecked("ffmpeg", ["-v", "error", "-i", out2.path, "-f", "framemd5", "-"])
        #expect(editing == explicit, "the explicit form renders other frames")
        // And the keys changed the pictures: the first and last frames differ.
        let hashes = String(decoding: editing, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(Set(hashes.map { $0.split(separator: ",").last ?? "" }).count > 10, "too few distinct frames")
    }

    static let refusals: [(clip: String, overlays: String, path: String)] = [
        (#"{"asset": "white", "cornerRadius": [{"at": 0, "value": -1}]}"#, "", "$.timeline.clips[0].cornerRadius[0].value"),
        (#"{"asset": "white", "cornerRadius": [{"at": 1, "value": 4}, {"at": 0, "value": 8}]}"#, "", "$.timeline.clips[0].cornerRadius[1]"),
        (#"{"asset": "white", "mask": {"position": [{"at": 0, "value": "left"}]}}"#, "", "$.timeline.clips[0].mask.position[0].value"),
        (#"{"asset": "white", "mask": {"position": [{"at": 0, "value": [0.5, 0.5], "easing": "easeIn"}]}}"#, "",
         "$.timeline.clips[0].mask.position[0].easing"),
        (#"{"asset": "white", "mask": {"position": [0.5]}}"#, "", "$.timeline.clips[0].mask.position"),
        (#"{"asset": "white", "mask": {"shape": {"cornerRadius": [{"start": 0, "duration": 1, "from": 0, "to": [1, 2, 3]}]}}}"#, "",
         "$.timeline.clips[0].mask.shape.cornerRadius[0].to"),
        ("", #"{"shape": {"type": "polygon", "size": [{"at": 0, "value": [10, 10]}], "points": [[0, 0], [5, 5], [0, 5]]}, "start": 0, "duration": 1}"#,
         "$.timeline.overlays[0].shape.size"),
        ("", #"{"shape": {"type": "rectangle", "size": [{"at": 0, "value": [0, 10]}]}, "start": 0, "duration": 1}"#,
         "$.timeline.overlays[0].shape.size[0].value"),
        ("", #"{"shape": {"type": "rectangle", "size": [10, 10], "cornerRadius": [{"at": 0, "value": -2}]}, "start": 0, "duration": 1}"#,
         "$.timeline.overlays[0].shape.cornerRadius[0].value"),
        ("", #"{"shape": {"type": "ellipse", "size": [10, 10], "cornerRadius": [{"at": 0, "value": 2}]}, "start": 0, "duration": 1}"#,
         "$.timeline.overlays[0].shape.cornerRadius"),
    ]

    @Test(arguments: 0..<refusals.count)
    func badKeysStopAtTheirPath(_ index: Int) throws {
        let (clip, overlays, path) = Self.refusals[index]
        let (result, out) = try render(project(clip: clip, overlays: overlays))
        #expect(result.status == 65, "\(result.stderrText)")
        #expect(result.stderrText.contains(path), "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
