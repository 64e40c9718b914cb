import Foundation
import Synchronization

/// Media the ffmpeg CLI makes from its arguments alone, made once per test process and copied to every test that
/// asks for it.
///
/// Suites make their media in each test's `init`, so a suite of twenty tests used to encode the same tone or test
/// pattern twenty times (about a tenth of `make test`'s CPU). `run("ffmpeg", …)` asks `cachedRun` first: a call
/// that reads nothing but lavfi sources and writes one file runs once into a cache folder; that call and every
/// later one with the same arguments get a copy of the file at the path they named and the first run's
/// `ProcessResult`. Each test still owns its own file. A failed run is not kept. `IndexedMedia` keys its piped
/// frames the same way.
enum GeneratedMedia {
    /// One cached file: the first run's result and where its output lies, filled under the entry's own lock so that
    /// tests asking for different files never wait for each other.
    private final class Entry: Sendable {
        let made = Mutex<(result: ProcessResult, file: URL)?>(nil)
    }

    private static let entries = Mutex<[String: Entry]>([:])

    /// The cache, removed when the test process exits.
    private static let folder: URL? = {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("reel-generated-media-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
        guard (try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)) != nil else {
            return nil
        }
        atexit { GeneratedMedia.removeFolder() }
        return url
    }()

    private static func removeFolder() {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// Filters and options that read a file named inside an argument; a call using one depends on more than its
    /// arguments. An absolute path anywhere but in the last argument (the output) does too.
    private static func readsAFile(_ argument: String) -> Bool {
        argument.contains(#/movie=|subtitles=|ass=|lut3d=|lut1d=|haldclut|sendcmd|(^|[=:'"\s])/[A-Za-z.]/#)
    }

    /// The output of an ffmpeg call whose result depends on its arguments alone: every `-i` is a lavfi source, no
    /// argument names a file to read, and the last argument is the one absolute output path. Nil for any other call.
    static func output(ofGenerating args: [String]) -> URL? {
        guard let last = args.last, last.hasPrefix("/"), !last.contains("%"), args.count >= 2 else { return nil }
        for (index, argument) in args.dropLast().enumerated() {
            if argument == "-i", !(index >= 2 && args[index - 2] == "-f" && args[index - 1] == "lavfi") { return nil }
            if readsAFile(argument) { return nil }
        }
        let output = URL(fileURLWithPath: last)
        // Without -y ffmpeg refuses to replace a file; that refusal is the caller's to see.
        if !args.contains("-y"), FileManager.default.fileExists(atPath: output.path) { return nil }
        return output
    }

    /// A 64-bit FNV-1a digest of every byte of `data` (`Data`'s own hash reads only its first bytes).
    static func digest(_ data: Data) -> UInt64 {
        data.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    /// The result of `produce` writing the file `key` describes, copied to `output`: `produce` runs (writing where
    /// it is told) only the first time a key is asked for, or again after a failed run.
    static func result(key: String, output: URL, produce: (URL) throws -> ProcessResult) throws -> ProcessResult {
        guard let folder else { return try produce(output) }
        let entry = entries.withLock { entries in
            if let entry = entries[key] { return entry }
            let entry = Entry()
            entries[key] = entry
            return entry
        }
        let made = try entry.made.withLock { made -> (result: ProcessResult, file: URL)? in
            if let made { return made }
            let file = folder.appendingPathComponent("\(UUID().uuidString).\(output.pathExtension)")
            let result = try produce(file)
            guard result.status == 0, !result.terminatedBySignal,
                  FileManager.default.fileExists(atPath: file.path) else {
                try? FileManager.default.removeItem(at: file)
                return nil
            }
            made = (result, file)
            return made
        }
        guard let made else { return try produce(output) }
        try? FileManager.default.removeItem(at: output)
        try FileManager.default.copyItem(at: made.file, to: output)
        return made.result
    }
}
