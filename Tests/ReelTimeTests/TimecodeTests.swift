import Testing
@testable import ReelTime

private let ntsc = Rational(30000, 1001)
private let ntsc60 = Rational(60000, 1001)

/// (frame number, frame rate, drop-frame, label)
private let labelCases: [(Int64, Rational, Bool, String)] = [
    (0, ntsc, true, "00:00:00;00"),
    (29, ntsc, true, "00:00:00;29"),
    (1799, ntsc, true, "00:00:59;29"),
    (1800, ntsc, true, "00:01:00;02"),
    (3597, ntsc, true, "00:01:59;29"),
    (3598, ntsc, true, "00:02:00;02"),
    (17981, ntsc, true, "00:09:59;29"),
    (17982, ntsc, true, "00:10:00;00"),
    (17983, ntsc, true, "00:10:00;01"),
    (19781, ntsc, true, "00:10:59;29"),
    (19782, ntsc, true, "00:11:00;02"),
    (107_891, ntsc, true, "00:59:59;29"),
    (107_892, ntsc, true, "01:00:00;00"),
    (2_589_408, ntsc, true, "24:00:00;00"),
    (3599, ntsc60, true, "00:00:59;59"),
    (3600, ntsc60, true, "00:01:00;04"),
    (35963, ntsc60, true, "00:09:59;59"),
    (35964, ntsc60, true, "00:10:00;00"),
    (215_784, ntsc60, true, "01:00:00;00"),
    (0, Rational(25), false, "00:00:00:00"),
    (37, Rational(25), false, "00:00:01:12"),
    (90000, Rational(25), false, "01:00:00:00"),
    (107_892, ntsc, false, "00:59:56:12"),
    (119, Rational(120), false, "00:00:00:119"),
    (36_000_000, Rational(100), false, "100:00:00:00"),
]

@Suite struct TimecodeTests {
    @Test(arguments: labelCases)
    func labelsRoundTrip(frameNumber: Int64, frameRate: Rational, dropFrame: Bool, label: String) throws {
        let frameDuration = Time(try frameRate.inverse)
        let time = try Time.frames(frameNumber, frameDuration: frameDuration)
        #expect(try Timecode.format(time, frameRate: frameRate, dropFrame: dropFrame) == label)
        #expect(try Timecode.parse(label, frameRate: frameRate) == time)
        #expect(try Timecode(parsing: label).frameNumber(frameRate: frameRate) == frameNumber)
        #expect(try TimeSyntax.parseString(label, frameRate: frameRate) == time)
    }

    @Test func frameNumbersOfOneHour() throws {
        #expect(try Timecode(parsing: "01:00:00;00").frameNumber(frameRate: ntsc) == 107_892)
        #expect(try Timecode(parsing: "01:00:00;00").frameNumber(frameRate: ntsc60) == 215_784)
        #expect(try Timecode(parsing: "01:00:00:00").frameNumber(frameRate: ntsc) == 108_000)
    }

    @Test(arguments: [ntsc, ntsc60])
    func everyDropFrameLabelOfTheFirstTwentyMinutesRoundTrips(frameRate: Rational) throws {
        let nominal = try Timecode.nominalFramesPerSecond(frameRate)
        let dropped = nominal / 15
        var previous: Timecode?
        for frameNumber in Int64(0)..<(nominal * 60 * 20 + 10) {
            let label = try Timecode(frameNumber: frameNumber, frameRate: frameRate, dropFrame: true)
            #expect(try label.frameNumber(frameRate: frameRate) == frameNumber)
            #expect(!(label.seconds == 0 && label.frames < dropped && label.minutes % 10 != 0))
            if let previous {
                // Labels only ever move forward; the skipped ones are checked above.
                #expect((previous.hours, previous.minutes, previous.seconds, previous.frames)
                    < (label.hours, label.minutes, label.seconds, label.frames))
            }
            previous = label
        }
    }

    @Test func formatRoundsDownOntoTheFrameGrid() throws {
        #expect(try Timecode.format(Time(value: 1, timescale: 2), frameRate: Rational(24)) == "00:00:00:12")
        #expect(try Timecode.format(Time(value: 999, timescale: 1000), frameRate: Rational(25)) == "00:00:00:24")
        #expect(try Timecode.format(Time(value: 1001, timescale: 30000) - Time(value: 1, timescale: 90000),
                                    frameRate: ntsc, dropFrame: true) == "00:00:00;00")
        #expect(try Timecode.format(Time(seconds: 60), frameRate: ntsc, dropFrame: true) == "00:00:59;28")
        #expect(try Timecode.format(Time(seconds: 86400), frameRate: ntsc, dropFrame: true) == "24:00:00;02")
        #expect(try Timecode.format(Time(seconds: 86400), frameRate: ntsc) == "23:58:33:20")
    }

    @Test func formatErrors() {
        #expect(throws: TimeParseError("time -0.5 s is negative; timecode starts at 0")) {
            try Timecode.format(Time(value: -1, timescale: 2), frameRate: Rational(25))
        }
        #expect(throws: TimeParseError("drop-frame timecode needs frame rate 30000/1001 (29.97) or 60000/1001 (59.94), not 25")) {
            try Timecode.format(.zero, frameRate: Rational(25), dropFrame: true)
        }
        #expect(throws: TimeParseError("frame rate -25 is not positive")) {
            try Timecode.format(.zero, frameRate: Rational(-25))
        }
        #expect(throws: TimeParseError("frame number -1 is negative; timecode starts at frame 0")) {
            try Timecode(frameNumber: -1, frameRate: Rational(25), dropFrame: false)
        }
        #expect(throws: TimeParseError("timecode 00:-1:00:00 has a negative field")) {
            try Timecode(hours: 0, minutes: -1, seconds: 0, frames: 0, isDropFrame: false).frameNumber(frameRate: Rational(25))
        }
    }

    @Test func nominalRates() throws {
        #expect(try Timecode.nominalFramesPerSecond(ntsc) == 30)
        #expect(try Timecode.nominalFramesPerSecond(Rational(24000, 1001)) == 24)
        #expect(try Timecode.nominalFramesPerSecond(Rational(25, 2)) == 13)
        #expect(try Timecode.nominalFramesPerSecond(Rational(120000, 1001)) == 120)
        #expect(throws: TimeParseError.self) { try Timecode.nominalFramesPerSecond(Rational(1, 3)) }
    }

    @Test func extremeLabelsDoNotTrap() throws {
        let huge = Timecode(hours: .max, minutes: 59, seconds: 59, frames: 0, isDropFrame: false)
        #expect(throws: TimeParseError.self) { try huge.frameNumber(frameRate: Rational(.max)) }
        let label = try Timecode(frameNumber: .max, frameRate: ntsc, dropFrame: true)
        #expect(try label.frameNumber(frameRate: ntsc) == .max)
        #expect(throws: TimeParseError.self) { try Timecode.parse(label.description, frameRate: ntsc) }
    }
}
