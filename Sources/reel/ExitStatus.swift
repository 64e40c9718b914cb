import ArgumentParser
import Foundation
import ReelMedia
import ReelModel
import ReelRender

/// The exit codes reel ends with (sysexits, SPEC §7). No other file spells a code.
extension ExitCode {
    /// `reel diff`: the two versions differ in what a viewer sees or hears (as diff(1) exits 1).
    static let changed = ExitCode(1)
    /// `EX_USAGE`: a flag or argument is wrong.
    static let usage = ExitCode(64)
    /// `EX_DATAERR`: the project, or data in a source, is invalid.
    static let invalid = ExitCode(65)
    /// `EX_NOINPUT`: the project or a media file is missing or unreadable.
    static let missingInput = ExitCode(66)
    /// `EX_UNAVAILABLE`: a codec, encoder, format or feature is unavailable.
    static let unsupported = ExitCode(69)
    /// `EX_SOFTWARE`: a bug or an impossible state.
    static let internalError = ExitCode(70)
    /// `EX_CANTCREAT`: the output exists without `--force`, or its folder is missing or not writable.
    static let cannotCreate = ExitCode(73)
    /// `EX_IOERR`: reading or writing failed, in every command.
    static let io = ExitCode(74)
    /// SIGINT or SIGTERM: 128 + SIGINT, as a shell reports an interrupted command.
    static let interrupted = ExitCode(130)
}

/// A failure a command detects itself: a message for standard error, if there is anything left to say, and the
/// exit code. Thrown from `run()`; `Exit` prints it.
struct CommandFailure: Error {
    /// The exit code.
    let code: ExitCode
    /// One line for a person, printed after "error: "; nil when everything was already printed.
    let message: String?

    /// A failure with `code`, explained by `message`.
    init(_ code: ExitCode, _ message: String? = nil) {
        self.code = code
        self.message = message
    }

    /// A flag or argument is wrong.
    static func usage(_ message: String) -> CommandFailure {
        CommandFailure(.usage, message)
    }

    /// The project did not load: its diagnostics, already printed by `Exit.report(_:json:)`, decide the code.
    static func rejected(_ diagnostics: [Diagnostic]) -> CommandFailure {
        CommandFailure(Exit.code(for: diagnostics))
    }

    /// The reader of standard output went away before the command had written everything (EPIPE): exit 74.
    static let outputClosed = CommandFailure(.io, "standard output was closed by its reader before reel had "
                                             + "written everything; the output is incomplete")

    /// A SIGINT or SIGTERM stopped the command before it finished.
    static let interrupted = CommandFailure(.interrupted)
}

/// The one place reel turns errors and diagnostic lists into text and exit codes, as swift-argument-parser's
/// `MessageInfo` does for its own errors.
///
/// `Reel.main()` hands every error thrown by parsing or a command to `settle(_:)`. Reel's errors (`CommandFailure`,
/// `RenderError`, `MediaError`) are printed on standard error as "error: …" and become their exit code;
/// swift-argument-parser's own (parse errors, `ValidationError` with its usage text, `CleanExit`, `ExitCode`) pass
/// through to it unchanged.
enum Exit {
    /// What to hand `exit(withError:)` for `error`: reel's errors are printed here and become their `ExitCode`.
    static func settle(_ error: any Error) -> any Error {
        switch error {
        case let failure as CommandFailure:
            return report(failure)
        case let error as RenderError:
            return report(CommandFailure(code(for: error.kind), error.message))
        case let error as MediaError:
            return report(CommandFailure(code(for: error.kind), error.description))
        default:
            return error
        }
    }

    /// Prints `failure`'s message, if any, and returns its exit code.
    ///
    /// `validate()` throws the result rather than the failure: swift-argument-parser wraps what `validate()` throws
    /// before `settle(_:)` sees it, and reports any error but its own as "Error: …" with status 1.
    static func report(_ failure: CommandFailure) -> ExitCode {
        if Console.jsonMessages {
            // In JSON mode the exit line follows (`Console.finish`), message or not.
            if let message = failure.message {
                printError(Console.jsonLine(for: "error: " + message, extra: [("exitCode", String(failure.code.rawValue))]))
            }
        } else if let message = failure.message {
            printError("error: \(message)")
        }
        return failure.code
    }

    /// Prints diagnostics in the human form on standard error, each naming `file` (the project as typed, or
    /// `<stdin>`) and its place in it; with `json`, as JSON lines on standard output instead, and nothing on
    /// standard error (`validate --json`: a machine reads one stream).
    static func report(_ diagnostics: [Diagnostic], file: ProjectFile? = nil, json: Bool = false) {
        for reported in diagnostics {
            var diagnostic = reported
            // A project from standard input has no folder: its relative paths resolve against the working directory.
            if file?.isStandardInput == true, let hint = diagnostic.hint {
                diagnostic.hint = hint.replacing(
                    "relative paths resolve against the project file's folder",
                    with: "a project from standard input resolves relative paths against the working directory "
                        + "(\(FileManager.default.currentDirectoryPath))")
            }
            if json {
                printOutput(diagnostic.jsonLine(file: file?.jsonName))
            } else if Console.jsonMessages {
                // SPEC §5's --json object, with its type first.
                printError("{\"type\":\"diagnostic\"," + diagnostic.jsonLine(file: file?.jsonName).dropFirst())
            } else {
                printError(file.map { diagnostic.humanText(file: $0.displayName) } ?? diagnostic.humanText)
            }
        }
    }

    /// `--strict`: every warning becomes an error of an invalid project (exit 65), marked as such in its message;
    /// a missing output folder stays a destination problem (exit 73, as without --mkdir when rendering).
    static func strict(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        diagnostics.map { reported in
            guard reported.severity == .warning else { return reported }
            var promoted = reported
            promoted.severity = .error
            if promoted.category != .cannotCreateOutput { promoted.category = .invalid }
            promoted.message += " (a warning, an error under --strict)"
            return promoted
        }
    }

    /// The exit code for a list of problems: success without errors, else the worst kind's
    /// (`RenderError.Kind(worstOf:)` says which wins).
    static func code(for diagnostics: [Diagnostic]) -> ExitCode {
        RenderError.Kind(worstOf: diagnostics).map { code(for: $0) } ?? .success
    }

    /// The worst of several exit codes (`reel validate a.json b.json`): by the same order as `code(for:)`.
    static func worst(_ codes: [ExitCode]) -> ExitCode {
        let order: [ExitCode] = [.usage, .missingInput, .invalid, .unsupported, .cannotCreate]
        return order.first { codes.contains($0) } ?? codes.first { $0 != .success } ?? .success
    }

    /// The exit code for a render or thumbnail that stopped.
    static func code(for kind: RenderError.Kind) -> ExitCode {
        switch kind {
        case .invalid: .invalid
        case .usage: .usage
        case .missingInput: .missingInput
        case .unsupported: .unsupported
        case .internal: .internalError
        case .cannotCreateOutput: .cannotCreate
        case .io: .io
        case .cancelled: .interrupted
        }
    }

    /// The exit code for a media file that could not be probed (`reel inspect`); the same classes as a render's.
    static func code(for kind: MediaError.Kind) -> ExitCode {
        switch kind {
        case .missing, .unreadable: .missingInput
        case .unsupported: .unsupported
        case .io: .io
        case .internal: .internalError
        case .notRegularFile, .refusedProtocol, .notMedia, .noSuchStream, .corrupt: .invalid
        }
    }
}
