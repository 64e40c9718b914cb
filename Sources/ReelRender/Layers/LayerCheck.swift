import Foundation
import ReelModel
import ReelTime

/// The checks of titles that need the machine's fonts (SPEC §3.5, §5): a family fontconfig does not know is an
/// error naming the closest installed families; a font file that is missing is a missing input, one that is not a
/// font is invalid; a character no installed font has is a warning naming it, never a silent box.
enum LayerCheck {
    /// Problems with the fonts and characters of `project`'s titles (both forms).
    static func diagnostics(for project: Project, cache: ProbeCache? = nil) -> [Diagnostic] {
        let titles = (project.timeline?.titles ?? []) + (project.videoComposition?.titles ?? [])
        guard !titles.isEmpty else { return [] }
        var diagnostics: [Diagnostic] = []
        var families: [String]?
        for layer in titles {
            guard case .text(let written) = layer.content else { continue }
            // Movie-time tokens are checked as digits and colons, which is what they show.
            var style = written.showing(frame: 0, frameDuration: Time(value: 1, timescale: 30))
            let fontPath = layer.path.key("font")
            if let font = style.font {
                switch checkFont(font, isFile: style.fontIsFile, fallbacks: style.fallbackFonts, at: fontPath,
                                 resolvedPath: project.resolvedPath, families: &families,
                                 installed: { cache?.fontFamilies() ?? (try? TextRasterizer.families()) ?? [] }) {
                case .usable(let usable): style.font = usable
                case .refused(let diagnostic):
                    diagnostics.append(diagnostic)
                    continue
                }
            }
            // The raster a title is drawn into is at most 16384 pixels on a side (at the render scale).
            // Measured as drawn: the box with its padding, the outline, and the shadow with its offset and blur.
            if let measured = try? TextRasterizer.measure(style) {
                let scale = project.output.renderScale.doubleValue
                let bounds = TextRasterizer.drawnBounds(measured, style: style, scale: 1)
                let width = (bounds.maxX - bounds.minX) * scale, height = (bounds.maxY - bounds.minY) * scale
                if width > 16000 || height > 16000 {
                    diagnostics.append(Diagnostic(
                        path: layer.path.key("size"),
                        message: "the title is \(Int(width.rounded()))×\(Int(height.rounded())) pixels as drawn at size \(ProjectWriter.numberText(style.size)) (text, padding, outline and shadow), more than 16000 on a side",
                        hint: "use a smaller size, padding or shadow offset, or break the text into shorter lines"))
                    continue
                }
            }
            let missing = (try? TextRasterizer.missingCharacters(style)) ?? []
            if !missing.isEmpty {
                let named = missing.map { character in
                    let codes = character.unicodeScalars.map { "U+" + String($0.value, radix: 16, uppercase: true) }
                    return "\"\(character)\" (\(codes.joined(separator: " ")))"
                }
                diagnostics.append(Diagnostic(
                    .warning, path: layer.path.key("text"),
                    message: "no installed font has \(named.joined(separator: ", ")); it would show as a box",
                    hint: "install a font with these characters (fc-list ':charset=\(String(missing[0].unicodeScalars.first!.value, radix: 16))'), or remove them"))
            }
        }
        return diagnostics
    }

    /// What `checkFont` found.
    enum FontCheck {
        /// The font to draw with: a file's absolute path (registered with fontconfig) or the family as written.
        case usable(String)
        /// The error that refuses it.
        case refused(Diagnostic)
    }

    /// The one check of a font a title or a caption style names (`font`, with `fallbacks` after it for a family
    /// list): a file must exist (else a missing input) and be a font fontconfig reads; a family, or one of a
    /// list, must be installed or generic, else the error's hint names the closest installed families.
    /// `families` caches the installed families across calls; `installed` lists them the first time.
    static func checkFont(_ font: String, isFile: Bool, fallbacks: [String] = [], at path: JSONPath,
                          resolvedPath: (String) -> String, families: inout [String]?,
                          installed: () -> [String]) -> FontCheck {
        if isFile {
            let file = resolvedPath(font)
            // Told without opening the file: fontconfig would block forever on a FIFO.
            if let refused = LocalInputFile.diagnostic(for: InputFileReference(kind: .font, written: font, path: path),
                                                       resolvedPath: resolvedPath) {
                return .refused(refused)
            }
            guard TextRasterizer.registerFontFile(file) != nil else {
                return .refused(Diagnostic(path: path, message: "\(font) is not a font file fontconfig can read",
                                           hint: "use a TrueType, OpenType or Type 1 font file, or a family name"))
            }
            return .usable(file)
        }
        if families == nil { families = installed() }
        let known = families ?? []
        func isInstalled(_ name: String) -> Bool {
            genericFamilies.contains(name.lowercased()) || known.contains { $0.caseInsensitiveCompare(name) == .orderedSame }
        }
        // A list is a fallback chain: it is enough that one of its families is installed.
        let listed = [font] + fallbacks
        guard listed.contains(where: isInstalled) else {
            let message = listed.count == 1 ? "no installed font family is called \"\(font)\""
                : "none of the font families " + listed.map { "\"\($0)\"" }.joined(separator: ", ") + " is installed"
            return .refused(Diagnostic(path: path, message: message, hint: hint(for: font, among: known)))
        }
        return .usable(font)
    }

    /// The generic names fontconfig resolves to a configured family (CSS's and fontconfig's own).
    static let genericFamilies: Set<String> = ["sans-serif", "sans", "serif", "monospace", "mono", "cursive",
                                                       "fantasy", "system-ui", "emoji"]

    /// "did you mean" the closest families, else a few installed ones.
    static func hint(for font: String, among families: [String]) -> String {
        let lower = font.lowercased()
        let close = families.filter { $0.lowercased().contains(lower) || lower.contains($0.lowercased()) }
        if let suggested = suggestion(for: font, among: families) {
            return "did you mean \"\(suggested)\"? (fc-list : family lists the installed families)"
        }
        if !close.isEmpty {
            return "installed families like it: " + close.prefix(5).joined(separator: ", ")
        }
        return "installed families include " + families.prefix(6).joined(separator: ", ") + " (fc-list : family lists them all)"
    }
}
