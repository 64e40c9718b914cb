import Foundation
import ReelTestSupport
import ReelUnitTestSupport
import Testing

/// The projects shipped in `examples/`, with the media `make demo` generates (scripts/make-demo-media.sh run in a
/// copy of the layout): each validates as written, and renders — its first two seconds, at half size, every file of it
/// into a folder of the test's (`--output-dir`) — to files ffmpeg decodes without a message.
@Suite struct ExamplesTests {
    let folder: TemporaryDirectory
    let reel: URL

    /// Every `examples/*.json`, by name.
    static let projects: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(
            atPath: Workplace.repository.appendingPathComponent("examples").path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }()

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-examples")
        reel = try builtExecutable(named: "reel")
        let examples = folder.file("examples"), scripts = folder.file("scripts")
        try FileManager.default.createDirectory(at: examples, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: scripts, withIntermediateDirectories: true)
        for name in Self.projects {
            try FileManager.default.copyItem(at: Workplace.repository.appendingPathComponent("examples/" + name),
                                             to: examples.appendingPathComponent(name))
        }
        try FileManager.default.copyItem(at: Workplace.repository.appendingPathComponent("scripts/make-demo-media.sh"),
                                         to: scripts.appendingPathComponent("make-demo-media.sh"))
        let made = try run("bash", [scripts.appendingPathComponent("make-demo-media.sh").path])
        #expect(made.status == 0, "\(made.stderrText)")
    }

    /// One test for all of them, so the media is made once.
    @Test func everyExampleValidatesAndRenders() throws {
        #expect(Self.projects.contains("demo.json") && Self.projects.count >= 5, "\(Self.projects)")
        for name in Self.projects { try check(name) }
    }

    private func check(_ name: String) throws {
        let project = folder.file("examples/" + name).path
        // The projects write into ../out, which a fresh checkout lacks: validate sees the folder is missing, nothing
        // else.
        let validated = try run(reel.path, ["validate", project, "--json"])
        let problems = validated.stdoutText.split(separator: "\n")
            .filter { !$0.contains("output folder") || !$0.contains("does not exist") }
        #expect(problems.isEmpty, "\(name): \(validated.stdoutText)\(validated.stderrText)")

        let out = folder.file("out-" + name)
        let rendered = try run(reel.path, ["render", project, "--output-dir", out.path, "--mkdir", "--range", "0..2",
                                           "--render-scale", "0.5"])
        #expect(rendered.status == 0, "\(name): \(rendered.stderrText)")
        let written = rendered.stderrText.split(separator: "\n").filter { $0.hasPrefix("wrote ") }.map { String($0.dropFirst(6)) }
        #expect(!written.isEmpty, "\(name): \(rendered.stderrText)")
        for file in written {
            #expect(file.hasPrefix(out.resolvingSymlinksInPath().path) || file.hasPrefix(out.path), "\(file) is outside \(out.path)")
            if file.hasSuffix(".webp") {
                // FFmpeg 5.1's WebP decoder reads no animation: check the RIFF container and its animation frames.
                let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
                #expect(bytes.prefix(4) == Data("RIFF".utf8) && bytes.dropFirst(8).prefix(4) == Data("WEBP".utf8)
                        && bytes.range(of: Data("ANMF".utf8)) != nil, "\(file) is not an animated WebP")
                continue
            }
            let decoded = try run("ffmpeg", ["-v", "error", "-i", file, "-f", "null", "-"])
            #expect(decoded.status == 0 && decoded.stderrText.isEmpty, "\(file): \(decoded.stderrText)")
        }
    }

    /// Every complete project in the docs' ```json blocks (an object with `"reel"` and `"assets"`, not a template),
    /// with stand-ins for its media made by the ffmpeg CLI at the paths it names (12 s of testsrc2 and a tone for a
    /// movie, a tone for a sound file, a still for an image): each validates and renders its first second.
    @Test func everyCompleteProjectInTheDocsRenders() throws {
        var found = 0
        for document in ["README.md"] + (try FileManager.default.contentsOfDirectory(
            atPath: Workplace.repository.appendingPathComponent("docs").path)).filter { $0.hasSuffix(".md") }.map { "docs/" + $0 } {
            let text = try String(contentsOf: Workplace.repository.appendingPathComponent(document), encoding: .utf8)
            for (index, block) in text.components(separatedBy: "```json\n").dropFirst().enumerated() {
                guard let body = block.components(separatedBy: "```").first,
                      let project = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
                      project["reel"] != nil, project["variables"] == nil,
                      let assets = project["assets"] as? [String: [String: Any]] else { continue }
                found += 1
                let place = folder.file("docs-\(found)")
                try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true)
                for asset in assets.values {
                    guard let written = (asset["path"] ?? asset["image"]) as? String else { continue }
                    try makeStandIn(place.appendingPathComponent(written))
                }
                let file = place.appendingPathComponent("project.json")
                try body.write(to: file, atomically: true, encoding: .utf8)
                let validated = try run(reel.path, ["validate", file.path, "--json"])
                let problems = validated.stdoutText.split(separator: "\n")
                    .filter { !$0.contains("output folder") || !$0.contains("does not exist") }
                #expect(problems.isEmpty, "\(document) block \(index + 1): \(validated.stdoutText)")
                let rendered = try run(reel.path, ["render", file.path, "--output-dir", place.appendingPathComponent("out").path,
                                                   "--mkdir", "--range", "0..1", "-q"])
                #expect(rendered.status == 0, "\(document) block \(index + 1): \(rendered.stderrText)")
            }
        }
        #expect(found >= 3, "only \(found) complete projects found in the docs")
    }

    /// A stand-in for a media file the docs name, by its extension.
    private func makeStandIn(_ url: URL) throws {
        guard !FileManager.default.fileExists(atPath: url.path) else { return }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let movie = ["-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30:duration=12", "-f", "lavfi",
                     "-i", "sine=frequency=440:duration=12:sample_rate=48000", "-pix_fmt", "yuv420p", "-shortest"]
        let sound = ["-f", "lavfi", "-i", "sine=frequency=330:duration=12:sample_rate=48000"]
        let still = ["-f", "lavfi", "-i", "color=c=orange:size=64x64", "-frames:v", "1"]
        let source: [String]
        switch url.pathExtension.lowercased() {
        case "m4a", "flac", "wav", "mp3", "opus", "ogg": source = sound
        case "png", "jpg", "jpeg", "webp": source = still
        default: source = movie
        }
        try runChecked("ffmpeg", ["-v", "error", "-y"] + source + [url.path])
    }
}

