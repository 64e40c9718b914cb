import ArgumentParser
import Dispatch
import Foundation
import ReelModel
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Where reel's messages go, and what became of the streams it writes to.
///
/// Every byte reel writes to standard error or standard output passes through here, as plain `write(2)` calls
/// (SIGPIPE is ignored process-wide, see `Interrupts.install`):
/// - with `--progress json`, every line on standard error is one JSON object with a `"type"` member
///   (docs/decisions.md lists the types); plain messages are wrapped on their way out;
/// - when the reader of standard error goes away (EPIPE), messages stop and the command goes on to its end;
/// - when the reader of standard output goes away, further output is dropped and `outputWasCut` says so; the
///   command then ends with `ExitCode.io` (74).
enum Console {
    /// Whether standard error carries JSON lines (`--progress json`).
    static var jsonMessages: Bool { json.load(ordering: .relaxed) }
    private static let json = Atomic<Bool>(false)
    private static let errorClosed = Atomic<Bool>(false)
    private static let outputClosed = Atomic<Bool>(false)

    /// Switches standard error to JSON lines; decided from the command line before parsing, so that even a usage
    /// error comes out as JSON.
    static func useJSONMessages() {
        json.store(true, ordering: .relaxed)
    }

    /// Whether `args` ask for JSON messages: `--progress json` or `--progress=json` before a lone `--`.
    static func asksForJSON(_ args: [String]) -> Bool {
        for (index, argument) in args.enumerated() {
            if argument == "--" { return false }
            if argument == "--progress=json" { return true }
            if argument == "--progress", index + 1 < args.count, args[index + 1] == "json" { return true }
        }
        return false
    }

    /// `finish(exitCode:)` from the interrupt thread, which must end the process even when standard error is blocked
    /// (a reader that stopped reading, another thread holding the write lock): it waits for the line at most 0.2 s.
    static func finishBeforeExit(exitCode: Int32) {
        let written = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            finish(exitCode: exitCode)
            written.signal()
        }
        _ = written.wait(timeout: .now() + 0.2)
    }

    /// Whether standard output lost its reader before everything was written to it.
    static var outputWasCut: Bool { outputClosed.load(ordering: .relaxed) }

    /// Writes `bytes` to standard error; after an EPIPE (nobody reads it any more) nothing is written again, nor
    /// after the JSON exit line (`finish(exitCode:)`).
    static func writeError(_ bytes: some Collection<UInt8>) {
        let line = Array(bytes)
        errorWrites.withLock { finished in
            guard !finished, !errorClosed.load(ordering: .relaxed) else { return }
            if !writeAll(2, line) { errorClosed.store(true, ordering: .relaxed) }
        }
    }

    /// Serialises writes to standard error; true once the exit line is written.
    private static let errorWrites = Mutex<Bool>(false)
    /// The files the command wrote, for the exit line.
    private static let written = Mutex<[String]>([])

    /// Notes files the command wrote and keeps (the exit line of `--progress json` lists them).
    static func recordWritten(_ paths: [String]) {
        written.withLock { $0 += paths }
    }

    /// With `--progress json`, writes the command's last line, `{"type":"exit","exitCode":N,"outputs":[…]}` (the
    /// files written and kept), once per process whatever ends it: `Reel.main` on the way out, or the interrupt
    /// thread before it ends the process. Nothing is written to standard error after it.
    static func finish(exitCode: Int32) {
        guard jsonMessages else { return }
        let outputs = written.withLock { $0 }
        let line = "{\"type\":\"exit\",\"exitCode\":\(exitCode),\"outputs\":["
            + outputs.map(JSONWriter.quoted).joined(separator: ",") + "]}\n"
        errorWrites.withLock { finished in
            guard !finished else { return }
            finished = true
            if !errorClosed.load(ordering: .relaxed) { _ = writeAll(2, Array(line.utf8)) }
        }
    }

    /// Writes `bytes` to standard output; after an EPIPE nothing is written again and `outputWasCut` is true.
    static func writeOutput(_ bytes: some Collection<UInt8>) {
        guard !outputClosed.load(ordering: .relaxed) else { return }
        if !writeAll(1, Array(bytes)) { outputClosed.store(true, ordering: .relaxed) }
    }

    /// Whether standard output is a pipe or socket whose reader has gone (poll reports POLLERR or POLLHUP on the
    /// write end): how a render to `-o -` tells a closed reader from other write errors.
    static func outputReaderIsGone() -> Bool {
        if outputWasCut { return true }
        var entry = pollfd(fd: 1, events: Int16(POLLOUT), revents: 0)
        guard poll(&entry, 1, 0) == 1 else { return false }
        return entry.revents & Int16(POLLERR | POLLHUP) != 0
    }

    /// One message line for standard error: as typed, or as a JSON object in JSON mode. Text that is already a
    /// JSON object passes unchanged; `error: …`, `warning: …` and `note: …` become objects of those types, with
    /// an indented `hint:` line as their `hint`; anything else becomes `{"type":"message"}`.
    static func message(_ text: String) {
        guard jsonMessages else {
            writeError(Array((text + "\n").utf8))
            return
        }
        writeError(Array((jsonLine(for: text) + "\n").utf8))
    }

    /// The JSON form of a plain message (see `message(_:)`).
    static func jsonLine(for text: String, extra: [(String, String)] = []) -> String {
        if text.hasPrefix("{") { return text }
        var lines = text.components(separatedBy: "\n")
        var hint: String?
        if let index = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("hint: ") }) {
            hint = lines[index].trimmingCharacters(in: .whitespaces).dropFirst("hint: ".count).description
            lines.remove(at: index)
        }
        var type = "message"
        var first = lines[0]
        for prefix in ["error", "warning", "note"] where first.hasPrefix(prefix + ": ") {
            type = prefix
            first = String(first.dropFirst(prefix.count + 2))
        }
        lines[0] = first
        let body = lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "\n")
        var members = ["\"type\":\(JSONWriter.quoted(type))", "\"message\":\(JSONWriter.quoted(body))"]
        if let hint { members.append("\"hint\":\(JSONWriter.quoted(hint))") }
        members += extra.map { "\(JSONWriter.quoted($0.0)):\($0.1)" }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// Writes all of `bytes` to `descriptor`, retrying after signals and short writes; false when the write failed
    /// (EPIPE: the reader went away; any other error counts the same: the stream is unusable).
    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}

/// Writes a message line to standard error (JSON-wrapped with `--progress json`; dropped once stderr is closed).
func printError(_ text: String) {
    Console.message(text)
}

/// Writes a line to standard output (dropped once stdout is closed; `Console.outputWasCut` then says so).
func printOutput(_ text: String) {
    Console.writeOutput(Array((text + "\n").utf8))
}

/// Reads a project file, or standard input for "-", and the folder its relative paths resolve against.
func readProject(_ argument: String) throws -> (bytes: [UInt8], baseDirectory: String) {
    let input = try readProjectFile(argument)
    return (input.bytes, input.baseDirectory)
}

/// A project as a command was given it: which file, and how messages name it.
struct ProjectFile: Sendable {
    /// The argument: a path, or "-" for standard input.
    let argument: String

    /// Whether the project comes from standard input.
    var isStandardInput: Bool { argument == "-" }
    /// The name messages start with: the path as typed (so editors and batch logs find it), or `<stdin>`.
    var displayName: String { isStandardInput ? "<stdin>" : argument }
    /// The `file` of `validate --json` lines: the path as typed, null for standard input.
    var jsonName: String? { isStandardInput ? nil : argument }
}

/// A project's bytes, where its relative paths resolve, and its name for messages.
struct ProjectInput {
    let bytes: [UInt8]
    let baseDirectory: String
    let file: ProjectFile
}

/// Reads a project file, or standard input for "-" (whose relative paths resolve against the working directory).
func readProjectFile(_ argument: String) throws -> ProjectInput {
    let file = ProjectFile(argument: argument)
    if file.isStandardInput {
        let data = FileHandle.standardInput.readDataToEndOfFile()
        return ProjectInput(bytes: [UInt8](data), baseDirectory: FileManager.default.currentDirectoryPath, file: file)
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
        throw CommandFailure(.missingInput, "\(argument): no such project file")
    }
    guard !isDirectory.boolValue, let data = FileManager.default.contents(atPath: argument) else {
        throw CommandFailure(.missingInput, "\(argument): cannot read the project file")
    }
    let url = URL(fileURLWithPath: argument).standardizedFileURL
    return ProjectInput(bytes: [UInt8](data), baseDirectory: url.deletingLastPathComponent().path, file: file)
}

/// Options shared by commands that open media.
struct MediaOptions: ParsableArguments {
    @Option(name: .customLong("allow-protocols"),
            help: "Comma-separated libavformat protocols media may use besides local files (e.g. http,https).")
    var allowProtocols: String?

    @Flag(help: "Let FFmpeg conceal corrupt source data (with warnings) instead of failing.")
    var conceal = false

    @Option(name: .customLong("log-level"),
            help: "FFmpeg's own messages on stderr (default: quiet).")
    var logLevel: MediaLogLevel?
}

import ReelMedia

extension MediaOptions {
    var policy: MediaPolicy {
        let protocols = Set((allowProtocols ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }.filter { !$0.isEmpty })
        var policy = MediaPolicy(allowedProtocols: protocols, concealErrors: conceal)
        if conceal { policy.concealments = ConcealmentReport() }
        return policy
    }

    /// FFmpeg's own log lines stay off stderr unless `--log-level` asks for them; what `--conceal` hid is
    /// reported in reel's words by `reportConcealments`.
    func applyLogLevel() {
        (logLevel ?? .quiet).apply()
    }

    /// One warning per file whose damage decoders concealed under `--conceal` (counted in `policy`); as JSON
    /// objects (`{"type": "warning", "message": …, "file": …}`) when stderr carries JSON lines.
    static func reportConcealments(in policy: MediaPolicy) {
        for entry in policy.concealments?.entries ?? [] {
            let what = entry.count == 1 ? "1 damaged frame or packet was" : "\(entry.count) damaged frames or packets were"
            let message = "\(what) concealed (--conceal); the output may show artefacts there"
            if Console.jsonMessages {
                printError(Console.jsonLine(for: "warning: " + message, extra: [("file", JSONWriter.quoted(entry.path))]))
            } else {
                printError("\(entry.path): warning: \(message)")
            }
        }
    }
}

extension MediaLogLevel: ExpressibleByArgument {
    public init?(argument: String) {
        switch argument.lowercased() {
        case "quiet": self = .quiet
        case "error": self = .error
        case "warning": self = .warning
        case "info": self = .info
        default: return nil
        }
    }

    public static var allValueStrings: [String] { ["quiet", "error", "warning", "info"] }
}

extension Preset: ExpressibleByArgument {}

extension ContainerFormat: ExpressibleByArgument {}
