import Testing
import ReelModel
import ReelTime

/// A project of sound alone (docs/outputs.md) needs no picture settings: an audio-only output, or a timeline of
/// extra audio with nothing to see, compiles without `output.size`, `frameRate` and clips; anything to see still
/// needs a size.
@Suite struct SoundOnlyModelTests {
    static let facts: [String: MediaFactsResult] = ["tone": audioFacts(duration: t(3, 2))]

    func compile(output: String, timeline: String) -> (compiled: CompiledProject?, diagnostics: [Diagnostic]) {
        compileProject(#"{"reel": 1, "output": {"# + output
                       + ##"}, "assets": {"tone": {"path": "tone.flac"}, "navy": {"color": "#000080"}}, "timeline": "##
                       + timeline + "}", facts: Self.facts)
    }

    @Test(arguments: ["o.flac", "o.wav", "o.m4a", "o.mp4"])
    func aTimelineOfSoundAloneCompilesWithoutPictureSettings(path: String) throws {
        let (compiled, diagnostics) = compile(output: #""path": "\#(path)""#,
                                              timeline: #"{"audio": [{"id": "tone", "asset": "tone"}]}"#)
        #expect(diagnostics.map(\.humanText) == [])
        let project = try #require(compiled)
        #expect(project.output.size == OutputSettings.soundOnlySize)
        #expect(project.output.frameRate == Rational(30))
        #expect(project.duration == t(3, 2))
        #expect(project.frameCount == 45)
    }

    @Test func aTitleIsSomethingToSee() {
        let (compiled, diagnostics) = compile(
            output: #""path": "o.mp4""#,
            timeline: #"{"audio": [{"id": "tone", "asset": "tone"}], "titles": [{"text": "Hi", "start": 0, "duration": 1}]}"#)
        #expect(compiled == nil)
        #expect(diagnostics.map(\.humanText) == [
            "error: $.output.size: output.size is not set and there is no video clip to take it from\n       hint: set output.size",
        ])
    }

    @Test func anAudioFileNeedsNoSizeEvenWithSomethingToSee() throws {
        let (compiled, diagnostics) = compile(
            output: #""path": "o.wav""#,
            timeline: #"{"clips": [{"asset": "navy", "duration": 1}], "audio": [{"id": "tone", "asset": "tone"}]}"#)
        #expect(diagnostics.map(\.humanText) == [])
        #expect(try #require(compiled).output.size == OutputSettings.soundOnlySize)
    }

    @Test func aTimelineWithNeitherClipsNorAudioNorEndIsStillRefused() {
        let (compiled, diagnostics) = compile(output: #""path": "o.wav""#, timeline: #"{"clips": []}"#)
        #expect(compiled == nil)
        #expect(diagnostics.map(\.humanText).first
                == "error: $.timeline.clips: the timeline has no clips\n       hint: add clips, or set output.end for a render of the background alone")
    }
}
