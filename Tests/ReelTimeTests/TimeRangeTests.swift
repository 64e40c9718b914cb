import Testing
@testable import ReelTime

@Suite struct TimeRangeTests {
    @Test func initComputesEnd() throws {
        let range = try TimeRange(start: Time(value: 3, timescale: 2), duration: Time(value: 1001, timescale: 30000))
        #expect(range.end == Time(value: 46001, timescale: 30000))
        let same = try TimeRange(start: Time(value: 3, timescale: 2), end: Time(value: 46001, timescale: 30000))
        #expect(same == range)
        #expect(same.duration == Time(value: 1001, timescale: 30000))
        #expect(range.description == "[1.5, 46001/30000)")
    }

    @Test func refusesNegativeDurationAndOverflow() throws {
        #expect(throws: TimeError.negativeDuration) { try TimeRange(start: .zero, duration: Time(value: -1, timescale: 2)) }
        #expect(throws: TimeError.negativeDuration) { try TimeRange(start: Time(seconds: 2), end: Time(seconds: 1)) }
        #expect(throws: TimeError.overflow) { try TimeRange(start: Time(seconds: .max), duration: Time(seconds: 1)) }
        #expect(throws: TimeError.overflow) { try TimeRange(start: Time(seconds: .min), end: Time(seconds: .max)) }
        let empty = try TimeRange(start: Time(seconds: 4), duration: .zero)
        #expect(empty.isEmpty)
        #expect(!empty.contains(Time(seconds: 4)))
    }

    @Test(arguments: [
        (Time(seconds: 1), true),
        (Time(value: 2999, timescale: 1000), true),
        (Time(seconds: 3), false),
        (Time(value: 999, timescale: 1000), false),
    ])
    func containsIsHalfOpen(time: Time, inside: Bool) throws {
        let range = try TimeRange(start: Time(seconds: 1), end: Time(seconds: 3))
        #expect(range.contains(time) == inside)
    }

    @Test func intersection() throws {
        let a = try TimeRange(start: .zero, end: Time(seconds: 5))
        let b = try TimeRange(start: Time(value: 9, timescale: 2), end: Time(seconds: 8))
        let c = try TimeRange(start: Time(seconds: 5), end: Time(seconds: 6))
        #expect(a.intersection(b) == (try TimeRange(start: Time(value: 9, timescale: 2), end: Time(seconds: 5))))
        #expect(a.intersection(c) == nil)
        #expect(b.intersection(c) == c)
        #expect(a.contains(try TimeRange(start: Time(seconds: 1), end: Time(seconds: 5))))
        #expect(!a.contains(b))
    }
}

@Suite struct TimeMappingTests {
    @Test func mapsBothWaysExactly() throws {
        let mapping = TimeMapping(source: try TimeRange(start: Time(seconds: 10), duration: Time(seconds: 10)),
                                  target: try TimeRange(start: .zero, duration: Time(seconds: 5)))
        #expect(try mapping.rate == Rational(2))
        #expect(try mapping.sourceTime(atTarget: Time(value: 5, timescale: 2)) == Time(seconds: 15))
        #expect(try mapping.targetTime(atSource: Time(seconds: 15)) == Time(value: 5, timescale: 2))
        #expect(try mapping.sourceTime(atTarget: Time(value: 1001, timescale: 30000)) == Time(value: 151001, timescale: 15000))
    }

    @Test func slowMotionAtNTSCIsExact() throws {
        // 100 source frames at 29.97 stretched over 3 seconds of composition starting at 7.5 s.
        let frame = Time(value: 1001, timescale: 30000)
        let mapping = TimeMapping(
            source: try TimeRange(start: .zero, duration: try Time.frames(100, frameDuration: frame)),
            target: try TimeRange(start: Time(value: 15, timescale: 2), duration: Time(seconds: 3)))
        #expect(try mapping.rate == Rational(1001, 900))
        #expect(try mapping.sourceTime(atTarget: Time(value: 21, timescale: 2)) == Time(value: 1001, timescale: 300))
        let source = Time(value: 1, timescale: 48000)
        #expect(try mapping.sourceTime(atTarget: mapping.targetTime(atSource: source)) == source)
    }

    @Test func emptyRangesDivideByZero() throws {
        let mapping = TimeMapping(source: try TimeRange(start: .zero, duration: Time(seconds: 1)),
                                  target: try TimeRange(start: .zero, duration: .zero))
        #expect(throws: TimeError.divisionByZero) { try mapping.rate }
        #expect(throws: TimeError.divisionByZero) { try mapping.sourceTime(atTarget: .zero) }
        let frozen = TimeMapping(source: try TimeRange(start: Time(seconds: 4), duration: .zero),
                                 target: try TimeRange(start: .zero, duration: Time(seconds: 2)))
        #expect(try frozen.sourceTime(atTarget: Time(seconds: 1)) == Time(seconds: 4))
        #expect(throws: TimeError.divisionByZero) { try frozen.targetTime(atSource: Time(seconds: 4)) }
    }
}
