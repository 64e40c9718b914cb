import ReelCodecs
import ReelModel
import ReelTime
import Testing

/// `output.audio.loudness` and the audio-only containers in the model: read, checked, written back.
@Suite struct AudioOutputModelTests {
    @Test func loudnessIsReadAndRoundTripsThroughTheExplicitForm() throws {
        let facts: [String: MediaFactsResult] = ["a": videoFacts(duration: t(4))]
        let (compiled, diagnostics) = compileProject("""
            {"reel": 1, "output": {"path": "o.m4a", "frameRate": 25,
                                   "audio": {"loudness": {"integrated": -23, "truePeak": -1.5, "range": 7.5}}},
             "assets": {"a": {"path": "a.mp4"}}, "timeline": {"clips": [{"asset": "a"}]}}
            """, facts: facts)
        #expect(diagnostics.map(\.humanText) == [])
        let first = try #require(compiled)
        #expect(first.output.audio?.loudness == LoudnessTarget(integrated: -23, truePeak: -1.5, range: 7.5))
        #expect(first.output.format == .m4a && first.output.audio?.codec == .aac)
        let written = ProjectWriter.explicitProject(first)
        #expect(written.contains(#""loudness""#) && written.contains("-1.5") && written.contains("7.5"), "\(written)")
        let (again, againDiagnostics) = compileProject(written, facts: facts)
        #expect(againDiagnostics.map(\.humanText) == [])
        #expect(try #require(again) == first)
    }

    @Test(arguments: [
        (#"{"integrated": -3, "truePeak": -1}"#, "$.output.audio.loudness.integrated"),
        (#"{"integrated": -16, "truePeak": 1}"#, "$.output.audio.loudness.truePeak"),
        (#"{"integrated": -16, "truePeak": -1, "range": 0}"#, "$.output.audio.loudness.range"),
        (#"{"integrated": -16}"#, "$.output.audio.loudness"),
        (#""loud""#, "$.output.audio.loudness"),
    ])
    func aBadTargetIsAnErrorAtItsPath(target: String, path: String) {
        let errors = readProject("""
            {"reel": 1, "output": {"path": "o.wav", "end": 1, "audio": {"loudness": \(target)}},
             "timeline": {"clips": []}}
            """).diagnostics.filter { $0.severity == .error }
        #expect(errors.map { "\($0.path)" } == [path], "\(errors.map(\.humanText))")
    }

    @Test(arguments: [
        ("o.m4a", ContainerFormat.m4a, AudioCodec.aac), ("o.mp3", .mp3, .mp3), ("o.opus", .opus, .opus),
        ("o.ogg", .ogg, .opus), ("o.flac", .flac, .flac), ("o.WAV", .wav, .pcm),
    ])
    func audioOnlyKindsFollowTheExtension(path: String, container: ContainerFormat, codec: AudioCodec) {
        let settings = OutputSettings(path: path)
        #expect(settings.format == container && settings.audio?.codec == codec)
        #expect(container.isAudioOnly && container.videoCodecs.isEmpty)
        // A written video codec does not stop a movie project from becoming a sound file.
        var movie = OutputSettings(path: "movie.mp4")
        movie.video.codec = .hevc
        let (switched, diagnostics) = movie.replacingPath(path)
        #expect(diagnostics.isEmpty && switched.format == container && switched.audio?.codec == codec)
    }

    @Test func anAudioOnlyFileWithoutAudioIsAnError() {
        let errors = readProject("""
            {"reel": 1, "output": {"path": "o.flac", "end": 1, "audio": false}, "timeline": {"clips": []}}
            """).diagnostics.filter { $0.severity == .error }
        #expect(errors.map { "\($0.path)" } == ["$.output.audio"], "\(errors.map(\.humanText))")
    }
}
