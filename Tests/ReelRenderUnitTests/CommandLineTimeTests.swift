import ReelRender
import ReelTime
import Testing

// Times typed on the command line (--range, --at, --every, play's --at and --script): a bare number is decimal
// seconds, strictly (digits with an optional fraction); anything else is a string form of the format.

private let acceptedCommandLineTimes: [(text: String, frameRate: Rational?, time: Time)] = [
    ("2.5", nil, Time(value: 5, timescale: 2)),
    ("0", nil, .zero),
    ("10", nil, Time(seconds: 10)),
    ("1001/30000", nil, Time(value: 1001, timescale: 30000)),
    ("48f", Rational(24), Time(seconds: 2)),
    ("00:01:30.5", nil, Time(value: 181, timescale: 2)),
    ("00:00:01:12", Rational(25), Time(value: 37, timescale: 25)),
]

private let refusedCommandLineTimes: [(text: String, message: String)] = [
    ("1e2", #"time "1e2" is not a plain decimal number (digits with an optional fraction, like 2.5; no sign, exponent or spaces)"#),
    ("+2", #"time "+2" is not a plain decimal number (digits with an optional fraction, like 2.5; no sign, exponent or spaces)"#),
    ("-2", #"time "-2" is not a plain decimal number (digits with an optional fraction, like 2.5; no sign, exponent or spaces)"#),
    ("2.", #"time "2." is not a plain decimal number (digits with an optional fraction, like 2.5; no sign, exponent or spaces)"#),
    ("2E0", #"time "2E0" is not a plain decimal number (digits with an optional fraction, like 2.5; no sign, exponent or spaces)"#),
    ("+1/2", #"time "+1/2" is not of the form "N/D" with integers N and D"#),
    (" 2", #"time " 2" is not a recognised form; expected seconds as a number, "N/D", "Nf", "HH:MM:SS.sss", "MM:SS.sss", "HH:MM:SS:FF" or "HH:MM:SS;FF""#),
]

@Suite("command-line times")
struct CommandLineTimeTests {
    @Test(arguments: acceptedCommandLineTimes)
    func acceptsTimes(text: String, frameRate: Rational?, time: Time) throws {
        #expect(try ProjectLoader.parseCommandLineTime(text, frameRate: frameRate) == time)
    }

    @Test(arguments: refusedCommandLineTimes)
    func refusesTimes(text: String, message: String) {
        #expect(throws: TimeParseError(message)) { try ProjectLoader.parseCommandLineTime(text, frameRate: nil) }
    }
}
