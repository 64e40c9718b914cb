import Foundation
import ReelModel
import ReelTime
import Testing

/// The shared corpus of real caption files (docs/captions.md, "The corpus"); absent on machines without it.
private let corpus = "/work/shared/captions"
private let corpusPresent = FileManager.default.fileExists(atPath: corpus + "/MANIFEST.md")

/// What reading one corpus file must give: the numbers of the cues that survive (nil: the file is refused),
/// the place of the first problem reported (line, cue), and the plain text of one cue.
struct CorpusExpectation: Sendable, CustomStringConvertible {
    let file: String
    let survivors: [Int]?
    var encoding: String? = nil
    var firstProblem: (line: Int?, cue: Int?)? = nil
    var text: (index: Int, plain: String)? = nil
    var description: String { file + (encoding.map { " (\($0))" } ?? "") }
}

private let expectations: [CorpusExpectation] = [
    // SubRip
    .init(file: "srt_cjk_bilingual_zh_en.srt", survivors: [421, 422, 423],
          text: (0, "我有个点子\nOK, look, I think I have a plan here.")),
    .init(file: "srt_malformed_out_of_order.srt", survivors: [421, 422, 423]),
    .init(file: "srt_malformed_blank_lines_in_cue.srt", survivors: [421, 422, 423],
          text: (0, "我有个点子\n\nOK, look, I think I have a plan here.")),
    .init(file: "srt_rtl_hebrew_bidi.srt", survivors: Array(1...198)),
    .init(file: "srt_cjk_gbk_encoded.srt", survivors: nil, firstProblem: (3, nil)),
    .init(file: "srt_cjk_gbk_encoded.srt", survivors: [1, 2, 3], encoding: "gbk", text: (1, "还有更多的中文")),
    .init(file: "srt_styled_font_color.srt", survivors: Array(1...10), text: (0, "[instrumental music]")),
    .init(file: "srt_cr_only_bom.srt", survivors: [1, 2, 3],
          text: (0, "Did one of the last stories strike you as\nmore interesting than the other?")),
    .init(file: "srt_no_indexes_mixed_separators.srt", survivors: [1, 2, 3, 4, 5, 6], text: (0, "(deep rumbling)")),
    .init(file: "srt_malformed_missing_timecode.srt", survivors: [1, 3], firstProblem: (5, 2)),
    // Two-digit milliseconds are hundredths here (as go-astisub reads them), so cue 3 survives; media3 drops it.
    .init(file: "srt_malformed_bad_timestamps.srt", survivors: [1, 3], firstProblem: (6, 2)),
    .init(file: "srt_malformed_negative_timestamps.srt", survivors: [3], firstProblem: (2, 1)),
    // WebVTT
    .init(file: "vtt_talk_voices_inline_tags.vtt", survivors: Array(1...15)),
    .init(file: "vtt_spec_example_overlap_align_size.vtt", survivors: Array(1...13)),
    .init(file: "vtt_positioning_cue_settings_notes.vtt", survivors: Array(1...8)),
    .init(file: "vtt_style_blocks_voice_class.vtt", survivors: [1, 2, 3, 4]),
    // Timestamps without milliseconds or with two digits are invalid WebVTT: every cue is dropped, the file refused.
    .init(file: "vtt_bom_note_style_legacy_region.vtt", survivors: nil),
    .init(file: "vtt_wpt_region_blocks_settings.vtt", survivors: Array(1...9)),
    .init(file: "vtt_wpt_newlines_cr_lf_crlf.vtt", survivors: [1, 2, 3, 4], text: (3, "text3")),
    .init(file: "vtt_wpt_cue_text_tags.vtt", survivors: Array(1...28)),
    .init(file: "vtt_wpt_invalid_timestamps.vtt", survivors: [1, 32], firstProblem: (6, 2), text: (1, "text1")),
    .init(file: "vtt_youtube_inline_timestamps.vtt", survivors: [1, 2, 3, 4], text: (2, "this will happen is I'm telling")),
    .init(file: "vtt_invalid_missing_header.vtt", survivors: nil, firstProblem: (1, nil)),
    .init(file: "vtt_invalid_double_signature.vtt", survivors: nil, firstProblem: (1, nil)),
    // ASS / SSA
    .init(file: "ass_aegisub_override_tour.ass", survivors: Array(1...40)),
    .init(file: "ass_karaoke_k_kf_fad.ass", survivors: [1], text: (0, "So we can find our way")),
    .init(file: "ass_embedded_font.ass", survivors: [1]),
    .init(file: "ass_cjk_vertical_many_styles.ass", survivors: Array(1...64)),
    .init(file: "ass_positioning_pos_move_an.ass", survivors: Array(1...6)),
    .init(file: "ass_malformed_invalid_timecodes.ass", survivors: [3, 8], firstProblem: (10, 1),
          text: (0, "This is the third subtitle, with a comma.")),
    .init(file: "ass_overlapping_out_of_order.ass", survivors: Array(1...7)),
    .init(file: "ssa_v4_multiple_styles.ssa", survivors: Array(1...6), text: (1, "MAN:\nHow did we end up here?")),
]

@Suite("Caption files")
struct CaptionReaderTests {
    @Test("every corpus file is read as docs/captions.md says, or refused with a located error",
          .enabled(if: corpusPresent, "the caption corpus /work/shared/captions is absent"), arguments: expectations)
    func corpusFile(_ expected: CorpusExpectation) {
        let reading = CaptionReader.read(path: corpus + "/" + expected.file, file: expected.file,
                                         encoding: expected.encoding)
        if let survivors = expected.survivors {
            #expect(reading.document?.cues.map(\.number) == survivors)
        } else {
            #expect(reading.document == nil)
            #expect(reading.problems.contains { $0.severity == .error })
        }
        for problem in reading.problems {
            #expect(problem.file == expected.file)
            #expect(problem.severity == .error || (problem.line != nil && problem.cue != nil))
        }
        if let place = expected.firstProblem {
            #expect(reading.problems.first?.line == place.line)
            #expect(reading.problems.first?.cue == place.cue)
        }
        if let text = expected.text, let cues = reading.document?.cues, text.index < cues.count {
            #expect(cues[text.index].plainText == text.plain)
        }
    }

    @Test("the corpus table covers every subtitle file of the corpus",
          .enabled(if: corpusPresent, "the caption corpus /work/shared/captions is absent"))
    func corpusCovered() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: corpus)
            .filter { !$0.hasSuffix(".md") && !$0.hasSuffix(".json") }
        #expect(Set(files) == Set(expectations.map(\.file)))
    }

    @Test("ASS styles, layers and two-line cue times", .enabled(if: corpusPresent, "corpus absent"))
    func assFields() throws {
        let reading = CaptionReader.read(path: corpus + "/ssa_v4_multiple_styles.ssa", file: "x.ssa")
        let cues = try #require(reading.document?.cues)
        #expect(cues.prefix(3).map(\.style) == ["1", "2", "3"])
        #expect(cues[0].start == Time(value: 99, timescale: 1) && cues[0].end == Time(value: 10104, timescale: 100))
        #expect(cues[0].marginLeft == 1234 && cues[0].effect == "test" && cues[0].name == "Cher")
        #expect(reading.document?.assHeader?.contains("[V4 Styles]") == true)
        #expect(reading.document?.assHeader?.contains("Dialogue:") == false)
    }

    static let srtTimes: [(String, Int64?)] = [
        ("00:00:01,000", 1000), ("0:00:03,700", 3700), ("00:01:39", 99_000), ("00:01:41,04", 101_040),
        ("00:02:12.16", 132_160), ("01:00:00,5", 3_600_500), ("00:00:03,4560", nil), ("-00:00:01,000", nil),
        ("00:60:00,000", nil), ("00:00:60,000", nil), ("00:00", nil), ("00:00:01,", nil), ("1:2:3,4", 3_723_400),
    ]

    @Test("SubRip times", arguments: srtTimes)
    func subRipTime(_ text: String, _ millis: Int64?) {
        let srt = "1\n\(text) --> 99:00:00,000\nx\n"
        let cues = CaptionReader.read(Array(srt.utf8), file: "t.srt").document?.cues
        #expect(cues?.first?.start == millis.map { Time(value: $0, timescale: 1000) })
    }

    static let vttTimes: [(String, Int64?)] = [
        ("00:01.000", 1000), ("0:00:00.000", 0), ("100:00:00.001", 360_000_001), ("00:00.00", nil),
        ("00:0:00.000", nil), ("00:00:01,000", nil), ("00:00:01", nil), ("0:01.000", nil),
    ]

    @Test("WebVTT timestamps", arguments: vttTimes)
    func webVTTTime(_ text: String, _ millis: Int64?) {
        let vtt = "WEBVTT\n\n\(text) --> 200:00:00.000\nx\n"
        let cues = CaptionReader.read(Array(vtt.utf8), file: "t.vtt").document?.cues
        #expect(cues?.first?.start == millis.map { Time(value: $0, timescale: 1000) })
    }

    static let markup: [(String, String)] = [
        ("<b>bold</b> plain", "{\\b1}bold{\\b0} plain"),
        ("<i>a\nb</i>", "{\\i1}a\\Nb{\\i0}"),
        ("<font color=\"#00ff00\">g</font>", "{\\c&H00FF00&}g{\\c}"),
        ("{not a tag}", "\u{FF5B}not a tag}"),
        ("a\\Nb", "a\u{FF3C}Nb"),
    ]

    @Test("SubRip markup becomes ASS event text", arguments: markup)
    func subRipMarkup(_ text: String, _ ass: String) {
        let cues = CaptionReader.read(Array("1\n00:00:00,000 --> 00:00:01,000\n\(text)\n".utf8), file: "t.srt").document?.cues
        #expect(cues?.first?.text == ass)
    }

    @Test("WebVTT spans keep their text; ruby annotations, timestamps and entities")
    func webVTTMarkup() {
        let vtt = "WEBVTT\n\n00:00.000 --> 00:01.000\n<v Roger>Hi</v> <ruby>漢<rt>kan</rt></ruby> &amp; <00:00.500><c.x>go</c>\n"
        let cues = CaptionReader.read(Array(vtt.utf8), file: "t.vtt").document?.cues
        #expect(cues?.first?.plainText == "Hi 漢 & go")
    }

    /// Timing-line settings and what they read as (the androidx/media cases: unknown or malformed values are
    /// ignored, so the defaults stay).
    static let settings: [(String, WebVTTCueSettings?)] = {
        var first = WebVTTCueSettings()
        first.position = 60
        first.positionAlign = .end
        first.align = .left
        first.size = 35
        var percentLine = WebVTTCueSettings()
        percentLine.line = .percent(45)
        percentLine.lineAlign = .end
        percentLine.align = .center
        var numberLine = WebVTTCueSettings()
        numberLine.line = .number(-10)
        numberLine.align = .center
        var right = WebVTTCueSettings()
        right.align = .right
        var olderDraft = WebVTTCueSettings()
        olderDraft.position = 20
        olderDraft.positionAlign = .start
        var lineRight = WebVTTCueSettings()
        lineRight.position = 70
        lineRight.positionAlign = .end
        return [
            ("position:60%,end align:start size:35%", first),
            ("position:10 align:end", right),
            ("line:45%,end align:middle", percentLine),
            ("line:-10 align:middle", numberLine),
            ("position:20%,start", olderDraft),
            ("position:70%,line-right", lineRight),
            ("region:foo size:101% position:-5% line:1e2 align:justify", nil),
        ]
    }()

    @Test("WebVTT cue settings are read as the W3C parser reads them", arguments: settings)
    func webVTTSettings(_ line: String, _ expected: WebVTTCueSettings?) {
        let vtt = "WEBVTT\n\n00:00.000 --> 00:01.000 \(line)\nx\n"
        let cue = CaptionReader.read(Array(vtt.utf8), file: "t.vtt").document?.cues.first
        #expect(cue?.settings == expected)
    }

    @Test("WebVTT cue settings become alignment and position tags and margins")
    func webVTTPlacement() {
        let size = PixelSize(width: 1000, height: 500)
        func placed(_ line: String) -> (tags: String, marginLeft: Int, marginRight: Int)? {
            let vtt = "WEBVTT\n\n00:00.000 --> 00:01.000 \(line)\nx\n"
            let cue = CaptionReader.read(Array(vtt.utf8), file: "t.vtt").document?.cues.first
            return cue?.settings?.placement(renderSize: size, style: CaptionStyle(size: 25, margin: 20))
        }
        // A 35 % box whose right edge is at 60 %: 250…600 px, text left-aligned in it, placed by the style (bottom).
        #expect(placed("position:60%,end align:start size:35%").map { [$0.tags, "\($0.marginLeft)", "\($0.marginRight)"] }
                == ["{\\an1}", "250", "400"])
        // The top line: the style's margin from the top; left-aligned in the style's 90 % band.
        #expect(placed("line:0 align:start")?.tags == "{\\an7\\pos(50,20)}")
        // The bottom line but one: one line (the style's size) above the bottom margin.
        #expect(placed("line:-2")?.tags == "{\\an2\\pos(500,455)}")
        // 40 % down, the box's middle there.
        #expect(placed("line:40%,center")?.tags == "{\\an5\\pos(500,200)}")
        // A box from 20 % to the right edge, trimmed to the band: 200…950 px, centred at 575.
        #expect(placed("position:20%,line-left").map { [$0.tags, "\($0.marginLeft)", "\($0.marginRight)"] }
                == ["{\\an2}", "200", "50"])
    }

    @Test("a file that is not UTF-8 is refused at the line of its first bad byte")
    func notUTF8() {
        let bytes = Array("1\n00:00:00,000 --> 00:00:01,000\n".utf8) + [0xC3, 0x28] + Array("\n".utf8)
        let reading = CaptionReader.read(bytes, file: "t.srt")
        #expect(reading.document == nil)
        #expect(reading.problems.map(\.line) == [3])
    }
}

/// Bounds on a cue's text met while reading, whatever the format (issue 33, point 18): libass's time grows with
/// the square of override nesting, so a hostile cue is dropped with a warning at its line and the rest is read.
@Suite struct CueBoundsTests {
    @Test func deeplyNestedOverridesAreDroppedAtTheirLine() {
        let nested = String(repeating: #"{\t("#, count: 100_000)
        let script = """
            [Script Info]
            ScriptType: v4.00+

            [Events]
            Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text
            Dialogue: 0,0:00:00.00,0:00:01.00,Default,,0,0,0,,Fine
            Dialogue: 0,0:00:00.00,0:00:01.00,Default,,0,0,0,,\(nested)x
            Dialogue: 0,0:00:00.00,0:00:01.00,Default,,0,0,0,,{\\t(0,500,\\clip(0,0,10,10))}Allowed
            """
        let reading = CaptionReader.read(Array(script.utf8), file: "deep.ass")
        #expect(reading.document?.cues.map(\.number) == [1, 3])
        #expect(reading.problems.map(\.description) == [
            "deep.ass:7: cue 2: an override block nests parentheses more than 8 deep; the cue is dropped",
        ])
    }

    @Test func aCueOverAMegabyteIsDropped() {
        let long = String(repeating: "a", count: 1_100_000)
        let text = "1\n00:00:00,000 --> 00:00:01,000\nshort\n\n2\n00:00:01,000 --> 00:00:02,000\n\(long)\n"
        let reading = CaptionReader.read(Array(text.utf8), file: "long.srt")
        #expect(reading.document?.cues.map(\.number) == [1])
        #expect(reading.problems.map(\.description) == [
            "long.srt:6: cue 2: the cue's text is 1100000 bytes long, more than 1048576; the cue is dropped",
        ])
    }
}
