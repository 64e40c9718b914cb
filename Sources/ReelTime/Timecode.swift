/// A SMPTE timecode label: "HH:MM:SS:FF" (non-drop) or "HH:MM:SS;FF" (drop-frame).
///
/// A label names a frame number at a frame rate. Non-drop counts the rounded
/// nominal rate per labelled second (30 at 30000/1001), so at NTSC rates the
/// label runs slower than the clock; the frame's time is always
/// `frameNumber × frameDuration`. Drop-frame (30000/1001 and 60000/1001 only)
/// skips labels ;00 and ;01 (;00–;03 at 59.94) at the start of each minute
/// except every tenth minute, so the labels track the clock.
public struct Timecode: Sendable, Hashable, CustomStringConvertible {
    /// The hours field; not limited to 24.
    public let hours: Int64
    /// The minutes field, 0…59 in a valid label.
    public let minutes: Int64
    /// The seconds field, 0…59 in a valid label.
    public let seconds: Int64
    /// The frames field, below the nominal frame rate in a valid label.
    public let frames: Int64
    /// Whether the label is drop-frame (written with ";" before the frames).
    public let isDropFrame: Bool

    /// A label with the given fields, as written; they are checked when converted to a frame number.
    public init(hours: Int64, minutes: Int64, seconds: Int64, frames: Int64, isDropFrame: Bool) {
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
        self.frames = frames
        self.isDropFrame = isDropFrame
    }

    /// Reads the syntax "HH:MM:SS:FF" or "HH:MM:SS;FF" (digits only: minutes and seconds two each, frames two or
    /// more, as above 99 fps; hours one or more); field ranges are checked by `frameNumber(frameRate:)`. A field
    /// of the wrong width ("00:00:02:0") is a damaged label, not a short way of writing one.
    public init(parsing text: String) throws(TimeParseError) {
        let bytes = Array(text.utf8)
        let fields = bytes.split(omittingEmptySubsequences: false) { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ";") }
        let separators = bytes.filter { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ";") }
        guard fields.count == 4, fields.allSatisfy(isDigits),
              fields[1].count == 2, fields[2].count == 2, fields[3].count >= 2,
              separators.dropLast().allSatisfy({ $0 == UInt8(ascii: ":") })
        else {
            throw TimeParseError("timecode \(TimeSyntax.quoted(text)) is not of the form HH:MM:SS:FF or HH:MM:SS;FF")
        }
        self.init(hours: saturatingValue(fields[0]), minutes: saturatingValue(fields[1]),
                  seconds: saturatingValue(fields[2]), frames: saturatingValue(fields[3]),
                  isDropFrame: separators.last == UInt8(ascii: ";"))
    }

    /// The label of frame `frameNumber` (0 is 00:00:00:00) at `frameRate` frames per second.
    ///
    /// Fails for a negative frame number and for drop-frame at a rate other than 30000/1001 or 60000/1001.
    public init(frameNumber: Int64, frameRate: Rational, dropFrame: Bool) throws(TimeParseError) {
        guard frameNumber >= 0 else {
            throw TimeParseError("frame number \(frameNumber) is negative; timecode starts at frame 0")
        }
        let nominal = try Timecode.nominalFramesPerSecond(frameRate)
        var labelCount = Int128(frameNumber)
        if dropFrame {
            let dropped = Int128(try Timecode.droppedLabelsPerMinute(frameRate))
            let framesPerTenMinutes = Int128(nominal) * 600 - dropped * 9
            let framesPerMinute = Int128(nominal) * 60 - dropped
            let (tens, rest) = labelCount.quotientAndRemainder(dividingBy: framesPerTenMinutes)
            // The first minute of each ten keeps all labels; each later one skips `dropped`.
            let skippedMinutes = rest < dropped ? 0 : (rest - dropped) / framesPerMinute
            labelCount += dropped * (9 * tens + skippedMinutes)
        }
        let (totalSeconds, frames) = labelCount.quotientAndRemainder(dividingBy: Int128(nominal))
        // labelCount ≤ frameNumber × 1.002, so hours stay far below Int64.max.
        self.init(hours: Int64(totalSeconds / 3600), minutes: Int64(totalSeconds / 60 % 60),
                  seconds: Int64(totalSeconds % 60), frames: Int64(frames), isDropFrame: dropFrame)
    }

    /// The frame number this label names at `frameRate`; fails for fields out of range and dropped drop-frame labels.
    public func frameNumber(frameRate: Rational) throws(TimeParseError) -> Int64 {
        let nominal = try Timecode.nominalFramesPerSecond(frameRate)
        guard hours >= 0, minutes >= 0, seconds >= 0, frames >= 0 else {
            throw TimeParseError("timecode \(self) has a negative field")
        }
        guard minutes < 60 else {
            throw TimeParseError("timecode \(self): minutes field \(minutes) is not below 60")
        }
        guard seconds < 60 else {
            throw TimeParseError("timecode \(self): seconds field \(seconds) is not below 60")
        }
        guard frames < nominal else {
            throw TimeParseError("timecode frame field \(frames) is not below \(nominal) at \(frameRate) fps")
        }
        let totalMinutes = Int128(hours) * 60 + Int128(minutes)
        // Hours and nominal can both be near 2^63; their product must not trap.
        let (labelSeconds, overflow) = (totalMinutes * 60 + Int128(seconds)).multipliedReportingOverflow(by: Int128(nominal))
        // Far beyond Int64 is already an answer; below this the remaining steps cannot overflow Int128.
        guard !overflow, labelSeconds <= Int128(Int64.max) * 2 else {
            throw TimeParseError("timecode \(self) is too large: its frame number does not fit 64 bits")
        }
        var number = labelSeconds + Int128(frames)
        if isDropFrame {
            let dropped = try Timecode.droppedLabelsPerMinute(frameRate)
            if seconds == 0, frames < dropped, minutes % 10 != 0 {
                throw TimeParseError("drop-frame timecode \(self) does not exist: at \(frameRate) fps the labels ;00 to ;\(String(twoDigits: dropped - 1)) are skipped at the start of every minute except each tenth")
            }
            number -= Int128(dropped) * (totalMinutes - totalMinutes / 10)
        }
        guard let exact = Int64(exactly: number) else {
            throw TimeParseError("timecode \(self) is too large: its frame number does not fit 64 bits")
        }
        return exact
    }

    /// The presentation time of the frame this label names: `frameNumber × frameDuration`, exact seconds.
    public func time(frameRate: Rational) throws(TimeParseError) -> Time {
        let number = try frameNumber(frameRate: frameRate)
        let duration = try Timecode.frameDuration(frameRate)
        guard let time = try? Time.frames(number, frameDuration: duration) else {
            throw TimeParseError("timecode \(self) is too large: its time does not fit 64 bits")
        }
        return try TimeSyntax.checkedTimescale(time, subject: "timecode \(TimeSyntax.quoted(description))")
    }

    /// "HH:MM:SS:FF", or "HH:MM:SS;FF" for drop-frame; fields zero-padded to two digits (hours and frames may be longer).
    public var description: String {
        "\(String(twoDigits: hours)):\(String(twoDigits: minutes)):\(String(twoDigits: seconds))\(isDropFrame ? ";" : ":")\(String(twoDigits: frames))"
    }

    /// The label of the frame shown at `time` (rounded down onto the frame grid) at `frameRate`, e.g. "00:01:00;02".
    ///
    /// Fails for a negative time, a non-positive rate, and drop-frame at rates other than 30000/1001 and 60000/1001.
    public static func format(_ time: Time, frameRate: Rational, dropFrame: Bool = false) throws(TimeParseError) -> String {
        guard !time.isNegative else {
            throw TimeParseError("time \(time) s is negative; timecode starts at 0")
        }
        let duration = try frameDuration(frameRate)
        guard let number = try? time.quotient(dividingBy: duration, rounding: .down) else {
            throw TimeParseError("time \(time) s is too large for a timecode")
        }
        return try Timecode(frameNumber: number, frameRate: frameRate, dropFrame: dropFrame).description
    }

    /// The exact time of a timecode label at `frameRate`: "HH:MM:SS:FF" or drop-frame "HH:MM:SS;FF".
    public static func parse(_ text: String, frameRate: Rational) throws(TimeParseError) -> Time {
        try Timecode(parsing: text).time(frameRate: frameRate)
    }

    /// The rounded nominal frames per labelled second: 30 for 30000/1001, 25 for 25; halves round up.
    public static func nominalFramesPerSecond(_ frameRate: Rational) throws(TimeParseError) -> Int64 {
        let numerator = Int128(frameRate.numerator), denominator = Int128(frameRate.denominator)
        let nominal = (2 * numerator + denominator) / (2 * denominator)
        guard nominal >= 1, let exact = Int64(exactly: nominal) else {
            throw TimeParseError("frame rate \(frameRate) is not usable for timecode (below 0.5 fps)")
        }
        return exact
    }

    /// Labels skipped per minute in drop-frame: 2 at 30000/1001, 4 at 60000/1001.
    static func droppedLabelsPerMinute(_ frameRate: Rational) throws(TimeParseError) -> Int64 {
        switch frameRate {
        case Rational(30000, 1001): return 2
        case Rational(60000, 1001): return 4
        default:
            // A rate written "2997/100" is exactly 29.97, not NTSC's 30000/1001: say which the project has.
            let rate = frameRate.denominator == 1 ? "\(frameRate)" : "\(frameRate.numerator)/\(frameRate.denominator)"
            throw TimeParseError("drop-frame timecode needs frame rate 30000/1001 (29.97) or 60000/1001 (59.94), "
                                 + "not \(rate)")
        }
    }

    /// The duration of one frame, `1 / frameRate` seconds; fails for a rate that is not positive.
    static func frameDuration(_ frameRate: Rational) throws(TimeParseError) -> Time {
        guard frameRate.numerator > 0 else {
            throw TimeParseError("frame rate \(frameRate) is not positive")
        }
        return Time(reducedValue: frameRate.denominator, timescale: frameRate.numerator)
    }
}

extension String {
    /// A non-negative integer with at least two digits ("07", "12", "123").
    init(twoDigits value: Int64) {
        self = value >= 0 && value < 10 ? "0\(value)" : "\(value)"
    }
}
