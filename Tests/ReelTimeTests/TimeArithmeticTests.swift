import Testing
@testable import ReelTime

private let reducesOnInitCases: [(Time, Int64, Int64)] = [
    (Time(value: 2, timescale: 4), Int64(1), Int64(2)),
    (Time(value: -6, timescale: 9), -2, 3),
    (Time(value: 0, timescale: 90000), 0, 1),
    (Time(value: 90090, timescale: 90000), 1001, 1000),
    (Time(value: .min, timescale: 2), -(Int64(1) << 62), 1),
    (Time(value: .min, timescale: 1), .min, 1),
    (Time(value: .max, timescale: .max), 1, 1),
]

private let addsExactlyCases: [(Time, Time, Time)] = [
    (Time(value: 1, timescale: 2), Time(value: 1, timescale: 3), Time(value: 5, timescale: 6)),
    (Time(value: 1001, timescale: 30000), Time(value: 1, timescale: 90000), Time(value: 751, timescale: 22500)),
    (Time(value: 1, timescale: 44100), Time(value: -1, timescale: 48000), Time(value: 13, timescale: 7_056_000)),
    (Time(value: 1, timescale: 2), Time(value: -1, timescale: 2), Time.zero),
    (Time(seconds: .max), Time(seconds: .min), Time(seconds: -1)),
]

private let additionOverflowIsReportedCases: [(Time, Time)] = [
    (Time(seconds: .max), Time(seconds: 1)),
    (Time(seconds: .min), Time(seconds: -1)),
    (Time(value: 1, timescale: .max), Time(value: 1, timescale: .max - 1)),
    (Time(value: .max, timescale: 3), Time(value: .max, timescale: 2)),
]

private let quotientRoundsEveryWayCases: [(Int64, Int64, Int64, Int64, [Int64])] = [
    (Int64(5), Int64(2), Int64(1), Int64(1), [Int64(2), 3, 3, 2]),
    (-5, 2, 1, 1, [-3, -2, -3, -2]),
    (7, 3, 1, 1, [2, 3, 2, 2]),
    (-7, 3, 1, 1, [-3, -2, -2, -2]),
    (5, 2, -1, 1, [-3, -2, -3, -2]),
    (-5, 2, -1, 1, [2, 3, 3, 2]),
    (3, 1, 1, 2, [6, 6, 6, 6]),
    (-1, 3, 1, 1, [-1, 0, 0, 0]),
    (1001, 1000, 1001, 30000, [30, 30, 30, 30]),
]

private let countRoundsEveryWayCases: [(Time, Int64, [Int64])] = [
    (Time(value: 1, timescale: 3), Int64(48000), [Int64(16000), 16000, 16000, 16000]),
    (Time(value: 1, timescale: 44100), 48000, [1, 2, 1, 1]),
    (Time(value: -1, timescale: 44100), 48000, [-2, -1, -1, -1]),
    (Time(value: 1, timescale: 96000), 48000, [0, 1, 1, 0]),
    (Time(value: -1, timescale: 96000), 48000, [-1, 0, -1, 0]),
    (Time(value: 1001, timescale: 30000), 48000, [1601, 1602, 1602, 1601]),
    (Time(value: 5, timescale: 2), -2, [-5, -5, -5, -5]),
]

private let describesExactlyCases: [(Time, String?, String)] = [
    (Time(value: 5, timescale: 2), "2.5", "2.5"),
    (Time(value: 1, timescale: 10), "0.1", "0.1"),
    (Time(seconds: -3), "-3", "-3"),
    (Time.zero, "0", "0"),
    (Time(value: -1, timescale: 8), "-0.125", "-0.125"),
    (Time(value: 1001, timescale: 30000), nil, "1001/30000"),
    (Time(value: -1, timescale: 3), nil, "-1/3"),
    (Time(value: .min, timescale: 1), "-9223372036854775808", "-9223372036854775808"),
    (Time(value: -1, timescale: 1 << 62), "-0.00000000000000000021684043449710088680149056017398834228515625",
     "-0.00000000000000000021684043449710088680149056017398834228515625"),
    (Time(value: .max, timescale: 1 << 31), "4294967295.9999999995343387126922607421875",
     "4294967295.9999999995343387126922607421875"),
]

@Suite struct TimeArithmeticTests {
    @Test(arguments: reducesOnInitCases)
    func reducesOnInit(time: Time, value: Int64, timescale: Int64) {
        #expect(time.value == value)
        #expect(time.timescale == timescale)
    }

    @Test func equalityAndHashAreOnTheReducedForm() {
        #expect(Time(value: 2, timescale: 4) == Time(value: 1, timescale: 2))
        #expect(Set([Time(value: 3003, timescale: 90000), Time(value: 1001, timescale: 30000)]).count == 1)
        #expect(Time(Rational(25, 2)) == Time(value: 125, timescale: 10))
        #expect(Time(seconds: 7).rational == Rational(7))
    }

    @Test func checkedInitHandlesEveryTimescale() throws {
        #expect(try Time.checked(value: 3, timescale: -6) == Time(value: -1, timescale: 2))
        #expect(throws: TimeError.divisionByZero) { try Time.checked(value: 1, timescale: 0) }
        #expect(throws: TimeError.overflow) { try Time.checked(value: .min, timescale: -1) }
        #expect(try Time.checked(value: .min, timescale: -2) == Time(seconds: 1 << 62))
    }

    @Test(arguments: addsExactlyCases)
    func addsExactly(a: Time, b: Time, sum: Time) throws {
        #expect(try a + b == sum)
        #expect(try sum - b == a)
    }

    @Test(arguments: additionOverflowIsReportedCases)
    func additionOverflowIsReported(a: Time, b: Time) {
        #expect(throws: TimeError.overflow) { try a + b }
    }

    @Test func subtractionAndNegationOverflowAreReported() throws {
        #expect(throws: TimeError.overflow) { try Time(seconds: .min) - Time(seconds: 1) }
        #expect(throws: TimeError.overflow) { try -Time(value: .min, timescale: 1) }
        #expect(try -Time(value: .max, timescale: 1) == Time(value: -Int64.max, timescale: 1))
        #expect(try -Time(value: 3, timescale: 7) == Time(value: -3, timescale: 7))
        #expect(throws: TimeError.overflow) { try Time.zero - Time(value: .min, timescale: 3) }
        #expect(try Time.zero - Time(value: .min, timescale: 2) == Time(seconds: 1 << 62))
    }

    @Test func multipliesDividesAndTakesRatios() throws {
        let frame = Time(value: 1001, timescale: 30000)
        #expect(try frame.multiplied(by: Rational(30)) == Time(value: 1001, timescale: 1000))
        #expect(try frame.divided(by: Rational(1, 2)) == Time(value: 1001, timescale: 15000))
        #expect(try Time(seconds: 10).ratio(to: Time(seconds: 4)) == Rational(5, 2))
        #expect(try Time(value: -3, timescale: 2).ratio(to: Time(value: 1, timescale: 2)) == Rational(-3))
        #expect(throws: TimeError.divisionByZero) { try frame.divided(by: .zero) }
        #expect(throws: TimeError.divisionByZero) { try frame.ratio(to: .zero) }
        #expect(throws: TimeError.overflow) { try Time(seconds: .max).multiplied(by: Rational(2)) }
        #expect(throws: TimeError.overflow) { try Time(seconds: .min).multiplied(by: Rational(-1)) }
        #expect(try Time(seconds: .max).multiplied(by: Rational(2, 2)) == Time(seconds: .max))
        #expect(try Time.frames(30, frameDuration: frame) == Time(value: 1001, timescale: 1000))
        #expect(throws: TimeError.overflow) { try Time.frames(.max, frameDuration: Time(seconds: 2)) }
    }

    @Test func comparesExactlyAcrossTimescales() {
        #expect(Time(value: 1001, timescale: 30000) < Time(value: 3004, timescale: 90000))
        #expect(Time(value: 3002, timescale: 90000) < Time(value: 1001, timescale: 30000))
        #expect(Time(value: .max, timescale: .max - 1) < Time(value: .max - 1, timescale: .max - 2))
        #expect(Time(value: .min, timescale: 1) < Time(value: -Int64.max, timescale: 1))
        #expect(Time(value: -1, timescale: 44100) < Time(value: -1, timescale: 48000))
        #expect(max(Time(value: 1, timescale: 3), Time(value: 33, timescale: 100)) == Time(value: 1, timescale: 3))
    }

    @Test func mixedTimescalesOverTwentyFourHours() throws {
        let day = Time(seconds: 86_400)
        let ntscFrame = Time(value: 1001, timescale: 30000)
        #expect(try day.quotient(dividingBy: ntscFrame, rounding: .down) == 2_589_410)
        #expect(try day.quotient(dividingBy: ntscFrame, rounding: .up) == 2_589_411)
        #expect(try day.quotient(dividingBy: ntscFrame, rounding: .nearest) == 2_589_411)

        // The last 90 kHz tick of the day against 29.97 frames: 7775999999/3003 ≈ 2589410.589.
        let lastTick = Time(value: 7_776_000_000 - 1, timescale: 90000)
        #expect(try lastTick.quotient(dividingBy: ntscFrame, rounding: .down) == 2_589_410)
        #expect(try Time.frames(2_589_410, frameDuration: ntscFrame) < lastTick)
        #expect(try Time.frames(2_589_411, frameDuration: ntscFrame) > lastTick)
        #expect(try Time.frames(2_589_410, frameDuration: ntscFrame) == Time(value: 2_589_410 * 3003, timescale: 90000))

        // The last 44.1 kHz sample of the day at 48 kHz: 609638399840/147 ≈ 4147199998.91.
        let lastSample = Time(value: 44100 * 86400 - 1, timescale: 44100)
        #expect(try lastSample.count(atRate: 48000, rounding: .nearest) == 4_147_199_999)
        #expect(try lastSample.count(atRate: 48000, rounding: .down) == 4_147_199_998)
        #expect(try lastSample.count(atRate: 44100, rounding: .down) == 44100 * 86400 - 1)
        let difference = try day - lastSample
        #expect(difference == Time(value: 1, timescale: 44100))

        // A 48 kHz position, a 29.97 frame and a 90 kHz tick summed exactly.
        let sum = try Time(value: 4_147_199_999, timescale: 48000) + ntscFrame + Time(value: 1, timescale: 90000)
        let expected = try Time(value: 4_147_199_999, timescale: 48000) + Time(value: 3004, timescale: 90000)
        #expect(sum == expected)
        #expect(sum > day)
    }

    @Test func accumulatingFrameDurationsStaysExact() throws {
        let ntscFrame = Time(value: 1001, timescale: 30000)
        let tick = Time(value: 1, timescale: 90000)
        var total = Time.zero
        for _ in 0..<10_000 {
            total = try total + ntscFrame + tick
        }
        #expect(total == Time(value: 10_000 * 3004, timescale: 90000))
    }

    @Test(arguments: quotientRoundsEveryWayCases)
    func quotientRoundsEveryWay(value: Int64, timescale: Int64, divisorValue: Int64, divisorTimescale: Int64, expected: [Int64]) throws {
        let time = Time(value: value, timescale: timescale)
        let divisor = try Time.checked(value: divisorValue, timescale: divisorTimescale)
        let results = try [Rounding.down, .up, .nearest, .towardZero].map { rounding throws(TimeError) in
            try time.quotient(dividingBy: divisor, rounding: rounding)
        }
        #expect(results == expected)
    }

    @Test func quotientErrors() {
        #expect(throws: TimeError.divisionByZero) { try Time(seconds: 1).quotient(dividingBy: .zero, rounding: .down) }
        #expect(throws: TimeError.overflow) {
            try Time(seconds: .max).quotient(dividingBy: Time(value: 1, timescale: 2), rounding: .down)
        }
        #expect(throws: TimeError.overflow) {
            try Time(seconds: .min).quotient(dividingBy: Time(seconds: -1), rounding: .towardZero)
        }
    }

    @Test(arguments: countRoundsEveryWayCases)
    func countRoundsEveryWay(time: Time, rate: Int64, expected: [Int64]) throws {
        let results = try [Rounding.down, .up, .nearest, .towardZero].map { rounding throws(TimeError) in
            try time.count(atRate: rate, rounding: rounding)
        }
        #expect(results == expected)
    }

    @Test func countOverflowIsReported() {
        #expect(throws: TimeError.overflow) { try Time(seconds: .max).count(atRate: 48000, rounding: .nearest) }
        #expect(throws: TimeError.overflow) { try Time(seconds: .min).count(atRate: -1, rounding: .down) }
    }

    @Test(arguments: describesExactlyCases)
    func describesExactly(time: Time, decimal: String?, description: String) {
        #expect(time.decimalText == decimal)
        #expect(time.description == description)
    }

    @Test func predicatesAndSeconds() {
        #expect(Time(value: -1, timescale: 2).isNegative)
        #expect(!Time.zero.isNegative)
        #expect(Time(value: 0, timescale: 7).isZero)
        #expect(Time(value: 5, timescale: 2).seconds == 2.5)
    }
}
