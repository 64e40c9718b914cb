import Foundation
import ReelTestSupport
import ReelUnitTestSupport
import Testing

/// Issue 38 point 1, OpenTimelineIO stacks of several layers (otio38c): the bottom layer is the composition's
/// storyline, each layer above a see-through entry (`ID layer N`) drawn over it by a muted overlay from 0. Kept, it
/// renders the pictures the flattened import (`--flatten-stacks`) renders (lossless x264, framemd5 equal);
/// `reel export-otio` writes it back as one `Stack` of N tracks, which imports as the same project and the same
/// pictures; OpenTimelineIO's own reader (`make otio-judge`) sees the N tracks and writes a file that imports the same.
@Suite struct OTIOLayeredStackTests {
    typealias OTIO = OTIONestedStackTests
    /// OTIONestedStackTests' folder, media (shotA.mov and shotB.mov: 100 indexed frames at 24 fps, 64×36) and helpers.
    let base: OTIONestedStackTests

    init() throws {
        base = try OTIONestedStackTests()
    }

    var folder: TemporaryDirectory { base.folder }

    func reel(_ args: [String]) throws -> ProcessResult { try base.reel(args) }

    func json(_ file: String) throws -> [String: Any] { try base.json(file) }

    // MARK: OTIO by hand (OTIONestedStackTests' builders)

    func clip(_ file: String, _ start: Int, _ duration: Int) -> String { base.clip(file, start, duration) }

    func timeline(_ name: String, _ items: [String]) throws -> String {
        try base.write(name + ".otio", #"{"OTIO_SCHEMA": "Timeline.1", "name": "\#(name)", "tracks": "#
                  + OTIO.stack("tracks", [OTIO.track(items)]) + "}")
    }

    /// A cut, a stack of two layers trimmed to 30 of its 40 frames (the upper layer: a gap, B, a gap, A — the lower
    /// one shows through its gaps), and a cut.
    func twoLayers() throws -> String {
        let two = OTIO.stack("Two", range: (6, 30), [
            OTIO.track([clip("shotB.mov", 50, 20), clip("shotA.mov", 70, 20)]),
            OTIO.track([OTIO.gap(10), clip("shotB.mov", 0, 5), OTIO.gap(3), clip("shotA.mov", 30, 6)]),
        ])
        return try timeline("two", [clip("shotA.mov", 10, 12), two, clip("shotA.mov", 40, 12)])
    }

    /// A cut, an untrimmed stack of three layers (the middle one with a dissolve between two of its own clips, the top
    /// one a short insert over it), a cut.
    func threeLayers() throws -> String {
        let three = OTIO.stack("Three", [
            OTIO.track([clip("shotA.mov", 0, 40)]),
            OTIO.track([OTIO.gap(5), clip("shotB.mov", 10, 12), OTIO.dissolve(3, 3), clip("shotA.mov", 60, 12)]),
            OTIO.track([OTIO.gap(20), clip("shotB.mov", 80, 6)]),
        ])
        return try timeline("three", [clip("shotB.mov", 0, 12), three, clip("shotB.mov", 30, 12)])
    }

    // MARK: Helpers

    /// `project` made lossless (x264 at crf 0, PCM) and rendered to `NAME.mkv`: the MD5 of each decoded picture.
    func losslessPictures(_ project: String, _ name: String) throws -> [String] {
        try base.pictureHashes(base.render(base.lossless(project, name + "-lossless.json"), name + ".mkv"))
    }

    /// The project's entries of `compositions`, assets and timeline, the parts an import → export → import keeps.
    func edit(_ project: String) throws -> NSDictionary {
        let object = try json(project)
        return ["compositions": object["compositions"] ?? NSNull(), "assets": object["assets"] ?? NSNull(),
                "timeline": object["timeline"] ?? NSNull()] as NSDictionary
    }

    /// Checks a kept stack `name` of `layers` layers against its flattened import, then its export and re-import.
    /// Returns the exported file.
    func checkLayeredStack(_ otio: String, _ name: String, stack: String, layers: Int, frames: Int) throws -> String {
        let (kept, flat, stderr) = try base.importKeptAndFlat(otio, name)
        #expect(!stderr.contains("topmost item"), "\(stderr)")

        // The project: the stack's entry with its bottom layer as the storyline and one overlay per layer above it,
        // each a see-through entry of its own at the canvas.
        let project = try json(kept)
        let compositions = try #require(project["compositions"] as? [String: [String: Any]])
        let layerIDs = (2...layers).map { "\(stack) layer \($0)" }
        #expect(Set(compositions.keys) == Set([stack] + layerIDs))
        let entry = try #require(compositions[stack]?["timeline"] as? [String: Any])
        let overlays = try #require(entry["overlays"] as? [[String: Any]])
        #expect(overlays.map { $0["video"] as? String } == layerIDs)
        #expect(overlays.allSatisfy { $0["muted"] as? Bool == true && ($0["start"] as? NSNumber)?.intValue == 0 })
        for id in layerIDs {
            #expect(compositions[id]?["background"] as? String == "#00000000")
            #expect(compositions[id]?["size"] as? [Int] == [64, 36])
        }

        // Same pictures as the flattened import, frame for frame.
        let flatPictures = try losslessPictures(flat, name + "-flat")
        #expect(flatPictures.count == frames)
        #expect(Set(flatPictures).count > frames / 2, "the render is not the indexed media")
        #expect(try losslessPictures(kept, name + "-kept") == flatPictures)

        // Exported: one stack of `layers` tracks, no entry of its layers written as a stack of its own.
        let back = folder.file(name + "-back.otio").path
        let exported = try reel(["export-otio", kept, "-o", back])
        #expect(exported.status == 0, "\(exported.stderrText)")
        let top = try #require(((try json(back)["tracks"] as? [String: Any])?["children"] as? [[String: Any]])?.first)
        let stacks = try #require(top["children"] as? [[String: Any]]).filter { $0["OTIO_SCHEMA"] as? String == "Stack.1" }
        #expect(stacks.map { $0["name"] as? String } == [stack])
        let tracks = try #require(stacks.first?["children"] as? [[String: Any]])
        #expect(tracks.count == layers && tracks.allSatisfy { $0["OTIO_SCHEMA"] as? String == "Track.1" })
        #expect(!(try String(contentsOfFile: back, encoding: .utf8)).contains("layer 2"))

        // Read back: the same project, the same pictures.
        let again = folder.file(name + "-again.json").path
        let reimported = try reel(["import", back, "-o", again])
        #expect(reimported.status == 0, "\(reimported.stderrText)")
        #expect(try edit(again) == edit(kept))
        #expect(try losslessPictures(again, name + "-again") == flatPictures)
        return back
    }

    // MARK: Tests

    @Test func aStackOfTwoLayersKeepsThemAndComesBackFromExport() throws {
        _ = try checkLayeredStack(try twoLayers(), "two", stack: "Two", layers: 2, frames: 54)
    }

    @Test func aStackOfThreeLayersWithADissolveKeepsThemAndComesBackFromExport() throws {
        _ = try checkLayeredStack(try threeLayers(), "three", stack: "Three", layers: 3, frames: 64)
    }

    /// A see-through layer of the project itself (an inline entry of the canvas's size and rate, over the whole
    /// storyline, drawn untouched by a muted overlay from 0) is exported as a second video track of the timeline,
    /// not as a nested stack; the re-import (whose top-level tracks are flattened, the topmost clip showing, with a
    /// warning) renders the project's pictures.
    @Test func aTopLevelSeeThroughLayerIsExportedAsATrackAboveTheStoryline() throws {
        let project = try base.write("top.json", #"""
            {"reel": 1, "output": {"size": [64, 36], "frameRate": 24, "video": {"crf": 0}, "audio": false},
             "assets": {"shotA": {"path": "shotA.mov"}, "shotB": {"path": "shotB.mov"}, "upper": {"composition": "upper"}},
             "compositions": {"upper": {"size": [64, 36], "frameRate": 24, "background": "#00000000",
                 "timeline": {"clips": [{"gap": "10f"}, {"asset": "shotB", "in": "50f", "duration": "12f"}, {"gap": "8f"},
                                        {"asset": "shotA", "in": "60f", "duration": "6f"}, {"gap": "14f"}]}}},
             "timeline": {"clips": [{"asset": "shotA", "duration": "30f"}, {"asset": "shotB", "in": "10f", "duration": "20f"}],
                          "overlays": [{"video": "upper", "start": 0, "muted": true}]}}
            """#)
        let back = folder.file("top-back.otio").path
        let exported = try reel(["export-otio", project, "-o", back])
        #expect(exported.status == 0, "\(exported.stderrText)")
        let tracks = try #require((try json(back)["tracks"] as? [String: Any])?["children"] as? [[String: Any]])
        func items(_ track: [String: Any]) -> [String] {
            ((track["children"] as? [[String: Any]]) ?? []).map { item in
                let range = item["source_range"] as? [String: Any]
                let start = ((range?["start_time"] as? [String: Any])?["value"] as? NSNumber)?.intValue ?? -1
                let duration = ((range?["duration"] as? [String: Any])?["value"] as? NSNumber)?.intValue ?? -1
                return item["OTIO_SCHEMA"] as? String == "Gap.1" ? "G\(duration)" : "\(item["name"] as? String ?? "?")@\(start)+\(duration)"
            }
        }
        let video = tracks.filter { $0["kind"] as? String == "Video" }.map(items)
        #expect(video == [["shotA@0+30", "shotB@10+20"], ["G10", "shotB@50+12", "G8", "shotA@60+6"]], "\(video)")
        let again = folder.file("top-again.json").path
        let reimported = try reel(["import", back, "-o", again])
        #expect(reimported.status == 0, "\(reimported.stderrText)")
        let pictures = try losslessPictures(project, "top")
        #expect(pictures.count == 50 && Set(pictures).count >= 30, "\(Set(pictures).count) different pictures")
        #expect(try losslessPictures(again, "top-again") == pictures)
    }

    /// A composition clip with pictures and sound is written as two stacks of the entry's name, one in the video
    /// track and one in the audio track (OTIO has no shared compositions); the re-import keeps them as two entries
    /// (`card`, `card 2`) and renders the same pictures and the same sound.
    @Test func aCompositionWithPicturesAndSoundComesBackAsTwoEntriesOfTheSameEdit() throws {
        try OTIO.makeSaw(in: folder)
        let project = try base.write("both.json", #"""
            {"reel": 1, "output": {"size": [64, 36], "frameRate": 24, "video": {"crf": 0}, "audio": {"codec": "pcm"}},
             "assets": {"shotA": {"path": "shotA.mov"}, "saw": {"path": "saw.wav"}, "card": {"composition": "card"}},
             "compositions": {"card": {"size": [64, 36], "frameRate": 24,
                 "timeline": {"clips": [{"asset": "shotA", "in": "40f", "duration": "20f", "muted": true}],
                              "audio": [{"id": "saw", "asset": "saw", "in": "5f"}]}}},
             "timeline": {"clips": [{"asset": "shotA", "duration": "10f", "muted": true},
                                    {"asset": "card", "in": "2f", "duration": "15f"},
                                    {"asset": "shotA", "in": "70f", "duration": "10f", "muted": true}]}}
            """#)
        let back = folder.file("both-back.otio").path
        let exported = try reel(["export-otio", project, "-o", back])
        #expect(exported.status == 0, "\(exported.stderrText)")
        let tracks = try #require((try json(back)["tracks"] as? [String: Any])?["children"] as? [[String: Any]])
        let stacks = tracks.map { track in
            ((track["children"] as? [[String: Any]]) ?? []).filter { $0["OTIO_SCHEMA"] as? String == "Stack.1" }
                .map { "\(track["kind"] as? String ?? "?") \($0["name"] as? String ?? "?")" }
        }
        #expect(stacks.flatMap { $0 } == ["Video card", "Audio card"], "\(stacks)")
        let again = folder.file("both-again.json").path
        let reimported = try reel(["import", back, "-o", again])
        #expect(reimported.status == 0, "\(reimported.stderrText)")
        #expect(Set((try json(again)["compositions"] as? [String: Any])?.keys.map { $0 } ?? []) == ["card", "card 2"])
        func rendered(_ file: String, _ name: String) throws -> (pictures: [String], sound: String) {
            let movie = try base.render(base.lossless(file, name + "-lossless.json"), name + ".mkv")
            let sound = try runChecked("ffmpeg", ["-v", "error", "-i", movie.path, "-map", "0:a", "-f", "md5", "-"])
            return (try base.pictureHashes(movie), String(decoding: sound, as: UTF8.self))
        }
        let first = try rendered(project, "both"), second = try rendered(again, "both-again")
        #expect(first.pictures.count == 35 && first.sound.hasPrefix("MD5="))
        #expect(second.pictures == first.pictures)
        #expect(second.sound == first.sound)
    }

    /// A stack in an audio track (kept as an entry whose `timeline.audio` holds its sound, named by a `timeline.audio`
    /// entry): export-otio writes it as a `Stack` of the entry's audio tracks, so the re-import keeps the stack and
    /// its sound (before otio38c the stack held the entry's black picture, and the re-import was refused: "asset
    /// Voice has no audio stream"). The fades are not written (OTIO has no gains; warning): the re-import's mix equals
    /// the flattened import of the exported file, and equals the first import's outside the fades.
    @Test func aStackOfSoundIsExportedWithItsSound() throws {
        try OTIO.makeSaw(in: folder)
        let voice = OTIO.stack("Voice", range: (6, 24), [OTIO.audioTrack([OTIO.audioClip(24, 40)])])
        let sound = OTIO.audioTrack([OTIO.audioClip(0, 12), OTIO.dissolve(3, 3), voice, OTIO.audioClip(70, 12)])
        let otio = try base.write("sound.otio", #"{"OTIO_SCHEMA": "Timeline.1", "name": "sound", "tracks": "#
                             + OTIO.stack("tracks", [OTIO.track([clip("shotA.mov", 0, 48)]), sound]) + "}")
        let (kept, _, _) = try base.importKeptAndFlat(otio, "sound")

        let back = folder.file("sound-back.otio").path
        let exported = try reel(["export-otio", kept, "-o", back])
        #expect(exported.status == 0, "\(exported.stderrText)")
        #expect(!exported.stderrText.contains("is not written inside"), "\(exported.stderrText)")
        // In the audio track: a gap, then the stack with the trim the entry had (in 6 − 3 for the fade's handle),
        // holding audio tracks only, one with the saw from 24.
        let tracks = try #require((try json(back)["tracks"] as? [String: Any])?["children"] as? [[String: Any]])
        let stacks = tracks.filter { $0["kind"] as? String == "Audio" }
            .flatMap { ($0["children"] as? [[String: Any]]) ?? [] }.filter { $0["OTIO_SCHEMA"] as? String == "Stack.1" }
        #expect(stacks.map { $0["name"] as? String } == ["Voice"])
        let range = try #require(stacks.first?["source_range"] as? [String: Any])
        #expect(((range["start_time"] as? [String: Any])?["value"] as? NSNumber)?.intValue == 3)
        #expect(((range["duration"] as? [String: Any])?["value"] as? NSNumber)?.intValue == 27)
        let inner = try #require(stacks.first?["children"] as? [[String: Any]])
        #expect(!inner.isEmpty && inner.allSatisfy { $0["kind"] as? String == "Audio" }, "\(inner)")
        let innerClips = inner.flatMap { ($0["children"] as? [[String: Any]]) ?? [] }
        #expect(innerClips.map { $0["name"] as? String } == ["saw"])
        #expect(((((innerClips.first?["source_range"] as? [String: Any])?["start_time"] as? [String: Any])?["value"])
                 as? NSNumber)?.intValue == 24)

        let (again, againFlat, _) = try base.importKeptAndFlat(back, "sound-again")
        let compositions = try #require(try json(again)["compositions"] as? [String: [String: Any]])
        #expect(Set(compositions.keys) == ["Voice"])
        func mix(_ project: String, _ name: String, _ filter: [String] = []) throws -> String {
            let movie = try base.render(base.lossless(project, name + "-lossless.json"), name + ".mkv")
            return String(decoding: try runChecked("ffmpeg", ["-v", "error", "-i", movie.path, "-map", "0:a"] + filter
                                                   + ["-f", "md5", "-"]), as: UTF8.self)
        }
        #expect(try mix(again, "sound-again").hasPrefix("MD5="))
        #expect(try mix(again, "sound-again") == mix(againFlat, "sound-again-flat"))
        // Frames 15–36 (0.625 s to 1.5 s): the stack's sound after its fade in, before the next clip.
        let middle = ["-af", "atrim=start_sample=30000:end_sample=72000"]
        #expect(try mix(again, "sound-again-middle", middle) == mix(kept, "sound-kept-middle", middle))
    }

    /// OpenTimelineIO's reader sees the exported stack's three tracks with their items; the file it writes back
    /// imports as the same project and renders the same pictures.
    @Test(.enabled(if: InterchangeCLITests.otioPython != nil, InterchangeCLITests.otioAbsence))
    func openTimelineIOReadsTheLayeredStack() throws {
        let python = try #require(InterchangeCLITests.otioPython)
        let back = try checkLayeredStack(try threeLayers(), "judged", stack: "Three", layers: 3, frames: 64)
        let script = try base.write("layers.py", """
            import sys, opentimelineio as otio
            timeline = otio.adapters.read_from_file(sys.argv[1])  # kept alive: a temporary timeline frees its tracks
            stack = [item for item in timeline.tracks[0] if isinstance(item, otio.schema.Stack)][0]
            print(stack.name, len(stack), round(stack.duration().to_frames()))
            for track in stack:
                codes = []
                for item in track:
                    if isinstance(item, otio.schema.Transition):
                        codes.append("T%d/%d" % (round(item.in_offset.to_frames()), round(item.out_offset.to_frames())))
                    elif isinstance(item, otio.schema.Gap):
                        codes.append("G%d" % round(item.duration().to_frames()))
                    else:
                        codes.append("C%d+%d" % (round(item.source_range.start_time.to_frames()), round(item.duration().to_frames())))
                print(track.kind, " ".join(codes))
            otio.adapters.write_to_file(timeline, sys.argv[2])
            """)
        let rewritten = folder.file("judged-rewritten.otio").path
        let judged = try run(python, [script, back, rewritten])
        #expect(judged.status == 0, "\(judged.stderrText)")
        // The middle layer's 3 + 3 dissolve at its cut (frame 17) is written as a CMX one, the cut at the overlap's
        // start (frame 14): B from 10 for 9 frames, then A from 60 − 3 running 15 — the same frames.
        #expect(judged.stdoutText == """
            Three 3 40
            Video C0+40
            Video G5 C10+9 T0/6 C57+15
            Video G20 C80+6

            """)
        let again = folder.file("judged-rewritten.json").path
        let reimported = try reel(["import", rewritten, "-o", again])
        #expect(reimported.status == 0, "\(reimported.stderrText)")
        #expect(try losslessPictures(again, "judged-rewritten") == losslessPictures(folder.file("judged-flat.json").path, "judged-flat-2"))
    }
}
