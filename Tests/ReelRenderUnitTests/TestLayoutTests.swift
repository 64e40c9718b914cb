import Foundation
import ReelUnitTestSupport
import Testing

/// The split of docs/testing.md, checked from the sources so that it cannot drift: every test target is either a
/// unit target or an end-to-end target, the Makefile runs them under those names, a unit target neither depends on
/// ReelTestSupport (the process runner and the media makers) nor starts a process itself, every process a test
/// starts goes through ReelTestSupport's runner, and no test reports a skip by printing it.
@Suite struct TestLayoutTests {
    /// Test targets whose tests start no process and open no media file.
    static let unitTargets = ["ReelTimeTests", "ReelModelTests", "ReelInterchangeTests", "ReelMediaUnitTests",
                              "ReelRenderUnitTests"]
    /// Test targets whose tests make or read real media, run the ffmpeg CLI or the `reel` binary, or render.
    static let endToEndTargets = ["ReelMediaEndToEndTests", "ReelRenderEndToEndTests", "ReelCLITests"]

    static let tests = Workplace.repository.appendingPathComponent("Tests")

    static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: Workplace.repository.appendingPathComponent(relativePath), encoding: .utf8)
    }

    /// The Swift files under `Tests/folder`, as (path relative to Tests/, contents).
    static func sources(in folder: String) throws -> [(path: String, text: String)] {
        let root = tests.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        return try walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map { name in
            ("\(folder)/\(name)", try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8))
        }
    }

    /// Each `.testTarget(name: …)` of Package.swift with the text of its declaration (up to the next target).
    static func declaredTestTargets() throws -> [String: String] {
        let manifest = try text("Package.swift")
        var targets: [String: String] = [:]
        let pieces = manifest.components(separatedBy: ".testTarget(name: \"").dropFirst()
        for piece in pieces {
            let name = String(piece.prefix { $0 != "\"" })
            let declaration = piece.components(separatedBy: "\n        .").first ?? piece
            targets[name] = declaration
        }
        return targets
    }

    @Test func everyTestTargetIsUnitOrEndToEndAndTheMakefileAgrees() throws {
        let declared = try Self.declaredTestTargets()
        #expect(Set(declared.keys) == Set(Self.unitTargets + Self.endToEndTargets),
                "Package.swift's test targets: \(declared.keys.sorted())")
        let makefile = try Self.text("Makefile")
        #expect(makefile.contains("UNIT_TARGETS := " + Self.unitTargets.joined(separator: " ") + "\n"))
        #expect(makefile.contains("E2E_TARGETS := " + Self.endToEndTargets.joined(separator: " ") + "\n"))
        for target in Self.unitTargets + Self.endToEndTargets {
            var isFolder: ObjCBool = false
            let folder = Self.tests.appendingPathComponent(target).path
            #expect(FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) && isFolder.boolValue,
                    "no folder Tests/\(target)")
        }
    }

    @Test func unitTargetsDoNotDependOnTheProcessRunner() throws {
        let declared = try Self.declaredTestTargets()
        for target in Self.unitTargets {
            let declaration = try #require(declared[target], "Package.swift declares no \(target)")
            #expect(!declaration.contains("\"ReelTestSupport\""), "\(target) depends on ReelTestSupport")
        }
    }

    /// Ways to start a process from Swift, as patterns over source text.
    static let processStarters = [#"\bimport ReelTestSupport\b"#, #"\bProcess\("#, #"\bposix_spawn"#, #"\bpopen\("#,
                                  #"\bsystem\("#, #"\bexecv"#, #"\.waitUntilExit\(\)"#]

    /// This file names the patterns it looks for, so the scans leave it out.
    static let thisFile = "ReelRenderUnitTests/TestLayoutTests.swift"

    @Test func unitTestsStartNoProcess() throws {
        let patterns = try Self.processStarters.map { ($0, try Regex($0)) }
        for target in Self.unitTargets + ["ReelUnitTestSupport"] {
            for source in try Self.sources(in: target) where source.path != Self.thisFile {
                for (pattern, regex) in patterns where source.text.contains(regex) {
                    Issue.record("\(source.path) matches \(pattern): a unit test starts no process")
                }
            }
        }
    }

    @Test func everyProcessGoesThroughTheOneRunner() throws {
        let runner = "ReelTestSupport/ProcessRunner.swift"
        let patterns = try Self.processStarters.dropFirst().map { ($0, try Regex($0)) }
        var files = 0
        for folder in Self.unitTargets + Self.endToEndTargets + ["ReelTestSupport", "ReelUnitTestSupport"] {
            for source in try Self.sources(in: folder) where source.path != runner && source.path != Self.thisFile {
                files += 1
                for (pattern, regex) in patterns where source.text.contains(regex) {
                    Issue.record("\(source.path) matches \(pattern): start processes with ReelTestSupport's run or start")
                }
            }
        }
        #expect(files > 100, "only \(files) test files were read")
        #expect(try Self.text("Tests/" + runner).contains("Process()"))
    }

    @Test func noTestReportsASkipByPrinting() throws {
        let pattern = try Regex(#"print\([^)]*[Ss]kip"#)
        for folder in Self.unitTargets + Self.endToEndTargets + ["ReelTestSupport", "ReelUnitTestSupport"] {
            for source in try Self.sources(in: folder) where source.path != Self.thisFile && source.text.contains(pattern) {
                Issue.record("\(source.path) prints a skip: use .enabled(if: condition, \"what it needs\")")
            }
        }
    }
}
