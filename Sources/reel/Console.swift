import ArgumentParser
import Foundation
import ReelModel

/// Writes to standard error, unbuffered.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Writes to standard output.
func printOutput(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
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
    /// objects (`{"warning": …, "file": …}`) when stderr carries JSON progress.
    static func reportConcealments(in policy: MediaPolicy, asJSON: Bool = false) {
        for entry in policy.concealments?.entries ?? [] {
            let what = entry.count == 1 ? "1 damaged frame or packet was" : "\(entry.count) damaged frames or packets were"
            let message = "\(what) concealed (--conceal); the output may show artefacts there"
            if asJSON {
                printError("{\"warning\":\(JSONWriter.quoted(message)),\"file\":\(JSONWriter.quoted(entry.path))}")
            } else {
                printError("warning: \(entry.path): \(message)")
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
