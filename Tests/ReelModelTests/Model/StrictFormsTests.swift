import Foundation
import ReelModel
import ReelTime
import Testing

// The string forms of the format (docs/format.md, "Times" and "Values") are read strictly: no exponent, no
// leading plus, no spaces inside or around a number. JSON numbers follow JSON's grammar, exponent included, and
// are taken exactly when they are exactly representable (docs/decisions.md, "Strict string forms").

/// A project whose output has `member` (e.g. `"frameRate": 30`) and otherwise nothing to complain about.
private func outputProject(_ member: String) -> String {
    #"{"reel": 1, "output": {"path": "o.mp4", "end": 1, \#(member)}, "timeline": {"clips": []}}"#
}

/// A project with one colour clip whose members include `member` (e.g. `"volume": "-6dB"`).
private func clipProject(_ member: String, frameRate: String = "30") -> String {
    ##"{"reel": 1, "output": {"path": "o.mp4", "frameRate": \##(frameRate), "size": [64, 36]}, "assets": {"c": {"color": "#102030"}}, "timeline": {"clips": [{"asset": "c", "duration": 2, \##(member)}]}}"##
}

private let acceptedFrameRates: [(json: String, rate: Rational)] = [
    ("30", Rational(30)),
    ("29.97", Rational(30000, 1001)),
    ("1e2", Rational(100)),
    ("2.997e1", Rational(30000, 1001)),
    ("2.4E+1", Rational(24)),
    (#""30000/1001""#, Rational(30000, 1001)),
    (#""050/2""#, Rational(25)),
]

private let refusedFrameRates: [(json: String, message: String)] = [
    (#""1e2""#, #"frame rate "1e2" is a string, which must be "N/D""#),
    (#""30""#, #"frame rate "30" is a string, which must be "N/D""#),
    (#""+30000/1001""#, #"frame rate "+30000/1001" is not of the form "N/D" with integers N and D"#),
    (#""30000/+1001""#, #"frame rate "30000/+1001" is not of the form "N/D" with integers N and D"#),
    (#"" 30000/1001""#, #"frame rate " 30000/1001" is not of the form "N/D" with integers N and D"#),
    (#""30000 /1001""#, #"frame rate "30000 /1001" is not of the form "N/D" with integers N and D"#),
    (#""30000/1001 ""#, #"frame rate "30000/1001 " is not of the form "N/D" with integers N and D"#),
    (#""3e4/1001""#, #"frame rate "3e4/1001" is not of the form "N/D" with integers N and D"#),
    ("1e-300", #"frame rate "1e-300" is too precise: its exact timescale exceeds 2^31"#),
    ("2.41e2", #"frame rate "2.41e2" is outside 1…240"#),
]

private let acceptedGains: [(text: String, decibels: Double)] = [
    ("-12dB", -12), ("6dB", 6), ("0dB", 0), ("-6.5dB", -6.5), ("-3db", -3), ("12DB", 12), ("007dB", 7),
]

private let refusedGains = ["+6dB", "-1e1dB", "1E1dB", " -6dB", "-6dB ", "-6 dB", "- 6dB", "-6. dB", "6.dB", ".5dB",
                            "--6dB", "-inf dB", "nandB", "infdB", "0x1p3dB", "dB", "-dB", "6", "6 d B", "６dB"]

private let refusedBitRates = ["1e3k", "+192k", " 192k", "192k ", "19 2k", "192 k", "-192k", "192", "1.k", "0x10k"]

private let refusedTimeStrings: [(text: String, message: String)] = [
    ("+1/2", #"time "+1/2" is not of the form "N/D" with integers N and D"#),
    ("1/+2", #"time "1/+2" is not of the form "N/D" with integers N and D"#),
    (" 1/2", #"time " 1/2" is not of the form "N/D" with integers N and D"#),
    ("1 /2", #"time "1 /2" is not of the form "N/D" with integers N and D"#),
    ("1e1/2", #"time "1e1/2" is not of the form "N/D" with integers N and D"#),
    ("+48f", #"frame count "+48f" is not a non-negative whole number of frames followed by "f""#),
    ("4 8f", #"frame count "4 8f" is not a non-negative whole number of frames followed by "f""#),
    ("4e1f", #"frame count "4e1f" is not a non-negative whole number of frames followed by "f""#),
    ("00:01:1e1", #"clock time "00:01:1e1" has a seconds field "1e1" that is not a number like 05 or 05.25"#),
    ("00:01: 05", #"clock time "00:01: 05" has a seconds field " 05" that is not a number like 05 or 05.25"#),
    ("+00:01:05", #"clock time "+00:01:05" is not of the form HH:MM:SS.sss or MM:SS.sss"#),
    ("00:00:01:+5", #"timecode "00:00:01:+5" is not of the form HH:MM:SS:FF or HH:MM:SS;FF"#),
    ("00:00:01:05 ", #"timecode "00:00:01:05 " is not of the form HH:MM:SS:FF or HH:MM:SS;FF"#),
]

@Suite("strict string forms and JSON numbers")
struct StrictFormsTests {
    @Test(arguments: acceptedFrameRates)
    func acceptsFrameRates(json: String, rate: Rational) throws {
        let (project, diagnostics) = readProject(outputProject(#""frameRate": \#(json)"#))
        #expect(diagnostics.map(\.humanText) == [])
        #expect(try #require(project).output.frameRate == rate)
    }

    @Test(arguments: refusedFrameRates)
    func refusesFrameRates(json: String, message: String) {
        let found = readProject(outputProject(#""frameRate": \#(json)"#)).diagnostics
        #expect(found.map { "\($0.path): \($0.message)" } == ["$.output.frameRate: \(message)"])
    }

    @Test(arguments: acceptedGains)
    func acceptsGainStrings(text: String, decibels: Double) throws {
        let (project, diagnostics) = readProject(clipProject(#""volume": "\#(text)""#))
        #expect(diagnostics.map(\.humanText) == [])
        guard case .clip(let clip)? = project?.timeline?.items.first else {
            Issue.record("no clip")
            return
        }
        #expect(abs(clip.volume - pow(10, decibels / 20)) < 1e-12)
    }

    @Test(arguments: refusedGains)
    func refusesGainStrings(text: String) {
        let found = readProject(clipProject(#""volume": "\#(text)""#)).diagnostics
        #expect(found.map(\.humanText) == [
            "error: $.timeline.clips[0].volume: \"\(text)\" is not a gain\n       hint: use a number from 0 to 4 or a level like \"-12dB\" (digits with an optional minus and fraction before dB; no plus sign, exponent or spaces)",
        ])
    }

    @Test(arguments: refusedBitRates)
    func refusesBitRateStrings(text: String) {
        let found = readProject(outputProject(#""video": {"bitrate": "\#(text)"}"#)).diagnostics
        #expect(found.map(\.humanText) == [
            "error: $.output.video.bitrate: \"\(text)\" is not a bit rate\n       hint: use bits per second, or a string like \"192k\" or \"5M\"",
        ])
    }

    @Test func acceptsBitRateStrings() throws {
        let project = try #require(readProject(outputProject(#""video": {"bitrate": "2.5M"}, "audio": {"bitrate": "192k"}"#)).project)
        #expect(project.output.video.bitrate == 2_500_000)
        #expect(project.output.audio?.bitrate == 192_000)
    }

    @Test(arguments: refusedTimeStrings)
    func refusesTimeStrings(text: String, message: String) {
        let found = readProject(clipProject(#""in": "\#(text)""#)).diagnostics
        #expect(found.map { "\($0.path): \($0.message)" } == ["$.timeline.clips[0].in: \(message)"])
        // Issue 33: every refused time string's hint lists the forms a time takes, units included.
        #expect(found.map(\.hint) == [TimeSyntax.writtenForms])
    }

    @Test func theHintOfARefusedTimeNamesEveryUnitTheParserTakes() throws {
        let found = readProject(clipProject(#""in": "2 sec""#)).diagnostics
        let hint = try #require(found.first?.hint)
        for example in ["2.5", "\"1001/30000\"", "\"48f\"", "\"2s\"", "\"500ms\"", "\"250us\"", "\"1.5min\"", "\"2h\"",
                        "\"HH:MM:SS.sss\"", "\"MM:SS.sss\"", "\"HH:MM:SS:FF\"", "\"HH:MM:SS;FF\""] {
            #expect(hint.contains(example), "the hint lacks \(example)")
        }
        // Each example in the hint is itself a time the parser takes.
        for example in ["2s", "500ms", "250us", "1.5min", "2h", "1001/30000", "48f", "01:02:03.5", "02:03.25", "00:00:01:12"] {
            #expect(throws: Never.self) { try TimeSyntax.parseString(example, frameRate: Rational(30)) }
        }
    }

    /// SPEC §5.1 refuses what is not exactly representable (`1e-300`); a JSON number with an exponent that is
    /// exactly representable is a valid time, as JSON's grammar allows the exponent.
    @Test func jsonNumbersWithExponentsAreTakenExactlyWhenRepresentable() throws {
        let (project, diagnostics) = readProject(clipProject(#""in": 5e-1, "speed": 2E0"#))
        #expect(diagnostics.map(\.humanText) == [])
        guard case .clip(let clip)? = project?.timeline?.items.first else {
            Issue.record("no clip")
            return
        }
        #expect(clip.inPoint == Time(value: 1, timescale: 2))
        #expect(clip.speed == Rational(2))
        #expect(readProject(clipProject(#""in": 1e-300"#)).diagnostics.map { "\($0.path): \($0.message)" } == [
            "$.timeline.clips[0].in: number \"1e-300\" is too precise: its exact timescale exceeds 2^31",
        ])
    }
}
