import Foundation

/// The settings a WebVTT cue's timing line may carry after its end time (`align:start line:10% position:20%,line-left
/// size:35%`), for horizontal text. They are read as the W3C parser reads them: a setting it does not know, or a
/// value it cannot parse, is ignored and the default stays; `region` is ignored (regions are not drawn), and
/// `vertical` is reported and ignored (the cue is drawn horizontally). docs/captions.md says how they place a cue.
public struct WebVTTCueSettings: Sendable, Hashable {
    /// Text alignment inside the cue box.
    public enum Align: String, Sendable, Hashable {
        case left, center, right
    }

    /// Which edge of the cue box a `line` or `position` value places.
    public enum Anchor: String, Sendable, Hashable {
        case start, center, end
    }

    /// `line`: a line number (0 the top line, −1 the bottom one) or a percentage of the height.
    public enum Line: Sendable, Hashable {
        case number(Int)
        case percent(Double)
    }

    public var align: Align?
    public var line: Line?
    /// Which edge of the box `line` places when it is a percentage (start: the top).
    public var lineAlign: Anchor?
    /// Where the box's anchor sits across the width, in percent.
    public var position: Double?
    /// Which edge of the box `position` places (start: its left edge).
    public var positionAlign: Anchor?
    /// The box's width, in percent of the render width.
    public var size: Double?
    /// `vertical` was given (and is ignored).
    public var asksVertical = false

    public init() {}

    /// Whether nothing that moves the cue was given.
    public var isEmpty: Bool { align == nil && line == nil && position == nil && size == nil }

    /// Reads the settings words of a timing line.
    public init<Words: Sequence>(_ words: Words) where Words.Element: StringProtocol {
        for word in words {
            guard let colon = word.firstIndex(of: ":"), colon != word.startIndex else { continue }
            let name = word[..<colon], value = word[word.index(after: colon)...]
            guard !value.isEmpty else { continue }
            let parts = value.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
            switch name {
            case "align":
                switch value {
                case "start", "left": align = .left
                case "center", "middle": align = .center
                case "end", "right": align = .right
                default: break
                }
            case "line":
                let anchor = parts.count == 2 ? Self.anchor(parts[1]) : nil
                if parts.count == 2, anchor == nil { continue }
                if let percent = Self.percent(parts[0]) {
                    line = .percent(percent)
                } else if let number = Self.lineNumber(parts[0]) {
                    line = .number(number)
                } else {
                    continue
                }
                lineAlign = anchor
            case "position":
                let anchor = parts.count == 2 ? Self.anchor(parts[1]) : nil
                guard let percent = Self.percent(parts[0]), parts.count == 1 || anchor != nil else { continue }
                position = percent
                positionAlign = anchor
            case "size":
                if let percent = Self.percent(value) { size = percent }
            case "vertical":
                asksVertical = true
            default:
                continue
            }
        }
    }

    /// `start`/`center`/`end`, with the position forms `line-left`/`line-right` and the older draft's `middle`.
    private static func anchor<Text: StringProtocol>(_ text: Text) -> Anchor? {
        switch text {
        case "start", "line-left": .start
        case "center", "middle": .center
        case "end", "line-right": .end
        default: nil
        }
    }

    /// `N%` or `N.N%` from 0 to 100, digits only (no sign, no exponent).
    private static func percent<Text: StringProtocol>(_ text: Text) -> Double? {
        guard text.hasSuffix("%") else { return nil }
        let number = text.dropLast()
        let pieces = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let first = pieces.first, !first.isEmpty, pieces.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }),
              let value = Double(number), value <= 100 else { return nil }
        return value
    }

    /// An integer line number, with an optional leading `-`.
    private static func lineNumber<Text: StringProtocol>(_ text: Text) -> Int? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : text[...]
        guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy(\.isASCIIDigit) else { return nil }
        return Int(text)
    }

    /// The cue placed on a render of `renderSize` with `style`: override tags to put before its text, and the
    /// event's left and right margins (which bound the width libass wraps to). The box is laid out as WebVTT does
    /// (`size`, default 100 %, no wider than `position` leaves room for on the side its edge faces), then kept to
    /// the style's `maxWidth` band (trimmed, or moved into it when less than a tenth of the width would remain). A
    /// `line` places it vertically (numbers count lines of the style's size from the style's margin), else the
    /// style's placement does.
    public func placement(renderSize: PixelSize, style: CaptionStyle) -> (tags: String, marginLeft: Int, marginRight: Int) {
        let width = Double(renderSize.width), height = Double(renderSize.height)
        let side = width * (1 - (style.maxWidth ?? 0.9)) / 2
        let alignment = align ?? .center
        let anchor: Double
        if let position {
            anchor = position
        } else {
            switch alignment {
            case .left: anchor = 0
            case .center: anchor = 50
            case .right: anchor = 100
            }
        }
        let edge: Anchor
        if let positionAlign {
            edge = positionAlign
        } else {
            switch alignment {
            case .left: edge = .start
            case .center: edge = .center
            case .right: edge = .end
            }
        }
        let room: Double
        switch edge {
        case .start: room = 100 - anchor
        case .center: room = 2 * min(anchor, 100 - anchor)
        case .end: room = anchor
        }
        let boxPercent = min(size ?? 100, room)
        var left: Double
        switch edge {
        case .start: left = anchor
        case .center: left = anchor - boxPercent / 2
        case .end: left = anchor - boxPercent
        }
        left = left / 100 * width
        var right = left + boxPercent / 100 * width
        if min(right, width - side) - max(left, side) >= width / 10 {
            (left, right) = (max(left, side), min(right, width - side))
        } else {
            let boxWidth = max(right - left, width / 10)
            left = min(max(left, side), width - side - boxWidth)
            right = left + boxWidth
        }
        let boxWidth = right - left
        let column: Int, x: Double
        switch alignment {
        case .left: (column, x) = (1, left)
        case .center: (column, x) = (2, left + boxWidth / 2)
        case .right: (column, x) = (3, left + boxWidth)
        }
        // libass takes a margin of 0 as "the style's": at least one pixel.
        let marginLeft = max(1, Int(left.rounded())), marginRight = max(1, Int((width - left - boxWidth).rounded()))
        guard let line else {
            let row: Int
            switch style.placement ?? .bottom {
            case .bottom: row = 0
            case .middle: row = 3
            case .top: row = 6
            }
            return ("{\\an\(row + column)}", marginLeft, marginRight)
        }
        let margin = style.resolvedMargin(renderSize: renderSize)
        let lineHeight = style.resolvedSize(renderSize: renderSize)
        let row: Int, y: Double
        switch line {
        case .number(let number) where number >= 0:
            (row, y) = (6, margin + Double(number) * lineHeight)
        case .number(let number):
            (row, y) = (0, height - margin - Double(-number - 1) * lineHeight)
        case .percent(let percent):
            switch lineAlign ?? .start {
            case .start: (row, y) = (6, percent / 100 * height)
            case .center: (row, y) = (3, percent / 100 * height)
            case .end: (row, y) = (0, percent / 100 * height)
            }
        }
        func number(_ value: Double) -> String { ProjectWriter.numberText((value * 100).rounded() / 100) }
        return ("{\\an\(row + column)\\pos(\(number(x)),\(number(y)))}", marginLeft, marginRight)
    }
}
