import Foundation
import ReelInterchange
import ReelModel
import ReelTime

/// The parsers of untrusted text that `make fuzz` drives with libFuzzer, one per `REEL_FUZZ_TARGET` value.
///
/// Each target takes arbitrary bytes and must return: any input is either accepted or refused with
/// diagnostics, never a crash, a trap, a hang or a leak. Nothing here opens media (`--no-probe` semantics).
enum FuzzTarget: String, CaseIterable {
    /// `JSONParser.parse`, then the writer: whatever parses must be written back and parse again to an equal value.
    case json
    /// A reel project: read, compiled and validated with no media opened.
    case project
    /// A CMX 3600 EDL imported into a project, which is then read, compiled and validated.
    case cmx
    /// An OpenTimelineIO document imported into a project, which is then read, compiled and validated.
    case otio
    /// A SubRip file read as captions (and its cues' text stripped of markup).
    case srt
    /// A WebVTT file read as captions.
    case vtt
    /// An ASS/SSA script read as captions.
    case ass
    /// A word-level transcript read and paged into cues.
    case transcript

    /// Runs the target on one input.
    func run(_ bytes: [UInt8]) {
        switch self {
        case .json:
            guard let parsed = try? JSONParser.parse(bytes) else { return }
            let written = JSONWriter.write(parsed.value, pretty: false)
            guard let reparsed = try? JSONParser.parse(written), reparsed == parsed else {
                fatalError("the JSON writer's text does not parse back to the same value: \(written.prefix(200))")
            }
        case .project:
            lint(bytes)
        case .cmx:
            importAndLint(bytes, format: .edl, fileName: "fuzz.edl")
        case .otio:
            importAndLint(bytes, format: .otio, fileName: "fuzz.otio")
        case .srt:
            readCaptions(bytes, format: .subRip, fileName: "fuzz.srt")
        case .vtt:
            readCaptions(bytes, format: .webVTT, fileName: "fuzz.vtt")
        case .ass:
            readCaptions(bytes, format: .ass, fileName: "fuzz.ass")
        case .transcript:
            let (words, _) = TranscriptReader.read(bytes, file: "fuzz.json")
            guard let words else { return }
            // Paged with the estimate of text widths, as validation does without fonts.
            _ = TranscriptPager.cues(words, style: CaptionStyle(), highlight: CaptionHighlight(),
                                     renderSize: PixelSize(width: 1280, height: 720), measure: TranscriptPager.estimate)
        }
    }

    /// A caption file read in `format`; every surviving cue's plain text is taken (the markup stripper runs too).
    private func readCaptions(_ bytes: [UInt8], format: CaptionFormat, fileName: String) {
        let reading = CaptionReader.read(bytes, file: fileName, format: format)
        for cue in reading.document?.cues ?? [] {
            _ = cue.plainText
            precondition(cue.start <= cue.end, "a cue of \(fileName) ends before it starts")
        }
    }

    /// `reel validate --no-probe` on a project document.
    private func lint(_ bytes: [UInt8]) {
        let reading = ProjectReader.readDocument(bytes, baseDirectory: fuzzDirectory)
        guard let project = reading.project else { return }
        _ = ProjectCheck.run(project, facts: [:], probed: false)
    }

    /// `reel validate --no-probe` on an interchange file: import, then lint the project it becomes.
    private func importAndLint(_ bytes: [UInt8], format: InterchangeFormat, fileName: String) {
        let imported = Interchange.importProject(
            bytes, format: format, fileName: fileName, baseDirectory: fuzzDirectory, projectDirectory: fuzzDirectory,
            options: InterchangeOptions(frameRate: Rational(25, 1)))
        lint(Array(imported.text.utf8))
    }
}

/// A folder that holds no media, so that relinking and relative paths find nothing and open nothing.
let fuzzDirectory = "/nonexistent-reel-fuzz"
