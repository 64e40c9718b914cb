import Foundation
import ReelTestSupport
import Testing

/// A project of sound alone needs no picture settings (docs/outputs.md): an audio-only output, or a timeline of
/// `audio` tracks with nothing to see, validates and renders without `output.size` and `frameRate` (and without
/// clips); the same project in a video container shows the background at 1280×720, 30 fps.
@Suite struct SoundOnlyProjectTests {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-sound-only")
        reel = try builtExecutable(named: "reel")
        // 1.5 s of a 440 Hz tone at 44.1 kHz: 72000 samples once mixed at 48 kHz.
        let made = try run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:d=1.5:sample_rate=44100",
                                      "-ac", "2", "-c:a", "flac", folder.file("tone.flac").path])
        #expect(made.status == 0, "\(made.stderrText)")
    }

    private func write(_ name: String, _ text: String) throws -> String {
        let url = folder.file(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// The timeline form with one extra audio track and nothing else, writing `output`.
    private func timelineProject(_ name: String, output: String) throws -> String {
        try write(name, """
            { "reel": 1, "output": { "path": "\(output)" },
              "assets": { "tone": { "path": "tone.flac" } },
              "timeline": { "audio": [ { "id": "tone", "asset": "tone" } ] } }
            """)
    }

    private func decodedSamples(_ file: URL) throws -> Int {
        let result = try run("ffmpeg", ["-v", "error", "-i", file.path, "-f", "s16le", "-ac", "2", "-"])
        #expect(result.status == 0, "\(result.stderrText)")
        return result.stdout.count / 4
    }

    @Test(arguments: ["flac", "wav", "mp3"])
    func aTimelineOfSoundAloneRendersToAnAudioFile(ext: String) throws {
        let path = try timelineProject("p-\(ext).json", output: "out.\(ext)")
        let validated = try run(reel.path, ["validate", path])
        #expect(validated.status == 0, "\(validated.stderrText)")
        #expect(validated.stderrText.isEmpty, "no warning either: \(validated.stderrText)")
        let rendered = try run(reel.path, ["render", path, "-q"])
        #expect(rendered.status == 0, "\(rendered.stderrText)")
        #expect(try decodedSamples(folder.file("out.\(ext)")) == 72000)
    }

    @Test func theIssuesFlacWithALoudnessTargetRendersWithoutPictureSettings() throws {
        let path = try write("loud.json", """
            { "reel": 1, "output": { "path": "loud.flac",
                                     "audio": { "loudness": { "integrated": -16, "truePeak": -1 } } },
              "assets": { "tone": { "path": "tone.flac" } },
              "timeline": { "audio": [ { "id": "tone", "asset": "tone" } ] } }
            """)
        let rendered = try run(reel.path, ["render", path])
        #expect(rendered.status == 0, "\(rendered.stderrText)")
        #expect(rendered.stderrText.contains("  output -16.0"), "\(rendered.stderrText)")
        #expect(try decodedSamples(folder.file("loud.flac")) == 72000)
    }

    @Test func anAudioOutputOfAProjectWithClipsNeedsNoPictureSettingsEither() throws {
        _ = try IndexedMedia.makeVideo(at: folder.file("clip.mp4"), frameCount: 30, frameRate: "30", gop: 12, bFrames: 0,
                                       audio: .counter(sampleRate: 48000, channels: 2, codec: "aac"))
        let path = try write("clips.json", """
            { "reel": 1, "output": { "path": "clips.m4a" },
              "assets": { "clip": { "path": "clip.mp4" }, "tone": { "path": "tone.flac" } },
              "timeline": { "clips": [ { "asset": "clip" } ], "audio": [ { "id": "tone", "asset": "tone" } ] } }
            """)
        let rendered = try run(reel.path, ["render", path, "-q"])
        #expect(rendered.status == 0, "\(rendered.stderrText)")
        let probed = try run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0",
                                         folder.file("clips.m4a").path])
        #expect(probed.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "audio")
    }

    @Test func theSameProjectInAVideoContainerShowsTheBackgroundAt720p() throws {
        let path = try timelineProject("video.json", output: "show.mp4")
        let rendered = try run(reel.path, ["render", path, "-q"])
        #expect(rendered.status == 0, "\(rendered.stderrText)")
        let probed = try run("ffprobe", ["-v", "error", "-count_frames", "-show_entries",
                                         "stream=codec_type,width,height,r_frame_rate,nb_read_frames", "-of", "csv=p=0",
                                         folder.file("show.mp4").path])
        let lines = probed.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.contains("video,1280,720,30/1,45"), "\(probed.stdoutText)")
        #expect(lines.contains { $0.hasPrefix("audio,") }, "\(probed.stdoutText)")
    }

    @Test func theExplicitFormWithOnlyAnAudioTrackNeedsNoSizeForAnAudioFile() throws {
        let path = try write("explicit.json", """
            { "reel": 1, "output": { "path": "explicit.wav" },
              "assets": { "tone": { "path": "tone.flac" } },
              "composition": { "tracks": [ { "id": 2, "type": "audio", "segments": [
                { "asset": "tone", "source": { "start": 0, "duration": 1 }, "target": { "start": 0, "duration": 1 } } ] } ] } }
            """)
        let rendered = try run(reel.path, ["render", path, "-q"])
        #expect(rendered.status == 0, "\(rendered.stderrText)")
        #expect(try decodedSamples(folder.file("explicit.wav")) == 48000)
    }

    @Test func somethingToSeeStillNeedsASize() throws {
        // A colour clip is a picture whose size nothing gives: output.size stays required, as before.
        let path = try write("colour.json", """
            { "reel": 1, "output": { "path": "colour.mp4" },
              "assets": { "navy": { "color": "#000080" }, "tone": { "path": "tone.flac" } },
              "timeline": { "clips": [ { "asset": "navy", "duration": 1 } ], "audio": [ { "id": "tone", "asset": "tone" } ] } }
            """)
        let result = try run(reel.path, ["validate", path])
        #expect(result.status == 65, "\(result.stderrText)")
        #expect(result.stderrText.contains("$.output.size: output.size is not set"), "\(result.stderrText)")
    }
}
