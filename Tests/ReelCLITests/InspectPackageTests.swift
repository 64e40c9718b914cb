import Foundation
import ReelTestSupport
import Testing

/// `reel inspect` of the HLS and DASH packages reel itself writes (issue 33, point 11): media and master playlists,
/// DASH manifests, an init segment alone, and `--loudness` through the segments. The packages are rendered here
/// with `reel render` (docs/outputs.md); what inspect says is compared with ffprobe's reading of the same files.
@Suite struct InspectPackageTests: CLISuite {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        (folder, reel) = try Self.workspace(prefix: "reel-inspect-packages")
        // 3 s of the 1 s clip, 2 s segments: two segments per package. A second HLS rendition makes a master.
        // Entries are placed relative to the main output's folder (docs/outputs.md, "Where outputs go").
        _ = try write("p.json", """
            { "reel": 1,
              "output": { "path": "hls/index.m3u8", "size": [64, 36], "frameRate": 30, "segmentDuration": 2 },
              "outputs": [ { "path": "../hls2/index.m3u8", "size": [32, 18], "segmentDuration": 2 },
                           { "path": "../dash/movie.mpd", "segmentDuration": 2 } ],
              "assets": { "clip": { "path": "clip.mp4" } },
              "timeline": { "clips": [ { "asset": "clip" }, { "asset": "clip" }, { "asset": "clip" } ] } }
            """)
        let rendered = try run(reel.path, ["render", folder.file("p.json").path, "--mkdir", "-q"])
        try #require(rendered.status == 0, "\(rendered.stderrText)")
    }

    /// `reel inspect --json PATH` as an object.
    func inspect(_ path: String, _ extra: [String] = []) throws -> (status: Int32, json: [String: Any]?, stderr: String) {
        let result = try run(reel.path, ["inspect", "--json"] + extra + [folder.file(path).path])
        let object = try? JSONSerialization.jsonObject(with: Data(result.stdoutText.utf8)) as? [String: Any]
        return (result.status, object, result.stderrText)
    }

    func streams(_ object: [String: Any]?) -> [(type: String, codec: String)] {
        ((object?["streams"] as? [[String: Any]]) ?? []).map { ($0["type"] as? String ?? "", $0["codec"] as? String ?? "") }
    }

    @Test(arguments: ["hls/index.m3u8", "hls2/index.m3u8", "dash/movie.mpd"])
    func aPlaylistIsReadThroughItsSegments(_ path: String) throws {
        let inspected = try inspect(path)
        #expect(inspected.status == 0, "\(inspected.stderr)")
        #expect(streams(inspected.json).map(\.type).sorted() == ["audio", "video"], "\(String(describing: inspected.json))")
        #expect(streams(inspected.json).contains { $0 == ("video", "h264") })
        #expect(streams(inspected.json).contains { $0 == ("audio", "aac") })
        let duration = try #require(inspected.json?["duration"] as? Double)
        let probed = try #require(try probe(folder.file(path)).formatDuration)
        #expect(abs(duration - probed) < 0.1, "reel \(duration) s, ffprobe \(probed) s")
        #expect(abs(duration - 3) < 0.1)
        // The text form names the demuxer.
        let text = try run(reel.path, ["inspect", folder.file(path).path])
        #expect(text.status == 0 && text.stdoutText.contains(path.hasSuffix(".mpd") ? "dash" : "hls"), "\(text.stdoutText)")
    }

    /// Two HLS outputs get a master playlist; inspect reads it too (the variants' streams).
    @Test func theMasterPlaylistIsRead() throws {
        let masters = try FileManager.default.contentsOfDirectory(atPath: folder.file("hls").path).filter { $0.hasSuffix(".m3u8") && $0 != "index.m3u8" }
        let master = try #require(masters.first, "no master playlist beside hls/index.m3u8")
        let inspected = try inspect("hls/" + master)
        #expect(inspected.status == 0, "\(inspected.stderr)")
        let sizes = Set(((inspected.json?["streams"] as? [[String: Any]]) ?? []).compactMap { $0["width"] as? Int })
        #expect(sizes == [64, 32], "\(String(describing: inspected.json))")
    }

    /// An init segment alone describes its streams and holds no samples: inspect lists the streams; loudness has
    /// nothing to measure and says so, naming the playlist to measure instead.
    @Test func anInitSegmentAloneReportsItsStreams() throws {
        let inspected = try inspect("hls/index_init.mp4")
        #expect(inspected.status == 0, "\(inspected.stderr)")
        #expect(streams(inspected.json).map(\.type).sorted() == ["audio", "video"], "\(String(describing: inspected.json))")
        let video = ((inspected.json?["streams"] as? [[String: Any]]) ?? []).first { $0["type"] as? String == "video" }
        #expect(video?["width"] as? Int == 64 && video?["height"] as? Int == 36)
        let loudness = try run(reel.path, ["inspect", "--loudness", folder.file("hls/index_init.mp4").path])
        #expect(loudness.status == 65, "\(loudness.stdoutText) \(loudness.stderrText)")
        #expect(loudness.stderrText.contains("init segment") && loudness.stderrText.contains("playlist"), "\(loudness.stderrText)")
    }

    /// `--loudness` of a package measures the sound through its segments, as the ffmpeg CLI's ebur128 does.
    @Test(arguments: ["hls/index.m3u8", "dash/movie.mpd"])
    func loudnessOfAPackage(_ path: String) throws {
        let inspected = try inspect(path, ["--loudness"])
        #expect(inspected.status == 0, "\(inspected.stderr)")
        let loudness = try #require(inspected.json?["loudness"] as? [String: Any], "\(String(describing: inspected.json))")
        let integrated = try #require(loudness["integrated"] as? Double, "\(loudness)")
        let reference = try run("ffmpeg", ["-nostats", "-hide_banner", "-i", folder.file(path).path, "-vn",
                                           "-af", "ebur128", "-f", "null", "-"])
        let summary = try #require(reference.stderrText.components(separatedBy: "Summary:").last)
        let line = try #require(summary.split(separator: "\n").first { $0.contains("I:") && $0.contains("LUFS") })
        let expected = try #require(Double(line.split(separator: " ").dropFirst().first { Double($0) != nil } ?? ""))
        #expect(abs(integrated - expected) < 0.5, "reel \(integrated) LUFS, ebur128 \(expected) LUFS")
    }
}
