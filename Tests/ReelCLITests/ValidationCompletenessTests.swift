import Foundation
import ReelTestSupport
import Testing

/// SPEC §5 from the outside: `reel validate` (and every render, before it writes anything) reports every
/// independent problem of a project at once, each at its JSON path, without knock-on errors about values
/// that were already refused, and it checks that media has the stream a segment uses.
@Suite struct ValidationCompletenessTests {
    let folder: TemporaryDirectory
    let reel: URL

    /// A scratch folder holding `a.mp4`: 64×36, 25 fps, 4 s, stream 0 video and stream 1 a mono sine.
    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-validation")
        _ = try runChecked("ffmpeg", [
            "-v", "error", "-f", "lavfi", "-i", "testsrc=size=64x36:rate=25:duration=4",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=4", "-ac", "1",
            "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", folder.file("a.mp4").path,
        ])
        reel = try builtExecutable(named: "reel")
    }

    /// One reported problem from `validate --json`: its JSON path and message (what equality compares), and hint.
    struct Problem: Equatable, CustomStringConvertible {
        let path: String
        let message: String
        var hint: String? = nil
        var description: String { "\(path): \(message)" }

        static func == (lhs: Problem, rhs: Problem) -> Bool { lhs.path == rhs.path && lhs.message == rhs.message }
    }

    /// Writes `project` and runs `reel validate --json` on it: the exit status and every problem reported.
    func validate(_ project: String) throws -> (status: Int32, problems: [Problem]) {
        let path = folder.file("p.json").path
        try project.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try run(reel.path, ["validate", path, "--json"])
        let problems = try result.stdoutText.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["severity"] as? String == "error")
            return Problem(path: try #require(object["path"] as? String), message: try #require(object["message"] as? String),
                           hint: object["hint"] as? String)
        }
        return (result.status, problems)
    }

    func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
    }

    /// An explicit-form project with one video track showing `a.mp4` for 1 s, and one audio track playing it.
    func explicitProject(videoSourceTrack: Int? = nil, audioSourceTrack: Int? = nil) -> String {
        func segment(_ sourceTrack: Int?) -> String {
            let pick = sourceTrack.map { #""sourceTrack": \#($0), "# } ?? ""
            return #"{"asset": "a", \#(pick)"source": {"start": 0, "duration": 1}, "target": {"start": 0, "duration": 1}}"#
        }
        return """
        {"reel": 1, "output": {"path": "st.mp4", "size": [64, 36], "frameRate": 25},
         "assets": {"a": {"path": "a.mp4"}},
         "composition": {"tracks": [{"id": 1, "type": "video", "segments": [\(segment(videoSourceTrack))]},
                                    {"id": 2, "type": "audio", "segments": [\(segment(audioSourceTrack))]}]}}
        """
    }

    /// A timeline project over `a.mp4` with these clips and output keys.
    func timelineProject(_ clips: String, output: String = #""size": [64, 36], "frameRate": 25"#,
                         assets: String = #""a": {"path": "a.mp4"}"#) -> String {
        """
        {"reel": 1, "output": {"path": "x.mp4"\(output.isEmpty ? "" : ", " + output)},
         "assets": {\(assets)}, "timeline": {"clips": [\(clips)]}}
        """
    }

    static let pickVideo = #"pick a video stream (0), or remove "sourceTrack" for the default one"#
    static let pickAudio = #"pick an audio stream (1), or remove "sourceTrack" for the default one"#

    @Test(arguments: [
        (5, nil, Problem(path: "$.composition.tracks[0].segments[0].sourceTrack",
                         message: #"asset "a" has no stream 5; its streams are 0 (video), 1 (audio)"#, hint: pickVideo)),
        (1, nil, Problem(path: "$.composition.tracks[0].segments[0].sourceTrack",
                         message: #"stream 1 of asset "a" is an audio stream, but track 1 is a video track"#, hint: pickVideo)),
        (nil, 0, Problem(path: "$.composition.tracks[1].segments[0].sourceTrack",
                         message: #"stream 0 of asset "a" is a video stream, but track 2 is an audio track"#, hint: pickAudio)),
        (nil, 9, Problem(path: "$.composition.tracks[1].segments[0].sourceTrack",
                         message: #"asset "a" has no stream 9; its streams are 0 (video), 1 (audio)"#, hint: pickAudio)),
    ] as [(Int?, Int?, Problem)])
    func sourceTrackMustNameAStreamOfTheTracksKind(video: Int?, audio: Int?, expected: Problem) throws {
        let (status, problems) = try validate(explicitProject(videoSourceTrack: video, audioSourceTrack: audio))
        #expect(status == 65)
        #expect(problems == [expected])
        #expect(problems.map(\.hint) == [expected.hint])

        // A render checks the same before it writes anything.
        let render = try run(reel.path, ["render", folder.file("p.json").path, "-q"])
        #expect(render.status == 65)
        #expect(render.stderrText.contains("\(expected.path): \(expected.message)"))
        #expect(try files() == ["a.mp4", "p.json"])
    }

    @Test func sourceTrackNamingTheRightStreamsIsValid() throws {
        let (status, problems) = try validate(explicitProject(videoSourceTrack: 0, audioSourceTrack: 1))
        #expect(problems == [])
        #expect(status == 0)
    }

    @Test func aRefusedSegmentDoesNotHideTheStreamsOfTheOthers() throws {
        let (status, problems) = try validate("""
        {"reel": 1, "output": {"path": "st.mp4"}, "assets": {"a": {"path": "a.mp4"}},
         "composition": {"tracks": [
           {"id": 1, "type": "video", "segments": [
             {"asset": "a", "fit": "fill", "source": {"start": 0, "duration": 1}, "target": {"start": 0, "duration": 1}},
             {"asset": "a", "source": {"start": 1}, "target": {"start": 1, "duration": 1}}]},
           {"id": 2, "type": "audio", "segments": [
             {"asset": "a", "sourceTrack": 0, "source": {"start": 0, "duration": 1}, "target": {"start": 0, "duration": 1}},
             {"asset": "a", "source": {"start": 3, "duration": 2}, "target": {"start": 1, "duration": 2}}]}]}}
        """)
        #expect(status == 65)
        // No knock-on: the output size is not inferred (and not reported missing) from a composition read in part.
        #expect(problems.map(\.path) == [
            "$.composition.tracks[0].segments[0].fit", "$.composition.tracks[0].segments[1].source",
            "$.composition.tracks[1].segments[0].sourceTrack", "$.composition.tracks[1].segments[1].source",
        ])
        #expect(problems[2].message == #"stream 0 of asset "a" is a video stream, but track 2 is an audio track"#)
        #expect(problems[3].message == #"source 3 s to 5 s reaches beyond the end of asset "a", which lasts 4 s"#)
    }

    @Test func bothStreamChoicesOfAnAssetAreChecked() throws {
        let (status, problems) = try validate(timelineProject(
            #"{"asset": "a", "duration": 1}"#, assets: #""a": {"path": "a.mp4", "videoTrack": 1, "audioTrack": 0}"#))
        #expect(status == 65)
        #expect(problems.map(\.path) == ["$.assets.a.videoTrack", "$.assets.a.audioTrack"])
        #expect(problems.map(\.hint) == ["video streams: 0", "audio streams: 1"])
    }

    @Test func aMissingFileDoesNotHideATransitionTooLongForItsClips() throws {
        let (status, problems) = try validate(timelineProject(
            #"{"asset": "a", "duration": 1}, {"asset": "a", "duration": 1, "transition": {"type": "dissolve", "duration": 5}}, {"asset": "m", "duration": 1}"#,
            assets: #""a": {"path": "a.mp4"}, "m": {"path": "missing.mp4"}"#))
        // A missing file comes first in the order of exit codes (docs/decisions.md).
        #expect(status == 66)
        #expect(problems.map(\.path) == [
            "$.assets.m.path", "$.timeline.clips[1].transition.duration", "$.timeline.clips[1].transition.duration",
        ])
        #expect(problems[1].message == "the dissolve of 5 s (125 frames) is longer than clips[0], which lasts 1 s (25 frames) on the timeline")
        #expect(problems[2].message == "the dissolve of 5 s (125 frames) is longer than clips[1], which lasts 1 s (25 frames) on the timeline")
    }

    @Test func aRefusedSpeedDoesNotHideATrimBeyondTheEnd() throws {
        let (status, problems) = try validate(timelineProject(#"{"asset": "a", "in": 1, "out": 9, "speed": 0}"#))
        #expect(status == 65)
        #expect(problems == [
            Problem(path: "$.timeline.clips[0].out",
                    message: #"out 9 s (frame 225) is beyond the end of asset "a", which lasts 4 s (100 frames)"#),
            Problem(path: "$.timeline.clips[0].speed", message: "speed 0 is outside 0.01…100"),
        ])
    }

    @Test func aClipWithAnErrorDoesNotHideTheNextClipsTransition() throws {
        let (status, problems) = try validate(timelineProject(
            #"{"asset": "a", "in": 1, "out": 9}, {"asset": "a", "duration": 1, "transition": {"type": "dissolve", "duration": 5}}"#))
        #expect(status == 65)
        // The first clip's length is unknown: the transition is judged against the second clip only.
        #expect(problems == [
            Problem(path: "$.timeline.clips[0].out",
                    message: #"out 9 s (frame 225) is beyond the end of asset "a", which lasts 4 s (100 frames)"#),
            Problem(path: "$.timeline.clips[1].transition.duration",
                    message: "the dissolve of 5 s (125 frames) is longer than clips[1], which lasts 1 s (25 frames) on the timeline"),
        ])
    }

    @Test(arguments: [
        (#"{"asset": "a", "fit": "fill"}"#, [Problem(path: "$.timeline.clips[0].fit", message: #"unknown fit "fill""#)]),
        (#"{"asset": "a", "volume": "loud"}"#, [Problem(path: "$.timeline.clips[0].volume", message: #""loud" is not a gain"#)]),
        (#"{"asset": "a", "speed": 0}"#, [Problem(path: "$.timeline.clips[0].speed", message: "speed 0 is outside 0.01…100")]),
        (#"{"asset": "a", "volume": "+6dB"}"#, [Problem(path: "$.timeline.clips[0].volume", message: #""+6dB" is not a gain"#)]),
        (#"{"asset": "a", "volume": "-6 dB"}"#, [Problem(path: "$.timeline.clips[0].volume", message: #""-6 dB" is not a gain"#)]),
    ])
    func aBadValueOnTheFirstClipDoesNotHideTheSizeItGives(clip: String, expected: [Problem]) throws {
        let (status, problems) = try validate(timelineProject(clip, output: ""))
        #expect(status == 65)
        #expect(problems == expected)
    }

    @Test(arguments: [
        (#"{"asset": "a", "out": "7f", "in": "1/3"}"#,
         // Frame counts without output.frameRate count at the first clip's rate (25 fps here).
         Problem(path: "$.timeline.clips[0].out", message: "out 0.28 s is not after in 0.333333 s (1/3 s)")),
        ("5", Problem(path: "$.timeline.clips[0]", message: #"expected a clip object or {"gap": T}, found a number"#)),
        (#"{"asset": 7, "duration": 1}"#, Problem(path: "$.timeline.clips[0].asset", message: "expected a string, found a number")),
    ])
    func aBrokenFirstEntryIsStillSomethingBeforeTheNextClip(first: String, expected: Problem) throws {
        let (status, problems) = try validate(timelineProject(
            first + #", {"asset": "a", "duration": 2, "transition": {"type": "dissolve", "duration": 0.5}}"#,
            output: #""size": [64, 36]"#))
        #expect(status == 65)
        #expect(problems == [expected])
    }

    /// Issue 20.4 through the binary: string forms are read strictly; a JSON number's exponent is JSON.
    @Test(arguments: [
        (#""frameRate": "1e2""#, [Problem(path: "$.output.frameRate", message: #"frame rate "1e2" is a string, which must be "N/D""#)]),
        (#""frameRate": "+30000/1001""#,
         [Problem(path: "$.output.frameRate", message: #"frame rate "+30000/1001" is not of the form "N/D" with integers N and D"#)]),
        (#""frameRate": 25, "audio": {"bitrate": "1e3k"}"#,
         [Problem(path: "$.output.audio.bitrate", message: #""1e3k" is not a bit rate"#)]),
        (#""frameRate": 2.5e1, "size": [6.4e1, 36]"#, []),
    ])
    func stringFormsAreReadStrictly(output: String, expected: [Problem]) throws {
        let (status, problems) = try validate(timelineProject(#"{"asset": "a", "duration": 1}"#, output: output))
        #expect(status == (expected.isEmpty ? 0 : 65))
        #expect(problems == expected)
    }

    @Test func aBrokenGapIsStillAGap() throws {
        let (status, problems) = try validate(timelineProject(
            #"{"asset": "a", "duration": 1}, {"gap": -1}, {"asset": "a", "duration": 2, "transition": {"type": "dip", "duration": 0.5}}"#))
        #expect(status == 65)
        #expect(problems.map(\.path) == ["$.timeline.clips[1].gap", "$.timeline.clips[2].transition"])
        #expect(problems.last?.message == "a transition needs a picture on both sides, but the item before this clip is a gap")
    }

    @Test func anUnknownAssetOnTheFirstClipAddsNothingElse() throws {
        let (status, problems) = try validate(timelineProject(
            #"{"asset": "b", "duration": 1}, {"asset": "a", "duration": 2, "transition": {"type": "wipe", "duration": 0.5}}"#,
            output: ""))
        #expect(status == 65)
        #expect(problems == [Problem(path: "$.timeline.clips[0].asset", message: #"unknown asset "b""#)])
    }
}
