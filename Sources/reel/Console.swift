import ArgumentParser
import Foundation
import ReelModel
import ReelRender

/// Exit codes (sysexits), decided here and nowhere else.
enum Exit {
    static let ok: Int32 = 0
    static let usage: Int32 = 64
    static let invalid: Int32 = 65
    static let missingInput: Int32 = 66
    static let unsupported: Int32 = 69
    static let internalError: Int32 = 70
    static let cannotCreate: Int32 = 73
    static let io: Int32 = 74

    /// The exit code for a list of problems: missing media wins, then invalid content, then unsupported features.
    static func code(for diagnostics: [Diagnostic]) -> Int32 {
        let errors = diagnostics.filter { $0.severity == .error }
        if errors.isEmpty { return ok }
        if errors.contains(where: { $0.category == .missingInput }) { return missingInput }
        if errors.contains(where: { $0.category == .invalid }) { return invalid }
        return unsupported
    }
}

/// Writes to standard error, unbuffered.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Writes to standard output.
func printOutput(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// Prints diagnostics in the human form on stderr (and as JSON lines on stdout with `json`).
func report(_ diagnostics: [Diagnostic], json: Bool = false) {
    for diagnostic in diagnostics {
        if json { printOutput(diagnostic.jsonLine) }
        printError(diagnostic.humanText)
    }
}

/// Reads a project file, or standard input for "-", and the folder its relative paths resolve against.
func readProject(_ argument: String) throws -> (bytes: [UInt8], baseDirectory: String) {
    if argument == "-" {
        let data = FileHandle.standardInput.readDataToEndOfFile()
        return ([UInt8](data), FileManager.default.currentDirectoryPath)
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
        printError("error: \(argument): no such project file")
        throw ExitCode(Exit.missingInput)
    }
    guard !isDirectory.boolValue, let data = FileManager.default.contents(atPath: argument) else {
        printError("error: \(argument): cannot read the project file")
        throw ExitCode(Exit.missingInput)
    }
    let url = URL(fileURLWithPath: argument).standardizedFileURL
    return ([UInt8](data), url.deletingLastPathComponent().path)
}

/// Options shared by commands that open media.
struct MediaOptions: ParsableArguments {
    @Option(name: .customLong("allow-protocols"),
            help: "Comma-separated libavformat protocols media may use besides local files (e.g. http,https).")
    var allowProtocols: String?

    @Flag(help: "Let FFmpeg conceal corrupt source data (with warnings) instead of failing.")
    var conceal = false
}

import ReelMedia

extension MediaOptions {
    var policy: MediaPolicy {
        let protocols = Set((allowProtocols ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }.filter { !$0.isEmpty })
        return MediaPolicy(allowedProtocols: protocols, concealErrors: conceal)
    }

    /// FFmpeg logs errors only, or warnings too when concealment may produce them.
    func applyLogLevel() {
        (conceal ? MediaLogLevel.warning : MediaLogLevel.error).apply()
    }
}
