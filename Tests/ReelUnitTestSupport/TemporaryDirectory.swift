import Foundation

/// A fresh, uniquely named directory under the system temporary directory,
/// deleted with everything in it when the object goes away (or by `remove()`).
public final class TemporaryDirectory: Sendable {
    /// The directory's location; it exists from `init` until `remove()` or deinit.
    public let url: URL

    /// Creates the directory, named `<prefix>-<UUID>`.
    /// - Throws: the file system's error when it cannot be created.
    public init(prefix: String = "reel-test") throws {
        let name = "\(prefix)-\(UUID().uuidString)"
        url = FileManager.default.temporaryDirectory.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    /// The URL of `name` inside the directory (not created).
    public func file(_ name: String) -> URL {
        url.appendingPathComponent(name, isDirectory: false)
    }

    /// Deletes the directory and its contents now; calling it again does nothing.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    deinit {
        remove()
    }
}
