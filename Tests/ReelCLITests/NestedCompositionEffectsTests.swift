import Foundation
import ReelTestSupport
import Testing

/// Issue 38 point 1 for a composition clip carrying effects other than a mask: a 160×120 card shown at 4× with a
/// blur and a colour change, then a pixelation and a chroma key, is drawn at 4× with the effects' lengths scaled,
/// so it matches the card written at 640×480 under the same effects (luma PSNR per frame, lossless renders), where
/// the card drawn at its size under the effects and enlarged does not. Under a strong blur of the whole picture
/// (a `fit: blur` fill's) it is drawn at its size, so the frames equal those of the card's own render placed there.
@Suite struct NestedCompositionEffectsTests: NestedCardProjects {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-nested-effects")
        reel = try builtExecutable(named: "reel")
    }

    /// A `size`×`size·3/4` parent showing composition file `child` fitted, in two clips: blurred (radius `blur`
    /// canvas pixels) and saturated, then pixelated (`pixels` canvas pixels) with the navy ground keyed out.
    func parent(of child: String, width: Int, blur: Double, pixels: Double) -> String {
        project(width, width * 3 / 4, """
            "assets": {"card": {"composition": "\(child)"}},
            "timeline": {"clips": [
                {"asset": "card", "duration": 0.4,
                 "effects": [{"type": "blur", "radius": \(blur)}, {"type": "color", "saturation": 1.6}]},
                {"asset": "card", "in": 0.4, "duration": 0.4,
                 "effects": [{"type": "pixelate", "size": \(pixels)}, {"type": "chromaKey", "color": "#1E2A50"}]}]}
            """)
    }

    @Test func effectsOnACardShownAtFourTimesMatchTheCardWrittenAtFourTimes() throws {
        try write("card.json", card(1))
        try write("card4.json", card(4))
        // The same effects in the same canvas pixels: on the card at 4× (drawn at 4×), on the card written at 4×
        // (shown at 1×), and on the card at its size in a parent of its size (the old way, enlarged below).
        try write("parent.json", parent(of: "card.json", width: 640, blur: 4, pixels: 16))
        try write("written.json", parent(of: "card4.json", width: 640, blur: 4, pixels: 16))
        try write("small.json", parent(of: "card.json", width: 160, blur: 1, pixels: 4))
        try render("parent.json", "parent.mkv")
        try render("written.json", "written.mkv")
        try render("small.json", "small.mkv")
        let drawnLarge = try lumaPSNR("parent.mkv", "written.mkv")
        #expect(drawnLarge.count == 20)
        #expect(drawnLarge.allSatisfy { $0 >= 40 }, "drawn at 4× under effects: \(drawnLarge)")
        let enlarged = try lumaPSNR("small.mkv", "written.mkv", scaling: "scale=640:480:flags=bicubic")
        #expect(enlarged.count == 20)
        #expect(enlarged.allSatisfy { $0 < 35 }, "drawn at 1× under effects and enlarged: \(enlarged)")
    }

    @Test func underAStrongBlurTheCardIsDrawnAtItsSize() throws {
        try write("card.json", card(1))
        try write("card.mkv.json", project(160, 120, """
            "assets": {"card": {"composition": "card.json"}}, "timeline": {"clips": [{"asset": "card", "duration": 1}]}
            """))
        try render("card.mkv.json", "card.mkv")
        // Radius 48 canvas pixels = 12 of the card's: run reduced, so the card is not drawn larger for it.
        let blurred = """
            "timeline": {"clips": [{"asset": "card", "duration": 1, "effects": [{"type": "blur", "radius": 48}]}]}
            """
        try write("nested.json", project(640, 480, #""assets": {"card": {"composition": "card.json"}}, "# + blurred))
        try write("file.json", project(640, 480, #""assets": {"card": {"path": "card.mkv"}}, "# + blurred))
        try render("nested.json", "nested.mkv")
        try render("file.json", "file.mkv")
        let psnr = try lumaPSNR("nested.mkv", "file.mkv")
        #expect(psnr.count == 25)
        #expect(psnr.allSatisfy { $0 == .infinity }, "the card's own render under the same blur: \(psnr)")
    }
}
