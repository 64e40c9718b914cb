import Foundation
import ReelTestSupport
import Testing

/// Issue 39: eased keys and animations, judged from rendered frames. A white 8×8 box moves across a black 128×72
/// canvas; in every decoded frame (lossless H.264) the luma-weighted centroid of the box gives its centre to a small
/// fraction of a pixel, and it must lie within 0.5 px of the easing formula at the frame's time.
@Suite struct EasingRenderTests: CLISuite {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        (folder, reel) = try Self.workspace(prefix: "reel-easing")
        _ = try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=white:s=8x8", "-frames:v", "1",
                                      folder.file("box.png").path])
    }

    /// The cubic Bézier easing, from its definition: bisection on x(s) = p (x is increasing), then y(s).
    private static func bezier(_ p: Double, _ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double) -> Double {
        func coordinate(_ s: Double, _ a: Double, _ b: Double) -> Double {
            3 * (1 - s) * (1 - s) * s * a + 3 * (1 - s) * s * s * b + s * s * s
        }
        var low = 0.0, high = 1.0
        for _ in 0..<100 {
            let middle = (low + high) / 2
            if coordinate(middle, x1, x2) < p { low = middle } else { high = middle }
        }
        return coordinate((low + high) / 2, y1, y2)
    }

    /// The horizontal centre of the bright pixels of each frame, in canvas pixels (pixel x spans [x, x + 1)).
    private func centres(_ name: String) throws -> [Double] {
        let data = [UInt8](try runChecked("ffmpeg", ["-v", "error", "-i", folder.file(name).path, "-f", "rawvideo",
                                                     "-pix_fmt", "gray", "-"]))
        let size = 128 * 72
        return stride(from: 0, to: data.count - size + 1, by: size).map { offset in
            let frame = data[offset..<offset + size]
            let black = Double(frame[offset])
            var mass = 0.0, moment = 0.0
            for (index, value) in frame.enumerated() {
                let weight = max(0, Double(value) - black)
                mass += weight
                moment += weight * (Double(index % 128) + 0.5)
            }
            return mass > 0 ? moment / mass : .nan
        }
    }

    private func render(_ name: String, _ body: String) throws -> [Double] {
        let path = try write("\(name).json", """
            { "reel": 1, "output": { "path": "\(name).mp4", "size": [128, 72], "frameRate": 30, "audio": false,
                                     "video": { "crf": 0 } },
              "assets": { "bg": { "color": "#000000" }, "box": { "image": "box.png" } },
              \(body) }
            """)
        let result = try reel(["render", path, "-q"])
        try #require(result.status == 0, "\(result.stderrText)")
        return try centres("\(name).mp4")
    }

    /// Checks frames 0…45 (1.5 s): eased over the first second, then holding the end value.
    private func expectCentres(_ shown: [Double], from start: Double, to end: Double, easing: (Double) -> Double) {
        #expect(shown.count == 45)
        var worst = 0.0
        for (n, centre) in shown.enumerated() {
            let p = min(1, Double(n) / 30)
            let expected = start + (end - start) * easing(p)
            worst = max(worst, abs(centre - expected))
            #expect(abs(centre - expected) <= 0.5, "frame \(n): centre \(centre), formula \(expected)")
        }
        #expect(worst <= 0.5, "worst \(worst) px")
    }

    @Test func anOverlaysCubicBezierAnimationFollowsTheFormula() throws {
        let shown = try render("overlay", #"""
            "timeline": { "clips": [ { "asset": "bg", "duration": 1.5 } ],
              "overlays": [ { "image": "box", "size": [8, 8], "start": 0, "duration": 1.5, "position": [0.25, 0.5],
                "animations": [ { "property": "position", "to": [0.75, 0.5], "start": 0, "duration": 1,
                                  "easing": "cubic-bezier(0.3, -0.4, 0.7, 1.4)" } ] } ] }
            """#)
        expectCentres(shown, from: 32, to: 96) { Self.bezier($0, 0.3, -0.4, 0.7, 1.4) }
    }

    @Test func aClipsStepsAnimationFollowsTheFormula() throws {
        // steps(4, jump-none): 0, 1/3, 2/3, 1 over the four quarters of the second.
        let shown = try render("moving-clip", #"""
            "timeline": { "clips": [ { "asset": "box", "duration": 1.5, "fit": "none", "position": [0.25, 0.5],
                "animations": [ { "property": "position", "to": [0.75, 0.5], "start": 0, "duration": 1,
                                  "easing": "steps(4, jump-none)" } ] } ] }
            """#)
        expectCentres(shown, from: 32, to: 96) { p in p >= 1 ? 1 : min(3, (p * 4).rounded(.down)) / 3 }
    }

    @Test func anExplicitTransformKeyframeEasesFromThePreviousKey() throws {
        // The box sits at its native size, its left edge at tx: the centre is tx + 4, from 28 + 4 to 92 + 4.
        let shown = try render("explicit", #"""
            "composition": { "tracks": [ { "id": 1, "type": "video", "segments": [
                { "asset": "box", "source": { "start": 0, "duration": 1.5 }, "target": { "start": 0, "duration": 1.5 } } ] } ] },
            "videoComposition": { "frameDuration": "1/30", "renderSize": [128, 72], "instructions": [
                { "start": 0, "duration": 1.5, "layers": [ { "track": 1, "transform": [
                    { "at": 0, "value": { "translate": [28, 32] } },
                    { "at": 1, "value": { "translate": [92, 32] }, "easing": "easeInOut" } ] } ] } ] }
            """#)
        expectCentres(shown, from: 32, to: 96) { Self.bezier($0, 0.42, 0, 0.58, 1) }
        let compiled = try reel(["compile", folder.file("explicit.json").path])
        #expect(compiled.status == 0, "\(compiled.stderrText)")
        #expect(compiled.stdoutText.contains(#""easing": "easeInOut""#), "\(compiled.stdoutText)")
    }
}
