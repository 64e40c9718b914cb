import Foundation

/// The folders around the repository that tests read: the repository itself (docs, examples, scripts) and the
/// workplace's shared corpora beside it (`../shared/media`, `../shared/interchange`, `../shared/captions`), which
/// exist only where reel is developed. Tests that read a corpus are enabled only when it is present.
///
/// `REEL_SHARED` (a folder) stands in for `../shared`, for a checkout that is not beside it (a git worktree).
public enum Workplace {
    /// The repository's root folder (this file is Tests/ReelUnitTestSupport/Workplace.swift).
    public static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The folder of the shared corpora: `REEL_SHARED`, else `shared` beside the repository.
    public static let shared: URL = {
        if let folder = ProcessInfo.processInfo.environment["REEL_SHARED"], !folder.isEmpty {
            return URL(fileURLWithPath: folder, isDirectory: true)
        }
        return repository.deletingLastPathComponent().appendingPathComponent("shared", isDirectory: true)
    }()

    /// Media other projects' encoders made (`../shared/media`).
    public static let media = SharedFolder("media", what: "the shared media folder")
    /// Edit decision lists and OpenTimelineIO files from other projects (`../shared/interchange`, MANIFEST.md).
    public static let interchange = SharedFolder("interchange", what: "the shared interchange corpus")
    /// Subtitle and transcript files from other projects (`../shared/captions`).
    public static let captions = SharedFolder("captions", what: "the caption corpus")
}

/// One folder of `../shared` beside the repository.
public struct SharedFolder: Sendable {
    /// Where the folder is (whether or not it exists).
    public let url: URL
    /// Whether the folder exists; a test that reads it is enabled only then.
    public let isPresent: Bool
    /// Why a test that reads the folder did not run, for `.enabled(if:)`.
    public let absence: String

    init(_ name: String, what: String) {
        url = Workplace.shared.appendingPathComponent(name)
        isPresent = FileManager.default.fileExists(atPath: url.path)
        absence = "\(url.path) is absent (\(what) is only in this workplace)"
    }

    /// The URL of `name` inside the folder (not checked).
    public func file(_ name: String) -> URL {
        url.appendingPathComponent(name)
    }
}
