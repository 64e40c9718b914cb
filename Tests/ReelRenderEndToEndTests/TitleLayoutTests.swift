import Foundation
import ReelModel
import ReelTestSupport
import ReelTime
import Testing

/// Titles that fit data-driven text (issue 22.6): wrapping at `maxWidth`, `fit: shrink`, the `anchor` that
/// `position` places, weight / style / stretch, family fallback lists, and the movie-time tokens, rendered by
/// `reel` at 320×180 and measured on the decoded luma planes (see `TitleRenderTests`).
@Suite struct TitleLayoutTests {
    typealias Ink = TitleRenderTests.Ink
    static let width = TitleRenderTests.width, height = TitleRenderTests.height

    /// The ink of frame 0 of a one-second render of `titles`.
    private func ink(_ titles: String) throws -> Ink {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let frames = try TitleRenderTests.render(TitleRenderTests.project(end: 0.1, titles: titles), in: folder)
        return Ink(try #require(frames.first))
    }

    private static let long = "Dr. Maximiliane Oberhollenzer-Castellanos, Head of Research"

    @Test func maxWidthWrapsALongNameIntoTheBox() throws {
        let unbounded = try ink(#"[ { "text": "\#(Self.long)", "start": 0, "duration": 0.1, "size": 20 } ]"#)
        let wrapped = try ink(#"[ { "text": "\#(Self.long)", "start": 0, "duration": 0.1, "size": 20, "maxWidth": 200 } ]"#)
        // Unbounded, the name runs off both sides of the 320-pixel canvas; wrapped it fits 200 pixels, centred.
        #expect(unbounded.minX == 0 && unbounded.maxX == Self.width - 1, "\(unbounded.minX)…\(unbounded.maxX)")
        #expect(wrapped.boxWidth <= 200, "\(wrapped.boxWidth)")
        #expect(wrapped.minX >= 60 && wrapped.maxX <= 260, "\(wrapped.minX)…\(wrapped.maxX)")
        // Three or more lines of 20 px text.
        #expect(wrapped.boxHeight >= 3 * 20, "\(wrapped.boxHeight)")
        // Centred on the canvas as a block.
        #expect(abs(wrapped.centreX - 160) <= 12 && abs(wrapped.centreY - 90) <= 4, "\(wrapped.centreX), \(wrapped.centreY)")
    }

    @Test func shrinkScalesOneLineDownToTheWidth() throws {
        let shrunk = try ink(#"[ { "text": "\#(Self.long)", "start": 0, "duration": 0.1, "size": 40, "maxWidth": 300, "fit": "shrink" } ]"#)
        // One line (well under 40 px tall), as wide as the box allows: ink a little inside the 300-pixel layout box.
        #expect(shrunk.boxWidth <= 300 && shrunk.boxWidth >= 280, "\(shrunk.boxWidth)")
        #expect(shrunk.boxHeight < 20, "\(shrunk.boxHeight)")
        // Text that already fits keeps its size.
        let short = try ink(#"[ { "text": "Ann", "start": 0, "duration": 0.1, "size": 40, "maxWidth": 300, "fit": "shrink" } ]"#)
        let plain = try ink(#"[ { "text": "Ann", "start": 0, "duration": 0.1, "size": 40 } ]"#)
        #expect(short.mass == plain.mass && short.boxWidth == plain.boxWidth)
    }

    @Test func shrinkWithAHeightWrapsWithoutBreakingWords() throws {
        let boxed = try ink(#"[ { "text": "\#(Self.long)", "start": 0, "duration": 0.1, "size": 60, "maxWidth": 240, "maxHeight": 60, "fit": "shrink" } ]"#)
        #expect(boxed.boxWidth <= 240 && boxed.boxHeight <= 60, "\(boxed.boxWidth)×\(boxed.boxHeight)")
        // Larger than the one-line shrink at the same width would make it (it uses two or more lines).
        let oneLine = try ink(#"[ { "text": "\#(Self.long)", "start": 0, "duration": 0.1, "size": 60, "maxWidth": 240, "fit": "shrink" } ]"#)
        #expect(boxed.boxHeight > oneLine.boxHeight * 3 / 2, "\(boxed.boxHeight) vs \(oneLine.boxHeight)")
    }

    @Test func theAnchorIsThePointPositionPlaces() throws {
        let corner = try ink(#"[ { "text": "Lower third", "start": 0, "duration": 0.1, "size": 24, "anchor": "bottomLeft", "position": [0.05, 0.9] } ]"#)
        // The layout box's bottom-left corner sits at (16, 162): the ink starts just right of it and ends above it
        // (the box includes the descent and side bearings).
        #expect(corner.minX >= 16 && corner.minX <= 20, "\(corner.minX)")
        #expect(corner.maxY < 162 && corner.maxY >= 150, "\(corner.maxY)")
        let right = try ink(#"[ { "text": "Lower third", "start": 0, "duration": 0.1, "size": 24, "anchor": "right", "position": [0.95, 0.5] } ]"#)
        #expect(right.maxX <= 304 && right.maxX >= 298, "\(right.maxX)")
        #expect(abs(right.centreY - 90) <= 3, "\(right.centreY)")
    }

    @Test func weightStyleAndStretchPickOtherFaces() throws {
        let regular = try ink(#"[ { "text": "Heavy ink", "start": 0, "duration": 0.1, "size": 40 } ]"#)
        let bold = try ink(#"[ { "text": "Heavy ink", "start": 0, "duration": 0.1, "size": 40, "weight": "bold" } ]"#)
        let numeric = try ink(#"[ { "text": "Heavy ink", "start": 0, "duration": 0.1, "size": 40, "weight": 700 } ]"#)
        #expect(bold.mass > regular.mass * 5 / 4, "bold \(bold.mass) vs regular \(regular.mass)")
        #expect(numeric.mass == bold.mass)
        let condensed = try ink(#"[ { "text": "Heavy ink", "start": 0, "duration": 0.1, "size": 40, "font": "DejaVu Sans", "stretch": "condensed" } ]"#)
        #expect(condensed.boxWidth < regular.boxWidth, "condensed \(condensed.boxWidth) vs \(regular.boxWidth)")
        let italic = try ink(#"[ { "text": "Heavy ink", "start": 0, "duration": 0.1, "size": 40, "style": "italic" } ]"#)
        #expect(italic.mass != regular.mass)
    }

    @Test func aFamilyListFallsBackToTheFirstInstalledFamily() throws {
        let listed = try ink(#"[ { "text": "Fallback", "start": 0, "duration": 0.1, "size": 40, "font": ["No Such Family Anywhere", "DejaVu Sans"] } ]"#)
        let direct = try ink(#"[ { "text": "Fallback", "start": 0, "duration": 0.1, "size": 40, "font": "DejaVu Sans" } ]"#)
        #expect(listed.mass == direct.mass && listed.boxWidth == direct.boxWidth)
    }

    @Test func aTitleShowingTheFrameNumberDrawsEachFramesOwnNumber() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let tokens = try TitleRenderTests.render(TitleRenderTests.project(end: 0.2, titles: """
            [ { "text": "{frame} {timecode}", "start": 0, "duration": 0.2, "size": 24 } ]
            """), in: folder)
        // The same frames drawn from six titles of one frame each with the text written out.
        let written = (0..<6).map { n in
            #"{ "text": "\#(n) 00:00:00:0\#(n)", "start": "\#(n)f", "duration": "1f", "size": 24 }"#
        }.joined(separator: ", ")
        let other = try TemporaryDirectory()
        defer { other.remove() }
        let expected = try TitleRenderTests.render(TitleRenderTests.project(end: 0.2, titles: "[\(written)]"), in: other)
        try #require(tokens.count == 6 && expected.count == 6)
        for index in 0..<6 { #expect(tokens[index] == expected[index], "frame \(index)") }
        #expect(tokens[0] != tokens[1])
    }

    @Test func movieTimeTokensCountFramesAndTime() {
        let style = TextStyle(text: "{timecode} | {frame} | {time}", size: 10)
        #expect(style.showing(frame: 95, frameDuration: Time(value: 1, timescale: 30)).text == "00:00:03:05 | 95 | 00:00:03.166")
        // 29.97 fps counts 30 frames a second (non-drop-frame); the time is the frame's real start.
        #expect(style.showing(frame: 30, frameDuration: Time(value: 1001, timescale: 30000)).text == "00:00:01:00 | 30 | 00:00:01.001")
        #expect(style.showing(frame: 90_000, frameDuration: Time(value: 1, timescale: 25)).text == "01:00:00:00 | 90000 | 01:00:00.000")
        #expect(TextStyle(text: "no tokens", size: 10).showing(frame: 5, frameDuration: Time(value: 1, timescale: 30)).text == "no tokens")
    }

    @Test func validationOfTheLayoutKeys() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        func validate(_ title: String) throws -> String {
            let path = folder.file("v.json")
            try TitleRenderTests.project(end: 1, titles: "[\(title)]").write(to: path, atomically: true, encoding: .utf8)
            let result = try run(Spine.reel().path, ["validate", path.path])
            return "\(result.status) " + result.stderrText
        }
        let shrinkWithoutWidth = try validate(#"{ "text": "a", "start": 0, "fit": "shrink" }"#)
        #expect(shrinkWithoutWidth.hasPrefix("65 ") && shrinkWithoutWidth.contains("$.timeline.titles[0].fit: fit \"shrink\" needs a box to fit: maxWidth is missing"), "\(shrinkWithoutWidth)")
        let heightAlone = try validate(#"{ "text": "a", "start": 0, "maxWidth": 100, "maxHeight": 50 }"#)
        #expect(heightAlone.contains("$.timeline.titles[0].maxHeight: maxHeight only bounds text that shrinks to fit"), "\(heightAlone)")
        let weight = try validate(#"{ "text": "a", "start": 0, "weight": "fat" }"#)
        #expect(weight.contains("$.timeline.titles[0].weight: unknown font weight \"fat\""), "\(weight)")
        let fileInList = try validate(#"{ "text": "a", "start": 0, "font": ["DejaVu Sans", "fonts/x.ttf"] }"#)
        #expect(fileInList.contains("$.timeline.titles[0].font[1]: \"fonts/x.ttf\" is a font file, which cannot be part of a list of families"), "\(fileInList)")
        let noneInstalled = try validate(#"{ "text": "a", "start": 0, "duration": 1, "font": ["Nope One", "Nope Two"] }"#)
        #expect(noneInstalled.contains("none of the font families \"Nope One\", \"Nope Two\" is installed"), "\(noneInstalled)")
        let oneInstalled = try validate(#"{ "text": "a", "start": 0, "duration": 1, "font": ["Nope One", "DejaVu Sans"], "anchor": "bottomLeft", "weight": 600 }"#)
        #expect(oneInstalled.hasPrefix("0 "), "\(oneInstalled)")
    }

    @Test func compileWritesTheLayoutKeysAndTheCompiledFormRendersTheSame() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let titles = #"[ { "text": "\#(Self.long) {frame}", "start": 0, "duration": 0.1, "size": 40, "maxWidth": 300, "fit": "shrink", "anchor": "top", "position": [0.5, 0.1], "weight": "bold", "font": ["Nope", "DejaVu Sans"] } ]"#
        let project = folder.file("p.json")
        try TitleRenderTests.project(end: 0.1, titles: titles).write(to: project, atomically: true, encoding: .utf8)
        let compiled = try run(Spine.reel().path, ["compile", project.path, "-o", folder.file("c.json").path])
        #expect(compiled.status == 0, "\(compiled.stderrText)")
        let text = try String(contentsOf: folder.file("c.json"), encoding: .utf8)
        for key in [#""maxWidth": 300"#, #""fit": "shrink""#, #""anchor": "top""#, #""weight": 700"#, #""font": ["Nope", "DejaVu Sans"]"#] {
            #expect(text.contains(key), "\(key) in \(text)")
        }
        let direct = try TitleRenderTests.render(TitleRenderTests.project(end: 0.1, titles: titles), in: folder)
        let rendered = try run(Spine.reel().path, ["render", folder.file("c.json").path, "-q", "--force"])
        #expect(rendered.status == 0, "\(rendered.stderrText)")
        let again = try Spine.grayFrames(folder.file("out.mkv"), width: Self.width, height: Self.height)
        #expect(again == direct)
    }
}
