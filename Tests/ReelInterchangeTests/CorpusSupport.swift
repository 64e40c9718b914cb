import Foundation
import ReelInterchange
import ReelModel
import ReelTime
import ReelUnitTestSupport
import Testing

/// The interchange corpus in ../shared/interchange (MANIFEST.md): real files from OpenTimelineIO, its CMX adapter,
/// Kdenlive, pycmx, python-edl, edl-genius, toucan and raven.
enum Corpus {
    static let folder = Workplace.interchange.url

    /// Whether the corpus folder is here; suites that read it are enabled only then.
    static let isPresent = Workplace.interchange.isPresent
    /// Why a suite that reads the corpus did not run.
    static let absence = Comment(rawValue: Workplace.interchange.absence)

    /// The bytes of `name` (folder/file), or nil with a recorded test failure: the corpus is here, so a file
    /// missing from it is a fault, not a reason to skip.
    static func bytes(_ name: String) -> [UInt8]? {
        let url = folder.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            Issue.record("\(url.path) is missing from the interchange corpus")
            return nil
        }
        return [UInt8](data)
    }

    /// `name` read as its extension says, or nil with a recorded test failure (a missing file, or an extension
    /// that names no interchange format), so a test that ends early on nil never passes.
    static func read(_ name: String, frameRate: Rational? = nil) -> ImportedEdit? {
        guard let bytes = bytes(name) else { return nil }
        guard let format = InterchangeFormat(path: name) else {
            Issue.record("\(name): its extension names no interchange format")
            return nil
        }
        return Interchange.read(bytes, format: format, fileName: (name as NSString).lastPathComponent, frameRate: frameRate)
    }
}

/// An imported track in OTIO's terms, counted in frames at a rate: `C12` a clip of 12 frames, `G8` a gap,
/// `T0/10` a transition with in/out offsets, `K5` a black piece.
func frames(_ time: Time, at rate: Rational) -> String {
    let product = (try? time.multiplied(by: rate)) ?? time
    return product.timescale == 1 ? String(product.value) : "\(product.value)/\(product.timescale)"
}

func summary(_ track: ImportedTrack, rate: Rational) -> [String] {
    track.items().map { item in
        switch item {
        case .gap(let duration): "G" + frames(duration, at: rate)
        case .transition(let transition): "T" + frames(transition.inOffset, at: rate) + "/" + frames(transition.outOffset, at: rate)
        case .piece(let piece):
            (piece.content == .black ? "K" : "C") + frames(piece.recordDuration, at: rate)
        }
    }
}

func errors(_ edit: ImportedEdit) -> [Diagnostic] { edit.diagnostics.filter { $0.severity == .error } }
