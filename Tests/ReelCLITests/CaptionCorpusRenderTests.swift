import Foundation
import ReelTestSupport
import Testing

private let corpus = Workplace.captions.url.path
private let corpusPresent = FileManager.default.fileExists(atPath: corpus + "/MANIFEST.md")
private let corpusAbsence = Comment(rawValue: Workplace.captions.absence)

/// Issue 22: every subtitle file of ../shared/captions either burns in (ink on the frames of its first, middle and
/// last surviving cue, read back from `reel thumbnail`) or is refused with exit 65 and a diagnostic that names the
/// file and line, for the reason docs/captions.md gives.
@Suite struct CaptionCorpusRenderTests {
    struct Case: Sendable, CustomStringConvertible {
        let file: String
        var encoding: String? = nil
        /// The start of the refusal's first error line (after the path), nil when the file renders.
        var refusal: String? = nil
        /// The least number of inked pixels on each sampled frame.
        var minimumInk = 60
        var description: String { file + (encoding.map { " (\($0))" } ?? "") }
    }

    static let cases: [Case] = [
        .init(file: "ass_aegisub_override_tour.ass"),
        .init(file: "ass_cjk_vertical_many_styles.ass"),
        .init(file: "ass_embedded_font.ass"),
        .init(file: "ass_karaoke_k_kf_fad.ass"),
        .init(file: "ass_malformed_invalid_timecodes.ass"),
        .init(file: "ass_overlapping_out_of_order.ass"),
        .init(file: "ass_positioning_pos_move_an.ass"),
        .init(file: "srt_cjk_bilingual_zh_en.srt"),
        .init(file: "srt_cjk_gbk_encoded.srt", refusal: ":3: error: $.timeline.captions[0].file: the file is not UTF-8"),
        .init(file: "srt_cjk_gbk_encoded.srt", encoding: "gbk"),
        .init(file: "srt_cr_only_bom.srt"),
        .init(file: "srt_malformed_bad_timestamps.srt"),
        .init(file: "srt_malformed_blank_lines_in_cue.srt"),
        .init(file: "srt_malformed_missing_timecode.srt"),
        .init(file: "srt_malformed_negative_timestamps.srt"),
        .init(file: "srt_malformed_out_of_order.srt"),
        .init(file: "srt_no_indexes_mixed_separators.srt"),
        .init(file: "srt_rtl_hebrew_bidi.srt"),
        .init(file: "srt_styled_font_color.srt"),
        // Its styles ask for 4 to 6 px type at PlayResY 600: a pixel or two of ink at 360 lines, as libass draws it.
        .init(file: "ssa_v4_multiple_styles.ssa", minimumInk: 1),
        // Timestamps without milliseconds (00:01:39) are invalid WebVTT: every cue is dropped (each with a warning
        // that gives its line) and the file refused.
        .init(file: "vtt_bom_note_style_legacy_region.vtt", refusal: ": error: $.timeline.captions[0].file: no valid cue in the file"),
        .init(file: "vtt_invalid_double_signature.vtt", refusal: ":1: error: $.timeline.captions[0].file: not a WebVTT file"),
        .init(file: "vtt_invalid_missing_header.vtt", refusal: ":1: error: $.timeline.captions[0].file: not a WebVTT file"),
        .init(file: "vtt_positioning_cue_settings_notes.vtt"),
        .init(file: "vtt_spec_example_overlap_align_size.vtt"),
        .init(file: "vtt_style_blocks_voice_class.vtt"),
        .init(file: "vtt_talk_voices_inline_tags.vtt"),
        // Cue 1 is a single short word.
        .init(file: "vtt_wpt_cue_text_tags.vtt", minimumInk: 20),
        .init(file: "vtt_wpt_invalid_timestamps.vtt"),
        .init(file: "vtt_wpt_newlines_cr_lf_crlf.vtt"),
        .init(file: "vtt_wpt_region_blocks_settings.vtt"),
        .init(file: "vtt_youtube_inline_timestamps.vtt"),
    ]

    @Test("the table names every subtitle file of the corpus",
          .enabled(if: corpusPresent, corpusAbsence))
    func everyFileIsListed() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: corpus)
            .filter { !$0.hasSuffix(".md") && !$0.hasSuffix(".json") }
        #expect(Set(files) == Set(Self.cases.map(\.file)))
    }

    @Test(.enabled(if: corpusPresent, corpusAbsence), arguments: cases)
    func burnsInOrIsRefusedWithItsLine(_ test: Case) throws {
        let folder = try TemporaryDirectory(prefix: "reel-caption-corpus")
        let reel = try builtExecutable(named: "reel")
        var captions: [String: Any] = ["file": corpus + "/" + test.file]
        if let encoding = test.encoding { captions["encoding"] = encoding }
        // A dark grey clip three hours long (the corpus has cues two hours in), 640×360.
        let project: [String: Any] = [
            "reel": 1,
            "output": ["path": "out.mp4", "size": [640, 360], "frameRate": 25, "audio": false],
            "assets": ["c": ["color": "#202020"]],
            "timeline": ["clips": [["asset": "c", "duration": 10_800]], "captions": [captions]],
        ]
        let path = folder.file("p.json")
        try JSONSerialization.data(withJSONObject: project).write(to: path)
        let compiled = try run(reel.path, ["compile", path.path])
        if let refusal = test.refusal {
            #expect(compiled.status == 65, "\(compiled.stderrText)")
            // Every diagnostic reads `FILE:LINE: severity: $.path: message` (docs/format.md, "Validation").
            let place = corpus + "/" + test.file
            let errors = compiled.stderrText.split(separator: "\n").filter { $0.hasPrefix(place) && $0.contains(": error: ") }
            #expect(errors.first?.hasPrefix(place + refusal) == true, "\(compiled.stderrText)")
            // A line number follows the file name, in the error or else in the warnings that dropped each cue.
            let lines = refusal.dropFirst().first?.isNumber == true
                ? errors : compiled.stderrText.split(separator: "\n").filter { $0.hasPrefix(place) && $0.contains(": warning: ") }
            #expect(!lines.isEmpty, "\(compiled.stderrText)")
            for line in lines {
                let after = line.dropFirst((place + ":").count)
                #expect(after.first?.isNumber == true, "\(line)")
            }
            return
        }
        #expect(compiled.status == 0, "\(compiled.stderrText)")
        let explicit = try JSONSerialization.jsonObject(with: compiled.stdout)
        let cues = try #require(Self.cues(in: explicit), "no cues in the compiled project")
        try #require(!cues.isEmpty)
        let middles = [0, cues.count / 2, cues.count - 1].map { index -> String in
            let start = cues[index]["start"] as? Double ?? 0, end = cues[index]["end"] as? Double ?? 0
            return String(format: "%.3f", (start + end) / 2)
        }
        let shots = folder.file("shot-%d.png").path
        let result = try run(reel.path, ["thumbnail", path.path, "--at", middles.joined(separator: ","), "-o", shots])
        #expect(result.status == 0, "\(result.stderrText)")
        for index in 0...2 {
            let luma = try runChecked("ffmpeg", ["-v", "error", "-i", folder.file("shot-\(index).png").path,
                                                 "-f", "rawvideo", "-pix_fmt", "gray", "-"])
            #expect(luma.count == 640 * 360)
            // The clip is grey 32; ink is anything 40 levels away from it.
            let ink = luma.reduce(0) { $0 + (abs(Int($1) - 32) > 40 ? 1 : 0) }
            #expect(ink >= test.minimumInk, "\(test): \(ink) inked pixels at \(middles[index]) s")
        }
    }

    /// The first `cues` array in a compiled project.
    static func cues(in json: Any) -> [[String: Any]]? {
        if let object = json as? [String: Any] {
            if let cues = object["cues"] as? [[String: Any]] { return cues }
            for value in object.values { if let found = cues(in: value) { return found } }
        } else if let array = json as? [Any] {
            for value in array { if let found = cues(in: value) { return found } }
        }
        return nil
    }
}
