import Foundation

/// Finds an executable product built alongside the running test binary, e.g. `reel`.
///
/// The environment variable `REEL_EXECUTABLE` (a path) wins when `name` is `"reel"`.
/// Otherwise the directory of the test process's executable and up to three of its
/// parents are searched (SwiftPM puts products beside `…PackageTests.xctest` on Linux
/// and a few levels above the bundle's inner executable on macOS).
/// - Throws: `SupportError` naming the places searched when there is no such executable.
public func builtExecutable(named name: String) throws -> URL {
    if name == "reel", let override = ProcessInfo.processInfo.environment["REEL_EXECUTABLE"], !override.isEmpty {
        return URL(fileURLWithPath: override)
    }
    let start = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments.first ?? "")
    var directory = start.resolvingSymlinksInPath().deletingLastPathComponent()
    var searched: [String] = []
    for _ in 0..<4 {
        let candidate = directory.appendingPathComponent(name)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory),
           !isDirectory.boolValue, FileManager.default.isExecutableFile(atPath: candidate.path) {
            return candidate
        }
        searched.append(directory.path)
        directory = directory.deletingLastPathComponent()
    }
    throw SupportError("no built executable \"\(name)\" in \(searched.joined(separator: ", ")); build it first")
}
