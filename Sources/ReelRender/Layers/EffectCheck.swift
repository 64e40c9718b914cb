import Foundation
import ReelMedia
import ReelModel

/// The checks of layer effects that need files (docs/effects.md): a LUT file that is missing or unreadable is a
/// missing input naming the effect's `file` and the path (exit 66); one that is not a 3D `.cube` table lut3d can
/// read is an invalid project naming the file and line (exit 65). Each effect is checked once, however many
/// layer instructions carry it. An audio effect's rnnoise model file (docs/effects.md, "Audio effects") is checked
/// the same way: missing or unreadable is exit 66, a file that is not an rnnoise model arnndn can load is exit 65;
/// a denoise's `learnFrom` must end inside the movie (exit 65; on a clip the compiler has checked it lies in the clip).
/// A mask image that is an SVG file librsvg cannot read is exit 65 at the mask's `image`.
enum EffectCheck {
    static func diagnostics(for compiled: CompiledProject) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        var seen = Set<JSONPath>()
        for instruction in compiled.videoComposition.instructions {
            for layer in instruction.layers {
                for effect in layer.effects where seen.insert(effect.path).inserted {
                    if case .mask(let mask) = effect.kind, let written = mask.image, let refused = LocalInputFile.diagnostic(
                        for: InputFileReference(kind: .maskImage, written: written, path: effect.path.key("image")),
                        resolvedPath: compiled.resolvedPath) {
                        diagnostics.append(refused)
                    } else if case .mask(let mask) = effect.kind, let written = mask.image, SVGImage.isSVG(written) {
                        // An SVG matte librsvg cannot read is found before anything is written (exit 65).
                        do {
                            _ = try SVGImage(path: compiled.resolvedPath(written))
                        } catch {
                            diagnostics.append(ProbedMedia.diagnostic(for: error, path: effect.path.key("image")))
                        }
                    }
                    guard case .lut(let written) = effect.kind else { continue }
                    let path = effect.path.key("file")
                    let file = compiled.resolvedPath(written)
                    if let refused = LocalInputFile.diagnostic(
                        for: InputFileReference(kind: .lut, written: written, path: path), resolvedPath: compiled.resolvedPath) {
                        diagnostics.append(refused)
                        continue
                    }
                    guard let data = FileManager.default.contents(atPath: file) else {
                        diagnostics.append(Diagnostic(path: path, message: "LUT file \(written) cannot be read",
                                                      category: .missingInput))
                        continue
                    }
                    // libavfilter's lut3d picks its reader by the file's extension, whatever the content.
                    let name = (written as NSString).lastPathComponent
                    guard (name as NSString).pathExtension.lowercased() == "cube" else {
                        diagnostics.append(Diagnostic(
                            path: path, message: "\(written): a LUT file's name must end in .cube (FFmpeg's lut3d reads "
                                + "the format its extension names)",
                            hint: "rename it to \((name as NSString).deletingPathExtension).cube"))
                        continue
                    }
                    if let problem = CubeFile.problem(in: data) {
                        var diagnostic = Diagnostic(
                            path: path, message: "\(written) is not a 3D LUT: \(problem.message)",
                            hint: "use a .cube file with LUT_3D_SIZE N (2 to 256) and N³ lines of three numbers")
                        if problem.line > 0 { diagnostic.origin = DiagnosticOrigin(file: written, line: problem.line) }
                        diagnostics.append(diagnostic)
                    }
                }
            }
        }
        let audioEffects = compiled.audioMix.inputs.flatMap(\.effects) + (compiled.output.audio?.effects ?? [])
        for effect in audioEffects where seen.insert(effect.path).inserted {
            let end = compiled.composition.duration
            if let learn = effect.learnFrom, learn.end > end {
                diagnostics.append(Diagnostic(
                    path: effect.path.key("learnFrom"),
                    message: "learnFrom ends at \(describeTime(learn.end, frameDuration: nil)), after the movie's end at \(describeTime(end, frameDuration: nil))",
                    hint: "learnFrom is in movie seconds here; name a stretch of noise alone inside the movie"))
            }
            guard let written = effect.modelFile else { continue }
            let path = effect.path.key("modelFile")
            if let refused = LocalInputFile.diagnostic(
                for: InputFileReference(kind: .denoiseModel, written: written, path: path), resolvedPath: compiled.resolvedPath) {
                diagnostics.append(refused)
                continue
            }
            guard let data = FileManager.default.contents(atPath: compiled.resolvedPath(written)) else {
                diagnostics.append(Diagnostic(path: path, message: "rnnoise model file \(written) cannot be read",
                                              category: .missingInput))
                continue
            }
            // arnndn reads text models whose first line is this header (rnnoise's own model format).
            if !data.starts(with: Data("rnnoise-nu model file version 1".utf8)) {
                diagnostics.append(Diagnostic(
                    path: path, message: "\(written) is not an rnnoise model: it does not start with \"rnnoise-nu model file version 1\"",
                    hint: "use a model file made for rnnoise (arnndn's m option), e.g. from the rnnoise-models collection"))
            }
        }
        return diagnostics
    }
}

/// The `.cube` 3D LUT format as libavfilter's lut3d reads it (Adobe's Cube LUT specification 1.0): keyword lines
/// (`TITLE`, `LUT_3D_SIZE N`, `DOMAIN_MIN r g b`, `DOMAIN_MAX r g b`), `#` comments and blank lines, then N³ lines
/// of three numbers, red changing fastest.
enum CubeFile {
    /// The first thing wrong with `data` as a 3D cube file, with its 1-based line (0: the whole file); nil when
    /// it is one.
    static func problem(in data: Data) -> (message: String, line: Int)? {
        if case .failure(let problem) = remembered(data) { return (problem.message, problem.line) }
        return nil
    }

    /// The table of `data` as lut3d loads it (`ThreeDLUT`), or what is wrong with it.
    static func table(in data: Data) -> ThreeDLUT? {
        if case .success(let table) = remembered(data) { return table }
        return nil
    }

    /// The last file read and what it read as: a render checks its LUT files, then loads the same bytes for the
    /// effect stage, and a 33-point table takes a tenth of a second to read.
    private static let last = Locked<(data: Data, read: Result<ThreeDLUT, Problem>)?>(nil)

    private static func remembered(_ data: Data) -> Result<ThreeDLUT, Problem> {
        if let known = last.withLock({ $0 }), known.data == data { return known.read }
        let read = read(data)
        last.withLock { $0 = (data, read) }
        return read
    }

    struct Problem: Error {
        let message: String
        let line: Int
    }

    private static func read(_ data: Data) -> Result<ThreeDLUT, Problem> {
        func problem(_ message: String, _ line: Int) -> Result<ThreeDLUT, Problem> {
            .failure(Problem(message: message, line: line))
        }
        guard let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .isoLatin1) else {
            return problem("it is not text", 0)
        }
        var size: Int?
        var rows = 0
        var values: [Float] = []
        var domainMin = [0.0, 0.0, 0.0], domainMax = [1.0, 1.0, 1.0]
        var lineNumber = 0
        let ascii = data.allSatisfy { $0 < 0x80 }
        for (number, line) in lines(of: text, ascii: ascii) {
            lineNumber = number
            if line.isEmpty || line.hasPrefix("#") { continue }
            // In ASCII every byte is a Character, so the words are found from the bytes (far faster).
            let words = ascii ? line.utf8.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 }).map { Substring($0) }
                : line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let keyword = words.first else { continue }
            if let first = keyword.first, first.isLetter {
                switch keyword {
                case "LUT_3D_SIZE":
                    guard words.count == 2, let n = Int(words[1]), (2...256).contains(n) else {
                        return problem("LUT_3D_SIZE must be a whole number from 2 to 256", lineNumber)
                    }
                    if size != nil { return problem("LUT_3D_SIZE is given twice", lineNumber) }
                    size = n
                    values.reserveCapacity(3 * n * n * n)
                case "LUT_1D_SIZE":
                    return problem("it is a 1D LUT (LUT_1D_SIZE); the lut effect takes 3D LUTs", lineNumber)
                case "DOMAIN_MIN", "DOMAIN_MAX":
                    let values = words.dropFirst().compactMap(Double.init)
                    guard words.count == 4, values.count == 3, values.allSatisfy(\.isFinite) else {
                        return problem("\(keyword) needs three numbers", lineNumber)
                    }
                    if keyword == "DOMAIN_MIN" { domainMin = values } else { domainMax = values }
                default:
                    // TITLE, LUT_3D_INPUT_RANGE and other keywords before the table are skipped, as lut3d does.
                    if rows > 0 { return problem("unexpected \(keyword) inside the table", lineNumber) }
                }
                continue
            }
            guard size != nil else { return problem("a table row comes before LUT_3D_SIZE", lineNumber) }
            let row = words.compactMap(Double.init)
            guard words.count == 3, row.count == 3, row.allSatisfy(\.isFinite) else {
                return problem("a table row needs three numbers, found \"\(line.prefix(40))\"", lineNumber)
            }
            // lut3d reads the numbers as floats (sscanf %f).
            values += words.compactMap(Float.init)
            rows += 1
        }
        guard let size else { return problem("LUT_3D_SIZE is missing", 0) }
        if zip(domainMin, domainMax).contains(where: { $0 >= $1 }) {
            return problem("DOMAIN_MIN must be below DOMAIN_MAX in every channel", 0)
        }
        if rows != size * size * size || values.count != 3 * rows {
            return problem("LUT_3D_SIZE \(size) needs \(size * size * size) rows, found \(rows)", lineNumber)
        }
        // lut3d's input scale: 1 / (max − min) of the domain (as floats), clipped to 0…1; the minimum is not subtracted.
        let scale = (0..<3).map { Float(min(max(1 / (Double(Float(domainMax[$0])) - Double(Float(domainMin[$0]))), 0), 1)) }
        return .success(ThreeDLUT(size: size, values: values, scale: (scale[0], scale[1], scale[2])))
    }

    /// The lines of `text` with their 1-based numbers, trimmed of white space. Any line end counts: "\r\n" is one
    /// Character in Swift, so splitting at "\n" alone would read a CR LF file as one line. `ascii`: `text` is ASCII,
    /// whose lines are found from its bytes (the same lines, a 35,937-row table read in a fraction of the time
    /// Character by Character takes).
    private static func lines(of text: String, ascii: Bool) -> [(number: Int, line: Substring)] {
        guard ascii else {
            return text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated().map {
                ($0.offset + 1, Substring($0.element.trimmingCharacters(in: .whitespacesAndNewlines)))
            }
        }
        // ASCII line ends: LF, VT, FF, CR (CR LF is one); white space left inside a line: spaces and tabs.
        var result: [(number: Int, line: Substring)] = []
        let bytes = text.utf8
        var start = bytes.startIndex, index = start, number = 0
        func take(_ end: String.Index) {
            number += 1
            var from = start, to = end
            while from < to, bytes[from] == 0x20 || bytes[from] == 0x09 { from = bytes.index(after: from) }
            while from < to {
                let last = bytes.index(before: to)
                guard bytes[last] == 0x20 || bytes[last] == 0x09 else { break }
                to = last
            }
            result.append((number, Substring(bytes[from..<to])))
        }
        while index < bytes.endIndex {
            let byte = bytes[index]
            guard (0x0A...0x0D).contains(byte) else {
                index = bytes.index(after: index)
                continue
            }
            take(index)
            index = bytes.index(after: index)
            if byte == 0x0D, index < bytes.endIndex, bytes[index] == 0x0A { index = bytes.index(after: index) }
            start = index
        }
        take(bytes.endIndex)
        return result
    }
}
