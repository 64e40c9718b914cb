import ArgumentParser
import Foundation

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
    if argument == "-" {
        let data = FileHandle.standardInput.readDataToEndOfFile()
        return ([UInt8](data), FileManager.default.currentDirectoryPath)
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
        throw CommandFailure(.missingInput, "\(argument): no such project file")
    }
    guard !isDirectory.boolValue, let data = FileManager.default.contents(atPath: argument) else {
        throw CommandFailure(.missingInput, "\(argument): cannot read the project file")
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
