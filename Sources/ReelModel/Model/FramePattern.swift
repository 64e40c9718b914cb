/// An output path naming an image sequence: a file name with one printf-style frame number, `%d` or `%0Nd`
/// (`out/frame_%05d.png`), which libavformat's image2 muxer fills in for each frame (docs/outputs.md).
public struct FramePattern: Sendable, Hashable {
    /// The path up to and including its last `/` (empty for a name in the current folder).
    public let folder: String
    /// The file name before the frame number.
    public let prefix: String
    /// The file name after the frame number.
    public let suffix: String
    /// The least number of digits (`N` of `%0Nd`; 1 for `%d`): shorter numbers get leading zeros.
    public let digits: Int

    /// The number of the first frame written. reel counts output frames from 0 everywhere (frame n has
    /// presentation time n·frameDuration), so file n holds output frame n.
    public static let firstNumber = 0

    /// What a path with a `%` in it means.
    public enum Parse: Sendable, Equatable {
        /// No `%`: a single file.
        case none
        /// A valid pattern.
        case pattern(FramePattern)
        /// A `%` that is not exactly one frame number in the file name; the text says why.
        case invalid(String)
    }

    /// Reads `path`: `.none` without a `%`, the pattern when the file name holds exactly one `%d` or `%0Nd`
    /// (N from 1 to 9) and the path no other `%`, else why not.
    public static func parse(_ path: String) -> Parse {
        guard path.contains("%") else { return .none }
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard !folder.contains("%") else {
            return .invalid("the frame number %0Nd must be in the file name, and the folder may hold no %")
        }
        guard name.filter({ $0 == "%" }).count == 1, let match = name.firstMatch(of: /%(0[1-9])?d/) else {
            return .invalid("an image sequence's file name holds exactly one frame number, %d or %0Nd (N from 1 "
                            + "to 9), and no other %")
        }
        let digits = match.output.1.map { Int($0.dropFirst())! } ?? 1
        return .pattern(FramePattern(folder: folder, prefix: String(name[..<match.range.lowerBound]),
                                     suffix: String(name[match.range.upperBound...]), digits: digits))
    }

    /// The file name of frame `number` (without the folder).
    public func fileName(ofFrame number: Int) -> String {
        let text = String(number)
        return prefix + String(repeating: "0", count: max(0, digits - text.count)) + text + suffix
    }

    /// The frame number `fileName` (without the folder) stands for when it is one of this pattern's names — as
    /// image2 writes them: at least `digits` digits, no needless leading zero beyond them — else nil.
    public func frameNumber(ofFileName fileName: String) -> Int? {
        guard fileName.count > prefix.count + suffix.count, fileName.hasPrefix(prefix), fileName.hasSuffix(suffix)
        else { return nil }
        let middle = fileName.dropFirst(prefix.count).dropLast(suffix.count)
        guard middle.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(middle),
              fileName == self.fileName(ofFrame: number) else { return nil }
        return number
    }
}
