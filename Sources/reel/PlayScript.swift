import Foundation
import ReelRender
import ReelTime

/// A `reel play --script` program: commands separated by `;`, run one after another in the player's loop, so a
/// test (or a demo) can drive playback without a keyboard.
///
/// | command | does | next command runs |
/// |---|---|---|
/// | `play [D]` | plays at the current rate (1 unless changed) | after D of wall-clock time (at once without D) |
/// | `wait D` | nothing | after D of wall-clock time |
/// | `pause` | pauses | once the paused frame is on screen |
/// | `seek T` | seeks exactly to item time T | once T's frame is on screen |
/// | `step N` | steps N frames (negative: back), pausing | once that frame is on screen |
/// | `rate R` | sets the playback rate (0.25 to 4) | at once |
/// | `loop on`/`loop off` | loops at the end or not | at once |
/// | `key K` | what key K does (`PlayKey`: space, left, right, shift-left, shift-right, comma, period, bracket-left, bracket-right, home, end, l, t, q) | once the frame for the time then is on screen |
/// | `quit` | ends playback | — |
///
/// Times are the command line's forms (`10`, `00:00:10:00`, `25f`), read with the project's frame rate, or
/// seconds with an `s` (`2s`, `1.5s`). The script starts once the first picture is on screen;
/// without `quit` the window stays open after it.
struct PlayScript {
    enum Command: Equatable {
        case play(Time?)
        case wait(Time)
        case pause
        case seek(Time)
        case step(Int)
        case rate(Double)
        case loop(Bool)
        case key(PlayKey)
        case quit
    }

    let commands: [Command]

    /// Parses `text`; throws a usage failure naming the bad command.
    init(_ text: String, frameRate: Rational?) throws {
        var commands: [Command] = []
        for part in text.split(separator: ";") {
            let words = part.split(separator: " ").map(String.init)
            guard let name = words.first else { continue }
            let argument = words.count > 1 ? words[1] : nil
            func time() throws -> Time {
                guard let argument, words.count == 2 else {
                    throw CommandFailure.usage("--script: \"\(part.trimmed)\" takes one time")
                }
                do {
                    // "2s" reads as 2 seconds here, as people write durations.
                    let seconds = argument.hasSuffix("s") && Double(argument.dropLast()) != nil
                    let parsed = try ProjectLoader.parseCommandLineTime(
                        seconds ? String(argument.dropLast()) : argument, frameRate: frameRate)
                    guard !parsed.isNegative else { throw CommandFailure.usage("--script: \"\(part.trimmed)\": negative time") }
                    return parsed
                } catch let error as TimeParseError {
                    throw CommandFailure.usage("--script: \"\(part.trimmed)\": \(error.message)")
                }
            }
            switch name {
            case "play": commands.append(.play(argument == nil ? nil : try time()))
            case "wait": commands.append(.wait(try time()))
            case "pause" where argument == nil: commands.append(.pause)
            case "seek": commands.append(.seek(try time()))
            case "step":
                guard let argument, words.count == 2, let count = Int(argument) else {
                    throw CommandFailure.usage("--script: \"\(part.trimmed)\" takes a whole number of frames")
                }
                commands.append(.step(count))
            case "rate":
                guard let argument, words.count == 2, let rate = Double(argument), rate >= 0.25, rate <= 4 else {
                    throw CommandFailure.usage("--script: \"\(part.trimmed)\" takes a rate from 0.25 to 4")
                }
                commands.append(.rate(rate))
            case "loop" where argument == "on" || argument == "off": commands.append(.loop(argument == "on"))
            case "key":
                guard let argument, words.count == 2, let key = PlayKey(rawValue: argument) else {
                    throw CommandFailure.usage("--script: \"\(part.trimmed)\" takes one of "
                        + PlayKey.allCases.map(\.rawValue).joined(separator: ", "))
                }
                commands.append(.key(key))
            case "quit" where argument == nil: commands.append(.quit)
            default:
                throw CommandFailure.usage(
                    "--script: unknown command \"\(part.trimmed)\" (play, wait, pause, seek, step, rate, loop, key, quit)")
            }
        }
        self.commands = commands
    }
}

private extension Substring {
    var trimmed: String { String(self).trimmingCharacters(in: .whitespaces) }
}

/// The keys `reel play` answers, by the names `--script`'s `key` command uses.
enum PlayKey: String, CaseIterable, Equatable {
    case pauseResume = "space", back5 = "left", forward5 = "right", back1 = "shift-left", forward1 = "shift-right"
    case previousFrame = "comma", nextFrame = "period", slower = "bracket-left", faster = "bracket-right"
    case home, end, loop = "l", timeLine = "t", quit = "q"
}
