import Foundation
import ReelModel
import ReelTime

/// The checks of burned-in captions that need the machine's fonts, as for titles (SPEC §5): a caption style's
/// family that fontconfig does not know is an error naming the closest installed families, a font file that is
/// missing a missing input; a character of a cue that no installed font has is a warning naming it (with the
/// file, line and cue), never a silent box.
enum CaptionCheck {
    static func diagnostics(for compiled: CompiledProject) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = timedTextDiagnostics(for: compiled)
        var families: [String]?
        for entry in compiled.videoComposition.captions where entry.captions.mode.burns {
            let captions = entry.captions
            let fontPath = captions.path.key("style").key("font")
            var font: String? = nil
            if let written = captions.style.font, entry.assHeader == nil {
                switch LayerCheck.checkFont(written, isFile: captions.style.fontIsFile, at: fontPath,
                                            resolvedPath: compiled.resolvedPath, families: &families,
                                            installed: { (try? TextRasterizer.families()) ?? [] }) {
                case .usable(let usable): font = usable
                case .refused(let diagnostic):
                    diagnostics.append(diagnostic)
                    continue
                }
            }
            // One layout of every distinct character first; cue by cue only when something is missing.
            let characters = String(Set(entry.cues.flatMap { $0.plainText }).filter { !$0.isWhitespace })
            guard !characters.isEmpty,
                  let missing = try? TextRasterizer.missingCharacters(TextStyle(text: characters, font: font, size: 24)),
                  !missing.isEmpty else { continue }
            for character in missing {
                let cue = entry.cues.first { $0.plainText.contains(character) }
                let codes = character.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }
                var diagnostic = Diagnostic(
                    .warning, path: captions.path.key("file"),
                    message: (cue.map { "cue \($0.number): " } ?? "")
                        + "no installed font has \"\(character)\" (\(codes.joined(separator: " "))); it would show as a box",
                    hint: "install a font with this character (fc-list ':charset=\(String(character.unicodeScalars.first?.value ?? 0, radix: 16))')")
                if let cue, cue.line > 0 { diagnostic.origin = DiagnosticOrigin(file: captions.file, line: cue.line) }
                diagnostics.append(diagnostic)
            }
        }
        return diagnostics
    }

    /// The most text one MP4/MOV timed-text (mov_text) sample holds, in bytes: its length is 16 bits (FFmpeg's
    /// encoder refuses more with ERANGE); the style boxes after it do not count.
    static let movTextSampleLimit = 65_535

    /// Streamed captions going into an MP4 or MOV output, whose timed-text samples (one for each stretch between cue
    /// starts and ends, holding every cue shown then) would be over `movTextSampleLimit`: an error at the first cue
    /// of the first such stretch (exit 65), where the render would fail at that cue.
    static func timedTextDiagnostics(for compiled: CompiledProject) -> [Diagnostic] {
        let containers = ([compiled.output] + compiled.outputs).map {
            $0.format ?? $0.path.flatMap(ContainerFormat.init(pathExtensionOf:)) ?? .mp4
        }
        guard containers.contains(where: { $0 == .mp4 || $0 == .mov }) else { return [] }
        var diagnostics: [Diagnostic] = []
        for entry in compiled.videoComposition.captions where entry.captions.mode.streams {
            let cues = entry.cues.filter { $0.style != CaptionStyle.boxStyleName }
            // A sweep over the cues' starts and ends: the size of each stretch is the sum of the cues shown in it.
            let sizes = cues.map(movTextSize)
            var changes: [(time: Time, index: Int, starts: Bool)] = []
            for (index, cue) in cues.enumerated() where cue.start < cue.end {
                changes.append((cue.start, index, true))
                changes.append((cue.end, index, false))
            }
            changes.sort { ($0.time, $0.starts ? 1 : 0) < ($1.time, $1.starts ? 1 : 0) }
            // The texts of the cues shown together are joined by a line break each.
            var shown = -1
            var active: Set<Int> = []
            var position = 0
            while position < changes.count {
                let time = changes[position].time
                while position < changes.count, changes[position].time == time {
                    let change = changes[position]
                    if change.starts {
                        active.insert(change.index)
                        shown += sizes[change.index]
                    } else {
                        active.remove(change.index)
                        shown -= sizes[change.index]
                    }
                    position += 1
                }
                guard shown > movTextSampleLimit, let first = active.min() else { continue }
                let cue = cues[first]
                let together = active.count == 1 ? "" : " with the \(active.count - 1) other cues shown at the same time"
                var diagnostic = Diagnostic(
                    path: entry.captions.path.key("file"),
                    message: "cue \(cue.number): its MP4 timed-text sample\(together) would hold \(shown) bytes of text, "
                        + "more than the \(movTextSampleLimit) one sample holds",
                    time: cue.start,
                    hint: "split the cue into shorter ones, burn the captions in (\"mode\": \"burn\"), or stream them to "
                        + "Matroska (.mkv) or WebM")
                if cue.line > 0 { diagnostic.origin = DiagnosticOrigin(file: entry.captions.file, line: cue.line) }
                diagnostics.append(diagnostic)
                break
            }
        }
        return diagnostics
    }

    /// What one cue adds to a mov_text sample's text, as FFmpeg's encoder writes it: its plain text and the line
    /// break that joins it to the next.
    private static func movTextSize(_ cue: CaptionCue) -> Int {
        ASSText.plain(cue.text).utf8.count + 1
    }
}
