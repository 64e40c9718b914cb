import Testing
@testable import ReelTime

private let ntsc = Rational(30000, 1001)

private let decimalCases: [(String, Int64, Int64)] = [
    ("0.1", 1, 10),
    ("2.5", 5, 2),
    ("1e3", 1000, 1),
    ("1.5e-2", 3, 200),
    ("-0", 0, 1),
    ("0", 0, 1),
    ("-2.50", -5, 2),
    ("007", 7, 1),
    ("1E+2", 100, 1),
    ("0.5e1", 5, 1),
    ("0.000000001", 1, 1_000_000_000),
    ("120000e-5", 6, 5),
    ("0e999999999", 0, 1),
    ("0.0e-999999999", 0, 1),
    ("9223372036854775807", .max, 1),
    ("-9223372036854775808", .min, 1),
    ("92233720368547758.07e2", .max, 1),
    ("4.656612873077392578125e-10", 1, 1 << 31),
    ("4294967295.9999999995343387126922607421875", .max, 1 << 31),
    ("0.0000000000000000000000000000002e31", 2, 1),
    ("1001e-3", 1001, 1000),
]

private let decimalErrorCases: [(String, String)] = [
    ("1e-300", "number \"1e-300\" is too precise: its exact timescale exceeds 2^31"),
    ("1e999999999", "number \"1e999999999\" is too large: it does not fit a 64-bit value"),
    ("-1e-999999999999999999999999", "number \"-1e-999999999999999999999999\" is too precise: its exact timescale exceeds 2^31"),
    ("9223372036854775808", "number \"9223372036854775808\" is too large: it does not fit a 64-bit value"),
    ("-9223372036854775809", "number \"-9223372036854775809\" is too large: it does not fit a 64-bit value"),
    ("1e19", "number \"1e19\" is too large: it does not fit a 64-bit value"),
    ("0.1e-9", "number \"0.1e-9\" is too precise: its exact timescale 10000000000 exceeds 2^31"),
    ("0.00000000001", "number \"0.00000000001\" is too precise: its exact timescale 100000000000 exceeds 2^31"),
    ("9223372036854775807.5", "number \"9223372036854775807.5\" is too large: it does not fit a 64-bit value"),
]

private let syntaxErrorCases = ["", "-", "1.", ".5", "1e", "1e+", "+1", "0x10", "1 ", " 1", "--1", "1.5.2", "1e5.0", "NaN", "∞"]

private let stringCases: [(String, Rational?, Time)] = [
    ("1001/30000", nil, Time(value: 1001, timescale: 30000)),
    ("-1/2", nil, Time(value: -1, timescale: 2)),
    ("2/4", nil, Time(value: 1, timescale: 2)),
    ("9223372036854775807/1", nil, Time(seconds: .max)),
    ("9223372036854775808/2", nil, Time(seconds: 1 << 62)),
    ("-9223372036854775808/1", nil, Time(seconds: .min)),
    ("1/2147483648", nil, Time(value: 1, timescale: 1 << 31)),
    ("48f", Rational(24), Time(seconds: 2)),
    ("1f", ntsc, Time(value: 1001, timescale: 30000)),
    ("0f", Rational(25), .zero),
    ("30f", ntsc, Time(value: 1001, timescale: 1000)),
    ("01:02:03.5", nil, Time(value: 7447, timescale: 2)),
    ("02:03.25", nil, Time(value: 493, timescale: 4)),
    ("00:00:00", nil, .zero),
    ("1:00:00", nil, Time(seconds: 3600)),
    ("59:59.999", nil, Time(value: 3_599_999, timescale: 1000)),
    ("24:00:00.000", nil, Time(seconds: 86400)),
    ("100:00:00", nil, Time(seconds: 360_000)),
    ("01:00:00:00", Rational(25), Time(seconds: 3600)),
    ("00:00:01:12", Rational(25), Time(value: 37, timescale: 25)),
    ("00:00:00:24", Rational(25), Time(value: 24, timescale: 25)),
    ("00:00:01:00", ntsc, Time(value: 1001, timescale: 1000)),
    ("01:00:00:00", ntsc, Time(value: 3_603_600, timescale: 1000)),
    ("00:00:00:119", Rational(120), Time(value: 119, timescale: 120)),
    ("00:01:00;02", ntsc, Time(value: 3003, timescale: 50)),
    ("01:00:00;00", ntsc, Time(value: 8_999_991, timescale: 2500)),
    ("01:00:00;00", Rational(60000, 1001), Time(value: 8_999_991, timescale: 2500)),
    ("00:10:00;00", ntsc, Time(value: 17982 * 1001, timescale: 30000)),
]

private let stringErrorCases: [(String, Rational?, String)] = [
    ("9223372036854775808/1", nil, "time \"9223372036854775808/1\" is too large: it does not fit a 64-bit value"),
    ("1/4294967296", nil, "time \"1/4294967296\" is too precise: its exact timescale exceeds 2^31"),
    ("1/0", nil, "time \"1/0\" has a zero denominator"),
    ("1/-2", nil, "time \"1/-2\" is not of the form \"N/D\" with integers N and D"),
    ("1.5/2", nil, "time \"1.5/2\" is not of the form \"N/D\" with integers N and D"),
    ("/2", nil, "time \"/2\" is not of the form \"N/D\" with integers N and D"),
    ("123456789012345678901234567890123456789/1", nil,
     "time \"1234567890123456789012345678901234567…\" is too large: it does not fit a 64-bit value"),
    ("48f", nil, "frame count \"48f\" needs a frame rate"),
    ("-1f", Rational(25), "frame count \"-1f\" is not a non-negative whole number of frames followed by \"f\""),
    ("1.5f", Rational(25), "frame count \"1.5f\" is not a non-negative whole number of frames followed by \"f\""),
    ("f", Rational(25), "frame count \"f\" is not a non-negative whole number of frames followed by \"f\""),
    ("9223372036854775807f", ntsc, "frame count \"9223372036854775807f\" is too large: it does not fit a 64-bit value"),
    ("00:60:00", nil, "clock time \"00:60:00\": minutes field 60 is not below 60"),
    ("75:00", nil, "clock time \"75:00\": minutes field 75 is not below 60"),
    ("00:00:60", nil, "clock time \"00:00:60\": seconds field 60 is not below 60"),
    ("00:00:60.5", nil, "clock time \"00:00:60.5\": seconds field 60.5 is not below 60"),
    ("00:00:05.", nil, "clock time \"00:00:05.\" has a seconds field \"05.\" that is not a number like 05 or 05.25"),
    ("00:00:1e1", nil, "clock time \"00:00:1e1\" has a seconds field \"1e1\" that is not a number like 05 or 05.25"),
    ("00:-1:00", nil, "clock time \"00:-1:00\" is not of the form HH:MM:SS.sss or MM:SS.sss"),
    ("00::00", nil, "clock time \"00::00\" is not of the form HH:MM:SS.sss or MM:SS.sss"),
    ("00:00:00.0000000001", nil, "clock time \"00:00:00.0000000001\" is too precise: its exact timescale 10000000000 exceeds 2^31"),
    ("9999999999999999:00:00", nil, "clock time \"9999999999999999:00:00\" is too large: it does not fit a 64-bit value"),
    ("00:00:00:25", Rational(25), "timecode frame field 25 is not below 25 at 25 fps"),
    ("00:00:00:30", ntsc, "timecode frame field 30 is not below 30 at 30000/1001 fps"),
    ("00:00:60:00", Rational(25), "timecode 00:00:60:00: seconds field 60 is not below 60"),
    ("00:60:00:00", Rational(25), "timecode 00:60:00:00: minutes field 60 is not below 60"),
    ("00:00:00:00", nil, "timecode \"00:00:00:00\" needs a frame rate"),
    ("00:00:00;00", Rational(25), "drop-frame timecode needs frame rate 30000/1001 (29.97) or 60000/1001 (59.94), not 25"),
    ("00:00:00;00", Rational(24000, 1001),
     "drop-frame timecode needs frame rate 30000/1001 (29.97) or 60000/1001 (59.94), not 24000/1001"),
    ("00:00:02:0", Rational(25), "timecode \"00:00:02:0\" is not of the form HH:MM:SS:FF or HH:MM:SS;FF"),
    ("00:0:02:00", Rational(25), "timecode \"00:0:02:00\" is not of the form HH:MM:SS:FF or HH:MM:SS;FF"),
    ("00:00:01;00", Rational(2997, 100),
     "drop-frame timecode needs frame rate 30000/1001 (29.97) or 60000/1001 (59.94), not 2997/100"),
    ("00:01:00;00", ntsc,
     "drop-frame timecode 00:01:00;00 does not exist: at 30000/1001 fps the labels ;00 to ;01 are skipped at the start of every minute except each tenth"),
    ("00:01:00;01", ntsc,
     "drop-frame timecode 00:01:00;01 does not exist: at 30000/1001 fps the labels ;00 to ;01 are skipped at the start of every minute except each tenth"),
    ("00:01:00;03", Rational(60000, 1001),
     "drop-frame timecode 00:01:00;03 does not exist: at 60000/1001 fps the labels ;00 to ;03 are skipped at the start of every minute except each tenth"),
    ("00:00;00:00", ntsc, "timecode \"00:00;00:00\" is not of the form HH:MM:SS:FF or HH:MM:SS;FF"),
    ("00:00:00:0a", Rational(25), "timecode \"00:00:00:0a\" is not of the form HH:MM:SS:FF or HH:MM:SS;FF"),
    ("99999999999999999999:00:00:00", Rational(25),
     "timecode 9223372036854775807:00:00:00 is too large: its frame number does not fit 64 bits"),
    ("2.5", nil, "time \"2.5\" is a string; write seconds as a JSON number (2.5), or use \"N/D\", \"Nf\" or \"HH:MM:SS.sss\""),
    ("abc", nil,
     "time \"abc\" is not a recognised form; expected seconds as a number, \"N/D\", \"Nf\", \"HH:MM:SS.sss\", \"MM:SS.sss\", \"HH:MM:SS:FF\" or \"HH:MM:SS;FF\""),
    ("1:2:3:4:5", nil,
     "time \"1:2:3:4:5\" is not a recognised form; expected seconds as a number, \"N/D\", \"Nf\", \"HH:MM:SS.sss\", \"MM:SS.sss\", \"HH:MM:SS:FF\" or \"HH:MM:SS;FF\""),
]

private let frameRateCases: [(String, Rational)] = [
    ("25", Rational(25)),
    ("24", Rational(24)),
    ("23.976", Rational(24000, 1001)),
    ("23.98", Rational(24000, 1001)),
    ("29.97", Rational(30000, 1001)),
    ("29.970", Rational(30000, 1001)),
    ("47.952", Rational(48000, 1001)),
    ("59.94", Rational(60000, 1001)),
    ("119.88", Rational(120000, 1001)),
    ("12.5", Rational(25, 2)),
    ("1", Rational(1)),
    ("240", Rational(240)),
    ("240.0", Rational(240)),
    ("30000/1001", Rational(30000, 1001)),
    ("2997/100", Rational(2997, 100)),
    ("50/2", Rational(25)),
    ("240000000000/1000000000", Rational(240)),
]

private let frameRateErrorCases: [(String, String)] = [
    ("0", "frame rate \"0\" is outside 1…240"),
    ("241", "frame rate \"241\" is outside 1…240"),
    ("240.5", "frame rate \"240.5\" is outside 1…240"),
    ("0.5", "frame rate \"0.5\" is outside 1…240"),
    ("-25", "frame rate \"-25\" is not a number or \"N/D\" (write digits with an optional fraction, like 29.97, or a ratio like 30000/1001; no sign, exponent or spaces)"),
    ("-30000/1001", "frame rate \"-30000/1001\" is outside 1…240"),
    ("1/0", "frame rate \"1/0\" has a zero denominator"),
    ("1/-2", "frame rate \"1/-2\" is not of the form \"N/D\" with integers N and D"),
    ("+30000/1001", "frame rate \"+30000/1001\" is not of the form \"N/D\" with integers N and D"),
    ("30000/1001 ", "frame rate \"30000/1001 \" is not of the form \"N/D\" with integers N and D"),
]

/// Text that is not a plain decimal or "N/D": every one gets the same message.
private let frameRateSyntaxErrorCases = ["abc", "25 fps", "1e2", "2.997e1", "+30", " 30", "30 ", "3 0", "30.", ".5", "0x1E",
                                         "", "-", "∞", "NaN", "３０"]

/// JSON number literals, exponent included (JSON's grammar), taken exactly.
private let jsonNumberFrameRateCases: [(String, Rational)] = [
    ("1e2", Rational(100)),
    ("2.997e1", Rational(30000, 1001)),
    ("2.4E+1", Rational(24)),
    ("25", Rational(25)),
    ("2400e-1", Rational(240)),
]

private let jsonNumberFrameRateErrorCases: [(String, String)] = [
    ("-25", "frame rate \"-25\" is outside 1…240"),
    ("1e-300", "frame rate \"1e-300\" is too precise: its exact timescale exceeds 2^31"),
    ("2.41e2", "frame rate \"2.41e2\" is outside 1…240"),
    ("+25", "frame rate \"+25\" is not a number"),
]

/// Plain decimals (inside strings such as "-12dB" and "192k", and on the command line): digits with an optional
/// fraction, nothing else.
private let plainDecimalCases: [(String, Time)] = [
    ("0", .zero), ("2.5", Time(value: 5, timescale: 2)), ("007.50", Time(value: 15, timescale: 2)),
    ("0.000000001", Time(value: 1, timescale: 1_000_000_000)),
]

private let plainDecimalErrorCases = ["", "-1", "+1", "1e3", "1E3", " 1", "1 ", "1 000", "1.", ".5", "1.5.2", "0x10", "NaN",
                                      "∞", "１"]

@Suite struct TimeSyntaxTests {
    @Test(arguments: decimalCases)
    func parsesDecimalsExactly(text: String, value: Int64, timescale: Int64) throws {
        let time = try TimeSyntax.parseDecimal(text)
        #expect(time.value == value)
        #expect(time.timescale == timescale)
    }

    @Test(arguments: decimalErrorCases)
    func refusesUnrepresentableDecimals(text: String, message: String) {
        #expect(throws: TimeParseError(message)) { try TimeSyntax.parseDecimal(text) }
    }

    @Test(arguments: syntaxErrorCases)
    func refusesMalformedDecimals(text: String) {
        let message = "\"\(text)\" is not a number (expected digits with an optional fraction and exponent, like 2.5 or 1e-3)"
        #expect(throws: TimeParseError(message)) { try TimeSyntax.parseDecimal(text) }
    }

    @Test func hugeLiteralsFailQuickly() throws {
        let manyDigits = String(repeating: "9", count: 100_000)
        #expect(throws: TimeParseError("number \"\(manyDigits.prefix(37))…\" is too large: it does not fit a 64-bit value")) {
            try TimeSyntax.parseDecimal(manyDigits)
        }
        let longExponent = "1e-" + String(repeating: "9", count: 100_000)
        #expect(throws: TimeParseError.self) { try TimeSyntax.parseDecimal(longExponent) }
        #expect(try TimeSyntax.parseDecimal("0." + String(repeating: "0", count: 100_000)) == .zero)
    }

    @Test(arguments: stringCases)
    func parsesStrings(text: String, frameRate: Rational?, expected: Time) throws {
        #expect(try TimeSyntax.parseString(text, frameRate: frameRate) == expected)
    }

    @Test(arguments: stringErrorCases)
    func refusesBadStrings(text: String, frameRate: Rational?, message: String) {
        #expect(throws: TimeParseError(message)) { try TimeSyntax.parseString(text, frameRate: frameRate) }
    }

    @Test(arguments: frameRateCases)
    func parsesFrameRates(text: String, expected: Rational) throws {
        #expect(try TimeSyntax.parseFrameRate(text) == expected)
    }

    @Test(arguments: frameRateErrorCases)
    func refusesBadFrameRates(text: String, message: String) {
        #expect(throws: TimeParseError(message)) { try TimeSyntax.parseFrameRate(text) }
    }

    @Test(arguments: frameRateSyntaxErrorCases)
    func refusesFrameRatesThatAreNotPlainDecimalsOrRatios(text: String) {
        let message = "frame rate \"\(text)\" is not a number or \"N/D\" (write digits with an optional fraction, "
            + "like 29.97, or a ratio like 30000/1001; no sign, exponent or spaces)"
        #expect(throws: TimeParseError(message)) { try TimeSyntax.parseFrameRate(text) }
    }

    @Test(arguments: jsonNumberFrameRateCases)
    func parsesFrameRatesFromJSONNumbers(text: String, expected: Rational) throws {
        #expect(try TimeSyntax.parseFrameRate(jsonNumber: text) == expected)
    }

    @Test(arguments: jsonNumberFrameRateErrorCases)
    func refusesBadFrameRatesFromJSONNumbers(text: String, message: String) {
        #expect(throws: TimeParseError(message)) { try TimeSyntax.parseFrameRate(jsonNumber: text) }
    }

    @Test(arguments: plainDecimalCases)
    func parsesPlainDecimals(text: String, expected: Time) throws {
        #expect(try TimeSyntax.parsePlainDecimal(text, subject: "level") == expected)
    }

    @Test(arguments: plainDecimalErrorCases)
    func refusesAnythingButPlainDecimals(text: String) {
        let message = "level is not a plain decimal number (digits with an optional fraction, like 2.5; no sign, exponent or spaces)"
        #expect(throws: TimeParseError(message)) { try TimeSyntax.parsePlainDecimal(text, subject: "level") }
    }
}
