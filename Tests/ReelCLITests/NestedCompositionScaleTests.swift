import Foundation
import ReelTestSupport
import Testing

/// Issue 38 point 1, "renders draw the child at the size its placement needs", through the built binary: a 160×120
/// card (a title, a shape with a stroke and rounded corners) shown at 4× in a 640×480 parent is drawn at 4×, so it
/// matches the same card written at 640×480 (luma PSNR, frame by frame, against a lossless render of it), where the
/// card drawn at 160×120 and enlarged does not; so do a media clip's blur, a mask's feather and a push inside the
/// child; a card shown at 2.5× is drawn at 3× and placed where the nominal picture goes; a zoom to 4× ends drawn at
/// 4×; shown at its size, smaller or less than 5 % larger it is drawn at its size, frame for frame what placing the
/// child's own render shows.
@Suite struct NestedCompositionScaleTests: NestedCardProjects {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-nested-scale")
        reel = try builtExecutable(named: "reel")
        // testsrc 160×120 at 25 fps for 2 s, lossless: the media clip of the effects card.
        _ = try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=s=160x120:r=25:d=2,format=yuv420p",
                                      "-c:v", "libx264", "-crf", "0", "-g", "25", "-bf", "0", folder.file("src.mkv").path])
    }

    /// The effects card at `k` × 160×120: the media clip blurred (radius in canvas pixels) and cut to a feathered
    /// ellipse, pushed out by a colour clip; every length × `k`.
    func effectsCard(_ k: Int) -> String {
        project(160 * k, 120 * k, """
            "assets": {"src": {"path": "src.mkv"}, "red": {"color": "#B02020"}},
            "timeline": {"clips": [
                {"asset": "src", "duration": 1.2, "effects": [{"type": "blur", "radius": \(2 * k)}],
                 "mask": {"shape": {"type": "ellipse", "size": [\(120 * k), \(90 * k)]}, "feather": \(6 * k)}},
                {"asset": "red", "duration": 0.8, "transition": {"type": "push", "duration": 0.4}}]}
            """)
    }

    /// A 640×480 parent showing composition file `child` as its one clip, fitted (4× for a 160×120 child).
    func parent(of child: String, duration: Double) -> String {
        project(640, 480, """
            "assets": {"card": {"composition": "\(child)"}},
            "timeline": {"clips": [{"asset": "card", "duration": \(duration)}]}
            """)
    }

    @Test func aCardShownAtFourTimesMatchesTheCardWrittenAtFourTimes() throws {
        try write("card.json", card(1))
        try write("card4.json", card(4))
        try write("parent.json", parent(of: "card.json", duration: 1))
        try render("card4.json", "card4.mkv")
        try render("parent.json", "parent.mkv")
        try render("card.json", "card.mkv")
        let video = try probe(folder.file("parent.mkv")).first("video")
        #expect(video?.width == 640 && video?.height == 480)
        let drawnLarge = try lumaPSNR("parent.mkv", "card4.mkv")
        #expect(drawnLarge.count == 25)
        #expect(drawnLarge.allSatisfy { $0 >= 40 }, "drawn at 4×: \(drawnLarge.min() ?? 0) dB")
        // The control: the card drawn at 160×120 and enlarged 4× (as before issue 38's point 1) is visibly softer.
        let enlarged = try lumaPSNR("card.mkv", "card4.mkv", scaling: "scale=640:480:flags=bicubic")
        #expect(enlarged.allSatisfy { $0 < 35 }, "drawn at 1× and enlarged: \(enlarged.max() ?? 0) dB")
    }

    @Test func aBlurAMaskFeatherAndAPushInsideTheChildMatchAtFourTimes() throws {
        try write("effects.json", effectsCard(1))
        try write("effects4.json", effectsCard(4))
        try write("parent.json", parent(of: "effects.json", duration: 1.6))
        try render("effects4.json", "effects4.mkv")
        try render("parent.json", "parent.mkv")
        let compared = try lumaPSNR("parent.mkv", "effects4.mkv")
        #expect(compared.count == 40)
        // Drawn at 4× the two renders take the same steps (the card at 1× enlarged is at 45 dB).
        #expect(compared.allSatisfy { $0 >= 50 }, "lowest \(compared.min() ?? 0) dB at frame \(compared.firstIndex(of: compared.min() ?? 0) ?? -1)")
    }

    @Test func aCardShownAtTwoAndAHalfTimesIsDrawnAtThreeAndPlacedWhereTheNominalPictureGoes() throws {
        // A 400×300 parent: the card fitted is 2.5×, drawn at 3× (480×360) and reduced to 400×300; against the card
        // written at 480×360 reduced by ffmpeg to 400×300.
        try write("card.json", card(1))
        try write("card3.json", card(3))
        try write("parent.json", project(400, 300, """
            "assets": {"card": {"composition": "card.json"}},
            "timeline": {"clips": [{"asset": "card", "duration": 1}]}
            """))
        try render("card3.json", "card3.mkv")
        try render("parent.json", "parent.mkv")
        try render("card.json", "card.mkv")
        let drawnAtThree = try lumaPSNR("card3.mkv", "parent.mkv", scaling: "scale=400:300:flags=bilinear")
        let enlarged = try lumaPSNR("card.mkv", "parent.mkv", scaling: "scale=400:300:flags=bilinear")
        #expect(drawnAtThree.count == 25)
        // Placed where the nominal picture goes (a moved or misscaled picture is far below 30 dB), and sharper than
        // the nominal picture enlarged.
        #expect(drawnAtThree.allSatisfy { $0 >= 40 }, "against 3× reduced: \(drawnAtThree.min() ?? 0) dB")
        #expect(zip(drawnAtThree, enlarged).allSatisfy { $0 > $1 + 3 },
                "3×: \(drawnAtThree.min() ?? 0) dB, 1× enlarged: \(enlarged.max() ?? 0) dB")
    }

    @Test func aZoomToFourTimesEndsDrawnAtFourTimes() throws {
        // A video overlay of the card, 160×120 at the centre, scaled from 1 to 4 over 0.4 s: from frame 10 on it is the
        // card written at 640×480 (the child's core changes scale on the way: 1, 2, 3, 4).
        try write("card.json", card(1))
        try write("card4.json", card(4))
        try write("parent.json", project(640, 480, """
            "assets": {"card": {"composition": "card.json"}, "black": {"color": "#000000"}},
            "timeline": {"clips": [{"asset": "black", "duration": 1}],
                         "overlays": [{"video": "card", "start": 0, "duration": 1, "position": [0.5, 0.5], "size": [160, 120],
                                       "animations": [{"property": "scale", "from": [1, 1], "to": [4, 4], "start": 0, "duration": 0.4}]}]}
            """))
        try render("card4.json", "card4.mkv")
        try render("parent.json", "parent.mkv")
        let compared = try lumaPSNR("parent.mkv", "card4.mkv")
        #expect(compared.count == 25)
        #expect(compared[10...].allSatisfy { $0 >= 40 }, "after the zoom: \(compared[10...].min() ?? 0) dB")
        #expect(compared[..<9].allSatisfy { $0 < 30 }, "during the zoom the card is smaller: \(compared[..<9].max() ?? 0) dB")
    }

    @Test func atItsSizeSmallerOrAHairLargerTheChildIsDrawnAtItsSize() throws {
        // Clips and overlays of the two cards at 1×, 0.5× and 1.025× (within the 5 % grace), over a dissolve: frame for
        // frame what the same project shows with the children's own lossless renders in their place.
        try write("card.json", card(1))
        try write("effects.json", effectsCard(1))
        try render("card.json", "card.mkv")
        try render("effects.json", "effects.mkv")
        func parent(_ card: String, _ effects: String) -> String {
            project(160, 120, """
                "assets": {"card": \(card), "effects": \(effects)},
                "timeline": {"clips": [{"asset": "effects", "duration": 1.6},
                                       {"asset": "card", "duration": 1, "transition": {"type": "dissolve", "duration": 0.4}}],
                             "overlays": [{"video": "card", "start": 0.2, "duration": 1, "position": [0.3, 0.3], "size": [80, 60]},
                                          {"video": "effects", "start": 0.5, "duration": 1, "position": [0.6, 0.6], "size": [164, 123]}]}
                """)
        }
        try write("compositions.json", parent(#"{"composition": "card.json"}"#, #"{"composition": "effects.json"}"#))
        try write("files.json", parent(#"{"path": "card.mkv"}"#, #"{"path": "effects.mkv"}"#))
        try render("compositions.json", "compositions.mkv")
        try render("files.json", "files.mkv")
        let compositions = try pictureHashes("compositions.mkv")
        #expect(compositions.count == 55)
        #expect(compositions == (try pictureHashes("files.mkv")))
    }

    /// A lower third written as a composition whose background is see-through (`#00000000`) shows the parent's
    /// picture wherever its own layers do not cover it, and its layers — an opaque title and a half-transparent
    /// rounded plate — as the same layers written straight into the parent show them (the see-through child used
    /// to be drawn over black, a box hiding the video).
    @Test func aSeeThroughCompositionShowsTheParentUnderItsLayers() throws {
        let layers = """
            "titles": [{"text": "Ada Lovelace", "start": 0, "duration": 1, "position": %@, "size": 26}],
            "overlays": [{"shape": {"type": "rectangle", "size": [300, 56], "cornerRadius": 12, "fill": "#FFCC0080"},
                          "start": 0, "duration": 1, "position": %@}]
            """
        func placed(_ position: String) -> String {
            layers.replacingOccurrences(of: "%@", with: position)
        }
        try write("lower.json", """
            {"reel": 1, "output": {"size": [320, 120], "frameRate": 25, "end": 1, "background": "#00000000",
                                   "audio": false},
             "assets": {}, "timeline": {"clips": [], \(placed("[0.5, 0.5]"))}}
            """)
        try write("nested.json", project(640, 480, """
            "assets": {"src": {"path": "src.mkv"}, "lower": {"composition": "lower.json"}},
            "timeline": {"clips": [{"asset": "src", "duration": 1}],
                         "overlays": [{"video": "lower", "start": 0, "duration": 1, "position": [0.5, 0.85]}]}
            """))
        try write("inline.json", project(640, 480, """
            "assets": {"src": {"path": "src.mkv"}},
            "timeline": {"clips": [{"asset": "src", "duration": 1}], \(placed("[0.5, 0.85]"))}
            """))
        try render("nested.json", "nested.mkv")
        try render("inline.json", "inline.mkv")
        let psnr = try lumaPSNR("nested.mkv", "inline.mkv")
        #expect(psnr.count == 25)
        #expect(psnr.allSatisfy { $0 >= 40 }, "luma PSNR per frame: \(psnr)")
    }

    /// The MD5 of each decoded picture of `file`'s video, in order.
    func pictureHashes(_ file: String) throws -> [String] {
        let data = try runChecked("ffmpeg", ["-v", "error", "-i", folder.file(file).path, "-map", "0:v", "-f", "framemd5", "-"])
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }
}
