import Foundation
import ReelModel

/// The checks of burned-in captions that need the machine's fonts, as for titles (SPEC §5): a caption style's
/// family that fontconfig does not know is an error naming the closest installed families, a font file that is
/// missing a missing input; a character of a cue that no installed font has is a warning naming it (with the
/// file, line and cue), never a silent box.
enum CaptionCheck {
    static func diagnostics(for compiled: CompiledProject) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
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
                if let cue, cue.line > 0 { diagnostic.origin = "\(captions.file):\(cue.line)" }
                diagnostics.append(diagnostic)
            }
        }
        return diagnostics
    }
}
