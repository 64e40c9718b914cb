import Foundation
import ReelInterchange
import ReelModel
import ReelTime
import Testing

/// Every input `make fuzz` ever failed on (Tests/Fuzz/Regressions/TARGET/), and the seeds, replayed through what
/// the fuzz targets run (Tests/Fuzz/Harness/FuzzTargets.swift): each must finish, accepted or refused with
/// diagnostics, and a JSON document must survive the writer. A crash or trap here fails the whole test run.
@Suite struct FuzzRegressionTests {
    static let fuzzFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz")

    /// The files of `Regressions/target` and `Seeds/target`.
    static func inputs(_ target: String) -> [URL] {
        ["Regressions", "Seeds"].flatMap { kind -> [URL] in
            let folder = fuzzFolder.appendingPathComponent(kind).appendingPathComponent(target)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
        }
    }

    @Test func theSeedsAreThere() {
        for target in ["json", "project", "cmx", "otio", "srt", "vtt", "ass", "transcript"] {
            #expect(!Self.inputs(target).isEmpty, "no seeds for \(target) in \(Self.fuzzFolder.path)")
        }
    }

    @Test func jsonInputsRoundTripThroughTheWriter() throws {
        for url in Self.inputs("json") {
            let bytes = [UInt8](try Data(contentsOf: url))
            guard let parsed = try? JSONParser.parse(bytes) else { continue }
            let written = JSONWriter.write(parsed.value, pretty: false)
            #expect((try? JSONParser.parse(written)) == parsed, "\(url.lastPathComponent): \(written.prefix(200))")
        }
    }

    @Test func projectInputsLintWithoutMedia() throws {
        for url in Self.inputs("project") {
            _ = Self.lint([UInt8](try Data(contentsOf: url)))
        }
    }

    @Test(arguments: [("cmx", InterchangeFormat.edl, "fuzz.edl"), ("otio", .otio, "fuzz.otio")])
    func interchangeInputsImportAndLint(target: (name: String, format: InterchangeFormat, file: String)) throws {
        for url in Self.inputs(target.name) {
            let imported = Interchange.importProject(
                [UInt8](try Data(contentsOf: url)), format: target.format, fileName: target.file,
                baseDirectory: "/nonexistent-reel-fuzz", projectDirectory: "/nonexistent-reel-fuzz",
                options: InterchangeOptions(frameRate: Rational(25, 1)))
            _ = Self.lint(Array(imported.text.utf8))
        }
    }

    @Test(arguments: [("srt", CaptionFormat.subRip), ("vtt", .webVTT), ("ass", .ass)])
    func captionInputsReadWithOrderedCues(target: (name: String, format: CaptionFormat)) throws {
        for url in Self.inputs(target.name) {
            let reading = CaptionReader.read([UInt8](try Data(contentsOf: url)), file: url.lastPathComponent,
                                             format: target.format)
            for cue in reading.document?.cues ?? [] {
                _ = cue.plainText
                #expect(cue.start <= cue.end, "\(url.lastPathComponent): cue \(cue.number)")
            }
        }
    }

    @Test func transcriptInputsReadAndPage() throws {
        for url in Self.inputs("transcript") {
            let (words, _) = TranscriptReader.read([UInt8](try Data(contentsOf: url)), file: url.lastPathComponent)
            guard let words else { continue }
            let cues = TranscriptPager.cues(words, style: CaptionStyle(), highlight: CaptionHighlight(),
                                            renderSize: PixelSize(width: 1280, height: 720), measure: TranscriptPager.estimate)
            #expect(cues.allSatisfy { $0.start <= $0.end }, "\(url.lastPathComponent)")
        }
    }

    /// `reel validate --no-probe` in ReelModel's terms: read, compile, validate; the diagnostics.
    static func lint(_ bytes: [UInt8]) -> [Diagnostic] {
        let reading = ProjectReader.readDocument(bytes, baseDirectory: "/nonexistent-reel-fuzz")
        guard let project = reading.project else { return reading.diagnostics }
        return reading.diagnostics + ProjectCheck.run(project, facts: [:], probed: false).diagnostics
    }
}
