import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The hidden files and folders a write leaves beside its destination while it runs
/// (`.NAME.HOST.PID.RANDOM.reel-partial`, docs/outputs.md), and the clean-up of those whose process is gone.
///
/// A render removes its own on failure and on SIGINT/SIGTERM, but a process killed with SIGKILL (or a machine that
/// lost power) cannot. So every write first sweeps its destination's folder: a partial made on this machine (its
/// HOST is this host's short name) by a process that no longer exists is removed, and the removal reported through
/// `reporter`. Partials of other machines (a folder shared over NFS by a cluster's nodes) and of live processes are
/// never touched: a PID means nothing on another host, and a live one may still be writing.
public enum StalePartials {
    /// Where removals are reported (`reel` prints them on standard error); nil: not reported.
    public static let reporter = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// This machine's short host name as it appears in partial names: up to the first dot, letters, digits, `-`
    /// and `_` only.
    static let host: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        let name = gethostname(&buffer, buffer.count) == 0
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let short = name.prefix { $0 != "." }.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        return short.isEmpty ? "host" : String(short)
    }()

    /// The hidden name of a write in progress to the file or folder called `name`.
    static func name(for name: String) -> String {
        ".\(name).\(host).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).reel-partial"
    }

    /// The process that made the partial called `name`, when it is one of this machine's.
    static func owner(of name: String) -> pid_t? {
        guard name.hasPrefix("."), name.hasSuffix(".reel-partial") else { return nil }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 6, parts[parts.count - 4] == host, parts[parts.count - 2].allSatisfy(\.isNumber),
              let pid = pid_t(parts[parts.count - 3]), pid > 0 else { return nil }
        return pid
    }

    /// Whether process `pid` exists on this machine (one we may not signal exists too).
    static func isAlive(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }

    /// Removes the partials in `folder` left by processes of this machine that are gone, and reports each.
    /// Returns the names removed.
    @discardableResult
    public static func sweep(folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []
        var removed: [String] = []
        for name in names {
            guard let pid = owner(of: name), pid != getpid(), !isAlive(pid) else { continue }
            let path = (folder.isEmpty ? "." : folder) + "/" + name
            var status = stat()
            guard lstat(path, &status) == 0 else { continue }
            if (status.st_mode & S_IFMT) == S_IFDIR {
                SequenceFolder.removeTemporaryFolder(path)
            } else {
                unlink(path)
            }
            guard lstat(path, &status) != 0 else { continue }
            removed.append(name)
            let message = "removed \(path), left by process \(pid), which is gone"
            reporter.withLock { $0?(message) }
        }
        return removed
    }
}
