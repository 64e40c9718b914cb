import ArgumentParser
import Foundation
import ReelModel

/// How reel prints swift-argument-parser's own errors: spelled `error:` like every other reel error, with the
/// usage lines after it, and a "did you mean" hint for what people coming from other tools type.
enum UsageErrors {
    /// Subcommand names, for "did you mean" on a mistyped one.
    static let subcommands: [String] = Reel.configuration.subcommands.map { $0._commandName }

    /// Prints `error` (one swift-argument-parser could not settle itself) and returns its exit code.
    static func report(_ error: any Error, arguments: [String]) -> Int32 {
        let code = Reel.exitCode(for: error)
        var message = Reel.fullMessage(for: error)
        // An exit code thrown from `validate()` arrives wrapped, its message already printed by `Exit`.
        if message.isEmpty { return code.rawValue }
        if message.hasPrefix("Error: ") { message = "error: " + message.dropFirst("Error: ".count) }
        if let hint = hint(for: message, arguments: arguments) {
            // The hint goes right after the first line, before the usage text.
            var lines = message.components(separatedBy: "\n")
            lines.insert("       hint: " + hint, at: 1)
            message = lines.joined(separator: "\n")
        }
        if code == .success {
            print(message)
        } else if Console.jsonMessages {
            // The usage lines after the message are for a person reading a terminal.
            let lines = message.components(separatedBy: "\n").filter { !$0.hasPrefix("Usage:") && !$0.hasPrefix("See '") }
            printError(Console.jsonLine(for: lines.joined(separator: "\n"), extra: [("exitCode", String(code.rawValue))]))
        } else {
            printError(message)
        }
        return code.rawValue
    }

    /// A hint for common slips: `-y` (ffmpeg's overwrite flag) to `render`, and a subcommand a letter or two off.
    static func hint(for message: String, arguments: [String]) -> String? {
        if arguments.first == "render",
           message.contains("'-y'") || message.contains("'--yes'") || message.contains("'--overwrite'") {
            return "did you mean --force? (reel replaces an existing output only with --force)"
        }
        if let first = arguments.first, !first.hasPrefix("-"), !subcommands.contains(first),
           message.contains("'\(first)'") {
            if let close = closestSubcommand(to: first) {
                return "did you mean 'reel \(close)'?"
            }
            return "reel's commands are " + subcommands.joined(separator: ", ")
        }
        return nil
    }

    /// The subcommand close to `name`, by the same measure as the "did you mean" of unknown JSON keys.
    static func closestSubcommand(to name: String) -> String? {
        suggestion(for: name, among: subcommands)
    }
}
