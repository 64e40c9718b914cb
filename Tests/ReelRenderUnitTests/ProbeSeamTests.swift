@testable import ReelMedia
@testable import ReelRender
import ReelModel
import Testing

/// Probing goes through the `SourceOpener` seam (issue 34), as decoding and packet reading do: what the opener says
/// of a file is what the catalog and the probe cache report, so a test can put media facts behind it.
@Suite struct ProbeSeamTests {
    /// Answers every probe with a missing file, and notes the paths it was asked for.
    final class RecordingOpener: SourceOpener, @unchecked Sendable {
        private(set) var probed: [String] = []

        func openVideo(path: String, stream: Int) throws(MediaError) -> any VideoSourceReader {
            throw MediaError(.unsupported, "no pictures", path: path)
        }

        func openAudio(path: String, stream: Int, sampleRate: Int, channels: Int) throws(MediaError)
            -> any AudioSourceReader { throw MediaError(.unsupported, "no sound", path: path) }

        func probe(path: String) throws(MediaError) -> MediaInfo {
            probed.append(path)
            throw MediaError(.missing, "the fake has no such file", path: path)
        }
    }

    static let text = #"""
        {"reel": 1, "output": {"path": "o.mp4", "size": [64, 36], "frameRate": 30},
         "assets": {"a": {"path": "media/a.mp4"}, "b": {"image": "b.png"}, "c": {"color": "#ff0000"}},
         "timeline": {"clips": [{"asset": "a"}]}}
        """#

    @Test func theCatalogProbesEachFileThroughTheOpener() throws {
        let project = try #require(ProjectReader.read(Self.text, baseDirectory: "/work").project)
        let opener = RecordingOpener()
        let catalog = ProbedMedia(project: project, opener: opener)
        #expect(opener.probed.sorted() == ["/work/b.png", "/work/media/a.mp4"])
        guard case .failure(let diagnostic, _) = catalog.facts["a"] else {
            Issue.record("asset a has facts the fake never gave")
            return
        }
        #expect(diagnostic.category == .missingInput)
        #expect(diagnostic.path == JSONPath.root.key("assets").key("a").key("path"))
        #expect(catalog.facts["c"] == nil, "a colour asset has no file to probe")
    }

    @Test func theProbeCacheAsksTheOpenerOncePerFile() throws {
        let project = try #require(ProjectReader.read(Self.text, baseDirectory: "/work").project)
        let opener = RecordingOpener()
        let cache = ProbeCache()
        _ = ProbedMedia(project: project, opener: opener, cache: cache)
        _ = ProbedMedia(project: project, opener: opener, cache: cache)
        #expect(opener.probed.sorted() == ["/work/b.png", "/work/media/a.mp4"])
        #expect(cache.probeCount == 2)
    }
}
