import ReelTime
import Testing

/// Time strings with units (`"2s"`, `"500ms"`, …): exact decimals times the unit.
@Suite struct TimeUnitTests {
    @Test(arguments: [
        ("2s", Time(value: 2, timescale: 1)),
        ("0.1s", Time(value: 1, timescale: 10)),
        ("500ms", Time(value: 1, timescale: 2)),
        ("1001ms", Time(value: 1001, timescale: 1000)),
        ("250us", Time(value: 1, timescale: 4000)),
        ("1.5min", Time(value: 90, timescale: 1)),
        ("2h", Time(value: 7200, timescale: 1)),
        ("-2.5s", Time(value: -5, timescale: 2)),
        ("0ms", Time(value: 0, timescale: 1)),
    ])
    func unitsAreExact(text: String, expected: Time) throws {
        #expect(try TimeSyntax.parseString(text, frameRate: nil) == expected)
    }

    @Test(arguments: [
        ("1e3ms", "time \"1e3ms\" is not a decimal number followed by a unit (like \"2s\", \"500ms\", \"250us\", \"1.5min\" or \"2h\")"),
        ("2 s", "time \"2 s\" is not a decimal number followed by a unit (like \"2s\", \"500ms\", \"250us\", \"1.5min\" or \"2h\")"),
        (".5s", "time \".5s\" is not a recognised form; expected seconds as a number, \"N/D\", \"Nf\", \"HH:MM:SS.sss\", \"MM:SS.sss\", \"HH:MM:SS:FF\" or \"HH:MM:SS;FF\""),
        ("0.0000000001us", "time \"0.0000000001us\" is too precise: its exact timescale 10000000000000000 exceeds 2^31"),
        ("9999999999999999h", "time \"9999999999999999h\" is too large: it does not fit a 64-bit value"),
    ])
    func badUnitsAreErrors(text: String, message: String) {
        #expect(throws: TimeParseError(message)) { try TimeSyntax.parseString(text, frameRate: nil) }
    }

    @Test func framesAndTimecodesAreNotUnits() throws {
        #expect(try TimeSyntax.parseString("48f", frameRate: Rational(24)) == Time(value: 2, timescale: 1))
        #expect(try TimeSyntax.parseString("00:00:02:00", frameRate: Rational(25)) == Time(value: 2, timescale: 1))
        #expect(try TimeSyntax.parseString("01:30.5", frameRate: nil) == Time(value: 181, timescale: 2))
    }
}
