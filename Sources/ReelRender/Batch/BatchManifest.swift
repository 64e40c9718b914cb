import Foundation
import ReelModel
import ReelMedia

#if canImport(Glibc)
import Glibc
#endif

/// The manifest of a batch (docs/batch.md): one JSON line per row, written (and flushed to the file) as each row
/// ends, so an interrupted batch leaves a manifest naming the rows that finished.
public final class BatchManifest: Sendable {
    /// Where the lines go; nil: the batch keeps no manifest.
    public let path: String?
    private let descriptor: Int32
    private let lock = Locked<Void>(())
    private let writeProblem = Locked<String?>(nil)
    private let exitStatus: @Sendable (RenderError.Kind?) -> Int32

    /// Why a line could not be written (the first failure: a full disk, an I/O error), or nil while every line was.
    public var failure: String? { writeProblem.withLock { $0 } }

    /// When the batch began (an uptime in nanoseconds): each line's `started` counts from it.
    public let began: UInt64

    /// Opens the manifest at `path` (nil: none); `append` keeps an earlier run's lines. `began` is when the batch
    /// began, as an uptime in nanoseconds; `exitStatus` is the exit code a row that ended so (nil: done) is
    /// recorded with, as the command line says it.
    public init(path: String?, append: Bool, began: UInt64,
                exitStatus: @escaping @Sendable (RenderError.Kind?) -> Int32) throws(RenderError) {
        self.path = path
        self.began = began
        self.exitStatus = exitStatus
        guard let path else {
            descriptor = -1
            return
        }
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC)
        descriptor = open(path, flags, 0o644)
        if descriptor < 0 {
            throw RenderError(.cannotCreateOutput,
                              "--manifest \(path): cannot open it for writing (\(String(cString: strerror(errno))))")
        }
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    /// Appends one row's line: row, output, status, exitCode (of `failure`, nil for a row that ended well), started
    /// (seconds from the batch's beginning to `startedAt`, an uptime in nanoseconds; null for a row refused before
    /// rendering), seconds, warnings, errors, fingerprint and bytes.
    public func record(row: Int, output: String?, status: BatchRowStatus, failure: RenderError.Kind?,
                       startedAt: UInt64? = nil, seconds: Double, warnings: [String], errors: [String],
                       fingerprint: String?, bytes: Int?) {
        guard descriptor >= 0 else { return }
        let object = JSONObject(values: [
            (key: "row", value: .number(String(row))),
            (key: "output", value: output.map { .string($0) } ?? .null),
            (key: "status", value: .string(status.rawValue)),
            (key: "exitCode", value: .number(String(exitStatus(failure)))),
            (key: "started", value: startedAt.map { .number(String(format: "%.3f", Double($0 &- began) / 1e9)) } ?? .null),
            (key: "seconds", value: .number(String(format: "%.3f", seconds))),
            (key: "warnings", value: .array(warnings.map { JSON(.string($0)) })),
            (key: "errors", value: .array(errors.map { JSON(.string($0)) })),
            (key: "fingerprint", value: fingerprint.map { .string($0) } ?? .null),
            (key: "bytes", value: bytes.map { .number(String($0)) } ?? .null),
        ])
        let line = Array((JSONWriter.write(.object(object), pretty: false) + "\n").utf8)
        lock.withLock { _ in
            var offset = 0
            while offset < line.count {
                let written = line[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else {
                    let reason = written < 0 ? String(cString: strerror(errno)) : "nothing was written"
                    writeProblem.withLock { if $0 == nil { $0 = "cannot write to it (\(reason))" } }
                    return
                }
                offset += written
            }
        }
    }

    /// What an earlier run's manifest says about one output.
    public struct Entry: Sendable {
        public let fingerprint: String
        public let bytes: Int?
    }

    /// The last `done` or `skipped` line of each output in the manifest at `path` (none when it does not exist).
    public static func read(_ path: String) -> [String: Entry] {
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        var entries: [String: Entry] = [:]
        for line in data.split(separator: 0x0A) {
            guard let object = (try? JSONParser.parse([UInt8](line)))?.value.objectValue,
                  let output = object["output"]?.value.stringValue else { continue }
            let status = object["status"]?.value.stringValue.flatMap(BatchRowStatus.init(rawValue:))
            if status == .done || status == .skipped, let fingerprint = object["fingerprint"]?.value.stringValue {
                entries[output] = Entry(fingerprint: fingerprint,
                                        bytes: object["bytes"]?.value.numberText.flatMap { Int($0) })
            } else {
                entries[output] = nil
            }
        }
        return entries
    }
}

/// How a row of a batch ended, as the manifest and `--progress json` say it.
public enum BatchRowStatus: String, Sendable {
    /// Rendered.
    case done
    /// Up to date by the manifest (`--resume`): not rendered again.
    case skipped
    /// Invalid, refused or failed.
    case failed
}

/// The files a batch reads (the template, the rows, every row's media and font files), looked up by resolved path
/// and by device and inode, so that each output and the manifest is checked against all of them without comparing
/// every pair; a candidate is confirmed by `InputProtection.isSameFile`, the comparison `reel render` makes.
public struct BatchInputs: Sendable {
    private var byPath: [String: String] = [:]
    private var byNode: [[UInt64]: String] = [:]

    public init() {}

    /// Adds an input, an absolute path.
    public mutating func add(_ path: String) {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard byPath[resolved] == nil else { return }
        byPath[resolved] = path
        if let node = Self.node(path) { byNode[node] = path }
    }

    /// The input `output` would replace, or nil.
    public func clash(_ output: String) -> String? {
        let candidate = byPath[URL(fileURLWithPath: output).resolvingSymlinksInPath().path]
            ?? Self.node(output).flatMap { byNode[$0] }
        return candidate.flatMap { InputProtection.isSameFile(output, $0) ? $0 : nil }
    }

    /// The device and inode of an existing file.
    private static func node(_ path: String) -> [UInt64]? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return [UInt64(status.st_dev), UInt64(status.st_ino)]
    }
}
