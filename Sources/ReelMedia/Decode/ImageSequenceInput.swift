import Foundation
import ReelTime
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A numbered image sequence opened as one video (`{"sequence": "frames/img_%04d.png", "frameRate": 24}`).
///
/// The project model hands it to ReelMedia as one path: the printf pattern followed by `marker` and its settings
/// (`frames/img_%04d.png#reel-sequence:rate=24/1:start=auto`), so every reader of a path (probe, decoders, packet
/// readers) opens it the same way without a second channel.
public struct ImageSequenceInput: Sendable, Equatable {
    /// What separates the pattern from the settings in a path.
    public static let marker = "#reel-sequence:"

    /// The printf pattern, with one `%d` or `%0Nd` for the frame number.
    public let pattern: String
    /// Frames per second: frame k of the sequence (k from 0) is shown at k / rate.
    public let frameRate: Rational
    /// The number of the first frame; nil: 0 if that file exists, else 1.
    public let startNumber: Int?

    /// Makes the settings of a sequence.
    public init(pattern: String, frameRate: Rational, startNumber: Int?) {
        self.pattern = pattern
        self.frameRate = frameRate
        self.startNumber = startNumber
    }

    /// The settings `path` carries, or nil for an ordinary path.
    public init?(path: String) {
        guard let range = path.range(of: Self.marker) else { return nil }
        pattern = String(path[..<range.lowerBound])
        var rate: Rational?
        var start: Int?
        for field in path[range.upperBound...].split(separator: ":") {
            let parts = field.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return nil }
            switch parts[0] {
            case "rate":
                let numbers = parts[1].split(separator: "/").compactMap { Int64($0) }
                guard numbers.count == 2, numbers[0] > 0, numbers[1] > 0 else { return nil }
                rate = Rational(numbers[0], numbers[1])
            case "start":
                if parts[1] != "auto" {
                    guard let number = Int(parts[1]), number >= 0 else { return nil }
                    start = number
                }
            default:
                return nil
            }
        }
        guard let rate else { return nil }
        frameRate = rate
        startNumber = start
    }

    /// The path that carries these settings.
    public var path: String {
        "\(pattern)\(Self.marker)rate=\(frameRate.numerator)/\(frameRate.denominator):start=\(startNumber.map(String.init) ?? "auto")"
    }

    /// The pattern split around its number conversion: text before, zero padding width, text after.
    static func split(_ pattern: String) -> (prefix: String, width: Int, suffix: String)? {
        guard let percent = pattern.firstIndex(of: "%") else { return nil }
        var index = pattern.index(after: percent)
        var digits = ""
        while index < pattern.endIndex, pattern[index].isASCII, pattern[index].isNumber {
            digits.append(pattern[index])
            index = pattern.index(after: index)
        }
        guard index < pattern.endIndex, pattern[index] == "d" else { return nil }
        let suffix = String(pattern[pattern.index(after: index)...])
        guard !suffix.contains("%"), !pattern[..<percent].contains("%") else { return nil }
        return (String(pattern[..<percent]), Int(digits) ?? 0, suffix)
    }

    /// The file of frame number `number`.
    static func file(_ parts: (prefix: String, width: Int, suffix: String), _ number: Int) -> String {
        let digits = String(number)
        return parts.prefix + String(repeating: "0", count: max(0, parts.width - digits.count)) + digits + parts.suffix
    }

    /// Checks that the frames are regular files numbered without a hole, from the first to the last one in the
    /// folder, and returns the first number. A hole is an error naming the missing file.
    func vetFrames(displayPath: String) throws(MediaError) -> Int {
        guard let parts = Self.split(pattern) else {
            throw MediaError(.notMedia, "an image sequence needs one %d or %0Nd in its pattern", path: displayPath)
        }
        func exists(_ number: Int) -> Bool {
            var info = stat()
            return stat(Self.file(parts, number), &info) == 0
        }
        let first = startNumber ?? (exists(0) ? 0 : 1)
        guard exists(first) else {
            throw MediaError(.missing, "its first frame \(Self.file(parts, first)) does not exist", path: displayPath)
        }
        // The last frame: the largest number among the folder's files that match the pattern.
        let folder = (parts.prefix as NSString).deletingLastPathComponent
        let namePrefix = (parts.prefix as NSString).lastPathComponent
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
        var last = first
        for name in names where name.hasPrefix(namePrefix) && name.hasSuffix(parts.suffix) {
            let middle = name.dropFirst(namePrefix.count).dropLast(parts.suffix.count)
            guard !middle.isEmpty, middle.allSatisfy({ $0.isASCII && $0.isNumber }), middle.count >= parts.width,
                  let number = Int(middle), number > last,
                  Self.file(parts, number).hasSuffix(name) else { continue }
            last = number
        }
        for number in first...last {
            let file = Self.file(parts, number)
            do {
                _ = try vetInput(path: file, policy: .localFilesOnly)
            } catch let error where error.kind == .missing {
                throw MediaError(.missing, "frame \(number) (\(file)) is missing: frames \(first) to \(last) must all exist",
                                 path: displayPath)
            }
        }
        return first
    }
}
