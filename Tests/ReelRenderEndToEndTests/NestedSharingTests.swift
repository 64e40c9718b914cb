import Foundation
import ReelMedia
import ReelModel
@testable import ReelRender
import ReelTestSupport
import ReelTime
import Testing

/// Issue 38 point 5, "the child's decoders and rasterised titles are shared, not opened per use", counted inside
/// one render through the library: 20 uses in turn of one lower third (the same `with`) rasterise its title and
/// shape and make its render core as often as one use does; 20 uses shown at once do too; a
/// see-through child (drawn over black and over white) opens its video once per use, as an opaque child does; 20
/// uses in turn of a child with sound make its mixer and open its audio once.
/// The counts would grow with the uses if the sharing broke. The pictures themselves are compared with main's
/// binary by framemd5 (docs/benchmarks.md, the share38 note), not here.
@Suite struct NestedSharingTests {
    let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-nested-sharing")
        _ = try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=s=160x90:r=25:d=5,format=yuv420p",
                                      "-c:v", "libx264", "-crf", "18", "-g", "25", "-bf", "0", folder.file("src.mkv").path])
    }

    /// What one render counted: rasters made, child cores made, video readers opened.
    struct Counts: Equatable {
        let rasters: Int
        let childCores: Int
        let videoOpens: Int
    }

    /// An opener counting the video readers it opens.
    final class CountingOpener: SourceOpener {
        let base = MediaFileOpener(policy: .localFilesOnly)
        var videoOpens = 0
        var audioOpens = 0

        func openVideo(path: String, stream: Int) throws(MediaError) -> any VideoSourceReader {
            videoOpens += 1
            return try base.openVideo(path: path, stream: stream)
        }
        func openReversedVideo(path: String, stream: Int) throws(MediaError) -> any VideoSourceReader {
            videoOpens += 1
            return try base.openReversedVideo(path: path, stream: stream)
        }
        func openAudio(path: String, stream: Int, sampleRate: Int, channels: Int) throws(MediaError)
            -> any AudioSourceReader {
            audioOpens += 1
            return try base.openAudio(path: path, stream: stream, sampleRate: sampleRate, channels: channels)
        }
        func openPackets(path: String) throws(MediaError) -> any PacketSource { try base.openPackets(path: path) }
        func probe(path: String) throws(MediaError) -> MediaInfo { try base.probe(path: path) }
    }

    /// A 320×180 parent over a colour with `uses` overlays of the inline composition "lower" (320×60: the source
    /// video under the layers when `video`, a rounded plate, a title), each 0.2 s long, starting `step` s apart,
    /// placed side by side; the child's background `background`.
    func project(uses: Int, step: Double, background: String, video: Bool = false) -> String {
        let clip = video ? #"{"asset": "src", "duration": 0.2}"# : #"{"gap": 0.2}"#
        let overlays = (0..<uses).map { i in
            #"{"video": "lower", "start": \#(String(format: "%.2f", Double(i) * step)), "position": [0.5, \#(0.2 + 0.6 * Double(i % 4) / 3)]}"#
        }
        return """
            {"reel": 1, "output": {"size": [320, 180], "frameRate": 25, "audio": false},
             "assets": {"ground": {"color": "#203040"}, "src": {"path": "src.mkv"}, "lower": {"composition": "lower"}},
             "compositions": {"lower": {"size": [320, 60], "frameRate": 25, "background": "\(background)",
                 "timeline": {"clips": [\(clip)],
                     "overlays": [{"shape": {"type": "rectangle", "size": [200, 40], "cornerRadius": 8, "fill": "#FFCC0080"},
                                   "start": 0, "duration": 0.2, "position": [0.6, 0.5]}],
                     "titles": [{"text": "Grace Hopper", "size": 20, "start": 0, "duration": 0.2, "position": [0.6, 0.5]}]}}},
             "timeline": {"clips": [{"asset": "ground", "duration": \(String(format: "%.2f", max(1, Double(uses) * step + 0.2)))}],
                          "overlays": [\(overlays.joined(separator: ", "))]}}
            """
    }

    /// Renders `text` (all frames, pictures dropped) and returns what it counted.
    func counts(_ text: String) throws -> Counts {
        let loaded = ProjectLoader.load(Array(text.utf8), baseDirectory: folder.url.path)
        let compiled = try #require(loaded.compiled, "\(loaded.diagnostics.map(\.humanText))")
        let catalog = SourceCatalog(project: compiled, facts: try #require(loaded.catalog).facts)
        let sharing = NestedSharing()
        let opener = CountingOpener()
        let core = try RenderCore(project: compiled, catalog: catalog, opener: opener,
                                  compositor: makeCompositor(for: compiled), sharing: sharing)
        try core.run(FrameGrid(compiled), into: PictureSink(), cancellation: CancellationFlag())
        return Counts(rasters: sharing.rasters.made, childCores: sharing.childCoresMade, videoOpens: opener.videoOpens)
    }

    /// A parent with `uses` overlays of the inline composition "jingle" (a 0.5 s tone under a gap), each 0.2 s from
    /// `in` 0.1, starting `step` s apart; mixed whole at 48 kHz stereo through the library's mixer. Returns the
    /// child mixers made and the audio files opened.
    func soundCounts(uses: Int, step: Double) throws -> (mixers: Int, audioOpens: Int) {
        if !FileManager.default.fileExists(atPath: folder.file("tone.wav").path) {
            _ = try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "aevalsrc='sin(2*PI*440*t)':s=48000:c=stereo:d=0.5",
                                          "-c:a", "pcm_s16le", folder.file("tone.wav").path])
        }
        let overlays = (0..<uses).map { i in
            #"{"video": "jingle", "start": \#(String(format: "%.2f", Double(i) * step)), "in": 0.1, "duration": 0.2}"#
        }
        let text = """
            {"reel": 1, "output": {"size": [160, 90], "frameRate": 25, "audio": {"sampleRate": 48000, "channels": 2}},
             "assets": {"ground": {"color": "#203040"}, "tone": {"path": "tone.wav"}, "jingle": {"composition": "jingle"}},
             "compositions": {"jingle": {"size": [160, 90], "frameRate": 25,
                 "timeline": {"clips": [{"gap": 0.5}], "audio": [{"id": "tone", "asset": "tone"}]}}},
             "timeline": {"clips": [{"asset": "ground", "duration": \(String(format: "%.2f", max(1, Double(uses) * step + 0.2)))}],
                          "overlays": [\(overlays.joined(separator: ", "))]}}
            """
        let loaded = ProjectLoader.load(Array(text.utf8), baseDirectory: folder.url.path)
        let compiled = try #require(loaded.compiled, "\(loaded.diagnostics.map(\.humanText))")
        let catalog = SourceCatalog(project: compiled, facts: try #require(loaded.catalog).facts)
        let opener = CountingOpener()
        let mixer = try AudioMixer(project: compiled, catalog: catalog, opener: opener, sampleRate: 48000, channels: 2)
        let total = try compiled.duration.count(atRate: 48000, rounding: .up)
        let buffers = SampleBuffers(channels: 2, capacity: AudioMixer.maximumChunk)
        var heard: Float = 0
        var at: Int64 = 0
        while at < total {
            let count = Int(min(Int64(AudioMixer.maximumChunk), total - at))
            try mixer.mix(fromSample: at, sampleCount: count, into: buffers)
            for k in 0..<count { heard = max(heard, abs(buffers.planes[0][k])) }
            at += Int64(count)
        }
        #expect(heard > 0.9, "the tone is heard")
        return (mixer.sounds.mixersMade, opener.audioOpens)
    }

    @Test func twentyUsesInTurnOpenTheChildsSoundOnce() throws {
        let one = try soundCounts(uses: 1, step: 0.4)
        #expect(one.mixers == 1 && one.audioOpens == 1)
        let twenty = try soundCounts(uses: 20, step: 0.4)
        #expect(twenty.mixers == 1 && twenty.audioOpens == 1, "\(twenty)")
        // Heard at the same time, each use holds its own mixer (and so its own decoder).
        let together = try soundCounts(uses: 3, step: 0)
        #expect(together.mixers == 3 && together.audioOpens == 3, "\(together)")
    }

    @Test func twentyUsesInTurnMakeTheChildsRastersAndCoreOnce() throws {
        let one = try counts(project(uses: 1, step: 0.4, background: "#000000"))
        let twenty = try counts(project(uses: 20, step: 0.4, background: "#000000"))
        #expect(one == Counts(rasters: 2, childCores: 1, videoOpens: 0))
        #expect(twenty == one)
    }

    @Test func twentyUsesAtOnceRasteriseTheChildOnce() throws {
        let one = try counts(project(uses: 1, step: 0, background: "#000000"))
        let twenty = try counts(project(uses: 20, step: 0, background: "#000000"))
        #expect(one.rasters == 2)
        #expect(twenty.rasters == one.rasters)
        // Shown together at the same times, they read one reader (as a `fit: blur` fill and its clip do), so one core.
        #expect(twenty.childCores == 1)
    }

    @Test func aSeeThroughChildDecodesItsVideoOnce() throws {
        let opaque = try counts(project(uses: 1, step: 0.4, background: "#000000", video: true))
        let seeThrough = try counts(project(uses: 1, step: 0.4, background: "#00000000", video: true))
        #expect(opaque == Counts(rasters: 2, childCores: 1, videoOpens: 1))
        // Two cores (over black, over white), one reader of the video.
        #expect(seeThrough == Counts(rasters: 2, childCores: 2, videoOpens: 1))
        let twenty = try counts(project(uses: 20, step: 0.4, background: "#00000000", video: true))
        #expect(twenty.rasters == 2)
        #expect(twenty.childCores == 2)
    }
}
