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
                if captions.style.fontIsFile {
                    let file = compiled.resolvedPath(written)
                    guard FileManager.default.isReadableFile(atPath: file) else {
                        diagnostics.append(Diagnostic(path: fontPath, message: "font file \(written) is missing or unreadable",
                                                      hint: "check the path (relative paths start at the project's folder)",
                                                      category: .missingInput))
                        continue
                    }
                    guard TextRasterizer.registerFontFile(file) != nil else {
                        diagnostics.append(Diagnostic(path: fontPath, message: "\(written) is not a font file fontconfig can read",
                                                      hint: "use a TrueType, OpenType or Type 1 font file, or a family name"))
                        continue
                    }
                    font = file
                } else {
                    if families == nil { families = (try? TextRasterizer.families()) ?? [] }
                    if let known = families, !LayerCheck.genericFamilies.contains(written.lowercased()),
                       !known.contains(where: { $0.caseInsensitiveCompare(written) == .orderedSame }) {
                        diagnostics.append(Diagnostic(path: fontPath, message: "no installed font family is called \"\(written)\"",
                                                      hint: LayerCheck.hint(for: written, among: known)))
                        continue
                    }
                    font = written
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
