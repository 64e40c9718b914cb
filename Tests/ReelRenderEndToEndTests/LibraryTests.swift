import Foundation
import ReelModel
import ReelRender
import ReelTestSupport
import ReelTime
import Testing

/// ReelKit used from Swift (SPEC §9): a composition built in code, exported through a session, pictures generated.
@Suite struct LibraryTests {
    @Test func compositionBuiltInCodeExportsAndGeneratesImages() throws {
        let folder = try TemporaryDirectory(prefix: "reel-library")
        defer { folder.remove() }
        try IndexedMedia.makeVideo(at: folder.file("a.mp4"), frameCount: 60, frameRate: "30", gop: 12, bFrames: 2)

        // Frames 30…44 of the source, then an empty second, then frames 10…19 slowed to half speed.
        var editor = MutableComposition()
        let track = try editor.addTrack(.video, id: 1)
        try editor.insertTimeRange(
            TimeRange(start: Time(seconds: 1), duration: Time(value: 1, timescale: 2)), of: "a", into: track, at: .zero)
        try editor.insertTimeRange(
            TimeRange(start: Time(value: 1, timescale: 3), duration: Time(value: 1, timescale: 3)), of: "a",
            into: track, at: Time(value: 1, timescale: 2))
        try editor.scaleTimeRange(
            TimeRange(start: Time(value: 1, timescale: 2), duration: Time(value: 1, timescale: 3)),
            toDuration: Time(value: 2, timescale: 3))
        try editor.insertEmptyTimeRange(TimeRange(start: Time(value: 1, timescale: 2), duration: Time(seconds: 1)))

        var output = OutputSettings(path: folder.file("out.mkv").path)
        output.size = PixelSize(width: 64, height: 36)
        output.frameRate = Rational(30)
        output.audio = nil
        let project = Project(
            output: output, assets: [Asset(id: "a", source: .file(path: "a.mp4", videoTrack: nil, audioTrack: nil, language: nil, rotation: .auto))],
            composition: editor.composition, baseDirectory: folder.url.path)
        let loaded = ProjectLoader.load(project)
        let compiled = try #require(loaded.compiled, "\(loaded.diagnostics.map(\.humanText))")
        let catalog = try #require(loaded.catalog)

        let session = ExportSession(project: compiled, facts: catalog.facts, policy: .localFilesOnly)
        var reports: [Int64] = []
        session.onProgress = { reports.append($0.frame) }
        #expect(session.status == .waiting)
        try session.export(to: .file(folder.file("out.mkv").path), overwrite: false)
        #expect(session.status == .completed)
        #expect(reports.last == 65)
        #expect(reports == reports.sorted())

        let expected = Array(30..<45) + Array(repeating: -1, count: 30) + (0..<20).map { 10 + $0 / 2 }
        #expect(try IndexedMedia.readFrameIndices(of: folder.file("out.mkv"), width: 64, height: 36) == expected)

        let generator = try ImageGenerator(project: compiled, facts: catalog.facts, policy: .localFilesOnly)
        let png = try generator.image(at: Time(value: 19, timescale: 10), format: .png)
        try Data(png).write(to: folder.file("still.png"))
        let gray = try run("ffmpeg", ["-v", "error", "-i", folder.file("still.png").path, "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        // 1.9 s lies 0.4 s into the half-speed part, which starts at 1.5 s: source 1/3 + 0.2 s = frame 16.
        #expect(IndexedMedia.decodeIndex(luma: [UInt8](gray.stdout), width: 64, height: 36) == 16)
    }

    @Test func cancelledSessionLeavesNothing() throws {
        let folder = try TemporaryDirectory(prefix: "reel-library-cancel")
        defer { folder.remove() }
        try IndexedMedia.makeVideo(at: folder.file("a.mp4"), frameCount: 30, frameRate: "30", gop: 12)
        var output = OutputSettings(path: folder.file("out.mp4").path)
        output.size = PixelSize(width: 64, height: 36)
        output.frameRate = Rational(30)
        var editor = MutableComposition()
        let track = try editor.addTrack(.video, id: 1)
        try editor.insertTimeRange(TimeRange(start: .zero, duration: Time(seconds: 1)), of: "a", into: track, at: .zero)
        let project = Project(
            output: output, assets: [Asset(id: "a", source: .file(path: "a.mp4", videoTrack: nil, audioTrack: nil, language: nil, rotation: .auto))],
            composition: editor.composition, baseDirectory: folder.url.path)
        let loaded = ProjectLoader.load(project)
        let compiled = try #require(loaded.compiled, "\(loaded.diagnostics.map(\.humanText))")
        let session = ExportSession(project: compiled, facts: try #require(loaded.catalog).facts, policy: .localFilesOnly)
        // Weak: the session keeps its handler, so a handler holding the session would never be freed (LeakSanitizer).
        session.onProgress = { [weak session] in if $0.frame == 5 { session?.cancel() } }
        #expect(throws: RenderError.self) { try session.export(to: .file(folder.file("out.mp4").path), overwrite: false) }
        #expect(session.status == .cancelled)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["a.mp4"])
    }

    /// The export plan finds every problem of a request before a file is opened, with the kind the command line
    /// turns into its exit code: a part named wrongly is a usage problem from the library too, and a smart project
    /// is not silently rendered without smart render as a chunk.
    @Test func exportPlanRefusesPartsThatCannotBeWrittenAsAsked() throws {
        let folder = try TemporaryDirectory(prefix: "reel-library-plan")
        defer { folder.remove() }
        try IndexedMedia.makeVideo(at: folder.file("a.mp4"), frameCount: 30, frameRate: "30", gop: 12)
        func compiled(path: String, smart: Bool = false) throws -> CompiledProject {
            var output = OutputSettings(path: folder.file(path).path)
            output.size = PixelSize(width: 64, height: 36)
            output.frameRate = Rational(30)
            output.video.smart = smart
            var editor = MutableComposition()
            let track = try editor.addTrack(.video, id: 1)
            try editor.insertTimeRange(TimeRange(start: .zero, duration: Time(seconds: 1)), of: "a", into: track, at: .zero)
            let project = Project(
                output: output, assets: [Asset(id: "a", source: .file(path: "a.mp4", videoTrack: nil, audioTrack: nil,
                                                                       language: nil, rotation: .auto))],
                composition: editor.composition, baseDirectory: folder.url.path)
            let loaded = ProjectLoader.load(project)
            return try #require(loaded.compiled, "\(loaded.diagnostics.map(\.humanText))")
        }
        func kind(_ body: () throws(RenderError) -> ExportPlan) -> RenderError.Kind? {
            do { _ = try body(); return nil } catch { return error.kind }
        }
        let mp4 = try compiled(path: "out.mp4")
        #expect(kind { () throws(RenderError) in
            try ExportPlan(project: mp4, destination: .file(folder.file("out.mp4").path), part: .chunk(index: 0, count: 2))
        } == .usage)
        #expect(kind { () throws(RenderError) in
            try ExportPlan(project: mp4, destination: .file(folder.file("out.mp4").path), part: .audio)
        } == .usage)
        #expect(kind { () throws(RenderError) in
            try ExportPlan(project: mp4, destination: .file(folder.file("out.mp4").path), part: .chunk(index: 2, count: 2))
        } == .usage)
        let smart = try compiled(path: "part.mkv", smart: true)
        #expect(kind { () throws(RenderError) in
            try ExportPlan(project: smart, destination: .file(folder.file("part.mkv").path), part: .chunk(index: 0, count: 2))
        } == .usage)
        let mkv = try compiled(path: "part.mkv")
        #expect(kind { () throws(RenderError) in
            try ExportPlan(project: mkv, destination: .file(folder.file("part.mkv").path), part: .chunk(index: 1, count: 2))
        } == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["a.mp4"])
    }
}
