import Foundation
import ReelTestSupport
import ReelUnitTestSupport
import Testing

/// Issue 38 point 1, OpenTimelineIO side: a nested `Stack` is imported as an entry of `compositions` shown by a clip
/// (its trim as the clip's in and length, its time warp as the clip's speed), and renders the very pictures the
/// flattened import (`--flatten-stacks`) renders: same encoder, framemd5 equal, and each frame's index read back
/// from the indexed media. `reel export-otio` writes such a project's compositions back as nested stacks.
@Suite struct OTIONestedStackTests {
    let folder: TemporaryDirectory
    let reel: URL

    /// Two 100-frame indexed videos at 24 fps (64×36): frame n shows index n.
    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-otio-nested")
        reel = try builtExecutable(named: "reel")
        for name in ["shotA.mov", "shotB.mov"] {
            try IndexedMedia.makeVideo(at: folder.file(name), frameCount: 100, frameRate: "24", gop: 12)
        }
    }

    func reel(_ args: [String]) throws -> ProcessResult {
        try run(reel.path, args)
    }

    func write(_ name: String, _ text: String) throws -> String {
        try text.write(to: folder.file(name), atomically: true, encoding: .utf8)
        return folder.file(name).path
    }

    // MARK: OTIO by hand

    static func time(_ frames: Int) -> String { #"{"OTIO_SCHEMA": "RationalTime.1", "value": \#(frames), "rate": 24}"# }

    static func range(_ start: Int, _ duration: Int) -> String {
        #"{"OTIO_SCHEMA": "TimeRange.1", "start_time": \#(time(start)), "duration": \#(time(duration))}"#
    }

    func clip(_ file: String, _ start: Int, _ duration: Int) -> String {
        #"{"OTIO_SCHEMA": "Clip.1", "name": "\#(file)", "source_range": \#(Self.range(start, duration)),"#
            + #" "media_reference": {"OTIO_SCHEMA": "ExternalReference.1", "target_url": "\#(file)"}}"#
    }

    static func gap(_ duration: Int) -> String { #"{"OTIO_SCHEMA": "Gap.1", "source_range": \#(range(0, duration))}"# }

    static func track(_ items: [String]) -> String {
        #"{"OTIO_SCHEMA": "Track.1", "kind": "Video", "children": [\#(items.joined(separator: ", "))]}"#
    }

    static func stack(_ name: String, range: (Int, Int)? = nil, effects: String = "[]", _ children: [String]) -> String {
        #"{"OTIO_SCHEMA": "Stack.1", "name": "\#(name)", "source_range": \#(range.map { Self.range($0.0, $0.1) } ?? "null"),"#
            + #" "effects": \#(effects), "children": [\#(children.joined(separator: ", "))]}"#
    }

    /// A cut, a stack of two layers (the upper one covering part of the lower) trimmed to 30 of its 40 frames, a
    /// cut, a stack slowed to half speed holding a stack (a composition inside a composition), and a cut.
    func edit() throws -> String {
        let insert = Self.stack("Insert", range: (6, 30), [
            Self.track([clip("shotB.mov", 50, 20), clip("shotA.mov", 70, 20)]),
            Self.track([Self.gap(10), clip("shotB.mov", 0, 5)]),
        ])
        let warp = #"[{"OTIO_SCHEMA": "LinearTimeWarp.1", "name": "", "time_scalar": 0.5}]"#
        let slow = Self.stack("Slow", effects: warp, [Self.stack("Inner", [Self.track([clip("shotB.mov", 20, 8)])])])
        let top = Self.track([clip("shotA.mov", 10, 24), insert, clip("shotA.mov", 40, 12), slow, clip("shotB.mov", 90, 6)])
        return try write("nested.otio", #"{"OTIO_SCHEMA": "Timeline.1", "name": "nested", "tracks": "#
                         + Self.stack("tracks", [top]) + "}")
    }

    /// The source frame each output frame shows (both shots are indexed 0…99; the ranges used tell them apart).
    static let expected: [Int] = (0..<80).map { n in
        switch n {
        case 0..<24: 10 + n                        // A from 10
        case 24..<28: 56 + (n - 24)                // Insert at 6…9: the lower layer's B from 50
        case 28..<33: n - 28                       // Insert at 10…14: the upper layer's B from 0
        case 33..<38: 65 + (n - 33)                // Insert at 15…19: the lower layer again
        case 38..<54: 70 + (n - 38)                // Insert at 20…35: A from 70
        case 54..<66: 40 + (n - 54)                // A from 40
        case 66..<74: 20 + (n - 66) / 2            // Slow: Inner's B from 20 at half speed
        default: 90 + (n - 74)                     // B from 90
        }
    }

    /// The frame indices of a render of a 64×36 edit of shotA and shotB.
    func indices(_ file: URL) throws -> [Int] {
        try IndexedMedia.readFrameIndices(of: file, width: 64, height: 36)
    }

    /// The MD5 of each decoded picture of `file`'s video, in order.
    func pictureHashes(_ file: URL) throws -> [String] {
        let data = try runChecked("ffmpeg", ["-v", "error", "-i", file.path, "-map", "0:v", "-f", "framemd5", "-"])
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    func json(_ file: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func render(_ input: String, _ output: String, _ extra: [String] = []) throws -> URL {
        let url = folder.file(output)
        let result = try reel(["render", input, "-o", url.path, "-q", "--force"] + extra)
        #expect(result.status == 0, "\(input): \(result.stderrText)")
        return url
    }

    @Test func aNestedStackBecomesACompositionThatRendersTheFlattenedPictures() throws {
        let otio = try edit()
        let nested = folder.file("nested.json").path
        let imported = try reel(["import", otio, "-o", nested])
        #expect(imported.status == 0, "\(imported.stderrText)")
        let flat = folder.file("flat.json").path
        #expect(try reel(["import", otio, "--flatten-stacks", "-o", flat]).status == 0)

        // The project: an entry per stack at the flattened edit's canvas, clips naming them with the stack's trim.
        let project = try json(nested)
        let compositions = try #require(project["compositions"] as? [String: [String: Any]])
        #expect(Set(compositions.keys) == ["Insert", "Insert layer 2", "Slow", "Inner"])
        #expect(compositions["Insert"]?["size"] as? [Int] == [64, 36])
        #expect((compositions["Insert"]?["frameRate"] as? NSNumber)?.intValue == 24)
        let assets = try #require(project["assets"] as? [String: [String: Any]])
        #expect(assets["Insert"]?["composition"] as? String == "Insert")
        let clips = try #require((project["timeline"] as? [String: Any])?["clips"] as? [[String: Any]])
        let insertClip = try #require(clips.first { $0["asset"] as? String == "Insert" })
        #expect(insertClip["in"] as? String == "6f" && insertClip["duration"] as? String == "30f", "\(insertClip)")
        let slowClip = try #require(clips.first { $0["asset"] as? String == "Slow" })
        #expect(slowClip["speed"] as? String == "1/2", "\(slowClip)")
        let slowClips = try #require((compositions["Slow"]?["timeline"] as? [String: Any])?["clips"] as? [[String: Any]])
        #expect(slowClips.map { $0["asset"] as? String } == ["Inner"])
        #expect(try json(flat)["compositions"] == nil)

        // Same pictures as the flattened import, frame for frame (same encoder; and each frame's index).
        let flatPictures = try pictureHashes(render(flat, "flat.mkv"))
        let nestedRender = try render(nested, "nested.mkv")
        #expect(flatPictures.count == Self.expected.count)
        #expect(try pictureHashes(nestedRender) == flatPictures)
        let shown = try indices(nestedRender)
        #expect(shown == Self.expected, "\(shown)")
        // Rendering the .otio itself takes the same road.
        #expect(try pictureHashes(render(otio, "direct.mkv")) == flatPictures)
    }

    @Test func exportWritesTheCompositionsBackAsNestedStacks() throws {
        let otio = try edit()
        let nested = folder.file("nested.json").path
        #expect(try reel(["import", otio, "-o", nested]).status == 0)
        let back = folder.file("back.otio").path
        let exported = try reel(["export-otio", nested, "-o", back])
        #expect(exported.status == 0, "\(exported.stderrText)")
        let timeline = try json(back)
        let top = try #require(((timeline["tracks"] as? [String: Any])?["children"] as? [[String: Any]])?.first)
        let items = try #require(top["children"] as? [[String: Any]])
        let stacks = items.filter { $0["OTIO_SCHEMA"] as? String == "Stack.1" }
        #expect(stacks.map { $0["name"] as? String } == ["Insert", "Slow"])
        let insertRange = try #require(stacks.first?["source_range"] as? [String: Any])
        #expect(((insertRange["start_time"] as? [String: Any])?["value"] as? NSNumber)?.intValue == 6)
        #expect(((insertRange["duration"] as? [String: Any])?["value"] as? NSNumber)?.intValue == 30)
        let warp = try #require((stacks.last?["effects"] as? [[String: Any]])?.first)
        #expect(warp["OTIO_SCHEMA"] as? String == "LinearTimeWarp.1" && (warp["time_scalar"] as? NSNumber)?.doubleValue == 0.5)
        let innerItems = ((stacks.last?["children"] as? [[String: Any]])?.first?["children"] as? [[String: Any]]) ?? []
        #expect(innerItems.map { $0["OTIO_SCHEMA"] as? String } == ["Stack.1"], "\(innerItems)")
        // Read back, it is the same compositions and the same pictures.
        let again = folder.file("again.json").path
        let reimported = try reel(["import", back, "-o", again])
        #expect(reimported.status == 0, "\(reimported.stderrText)")
        let againCompositions = try #require(try json(again)["compositions"] as? [String: Any])
        #expect(Set(againCompositions.keys) == ["Insert", "Insert layer 2", "Slow", "Inner"])
        #expect(try indices(render(again, "again.mkv")) == Self.expected)
    }

    /// The corpus' nested_example.otio (two nested stacks, one slowed, with MissingReference media rendered black):
    /// both stacks become compositions and the edit keeps its 636 frames.
    @Test(.enabled(if: Workplace.interchange.isPresent, Comment(rawValue: Workplace.interchange.absence)))
    func theCorpusNestedExampleKeepsItsStacks() throws {
        let source = Workplace.interchange.url.appendingPathComponent("OpenTimelineIO/nested_example.otio").path
        let nested = folder.file("example.json").path
        let imported = try reel(["import", source, "--missing-media", "black", "-o", nested])
        #expect(imported.status == 0, "\(imported.stderrText)")
        let compositions = try #require(try json(nested)["compositions"] as? [String: Any])
        #expect(Set(compositions.keys) == ["Nested Stack 1", "Nested Stack 2 with effects"])
        let flat = folder.file("example-flat.json").path
        #expect(try reel(["import", source, "--missing-media", "black", "--flatten-stacks", "-o", flat]).status == 0)
        let small = ["--render-scale", "0.05"]
        let nestedPictures = try pictureHashes(render(nested, "example.mkv", small))
        #expect(nestedPictures.count == 636)
        #expect(try pictureHashes(render(flat, "example-flat.mkv", small)) == nestedPictures)
    }

    // MARK: Beside transitions (issue 38 point 1, otio38b)

    /// `otio` imported twice, kept (`NAME.json`, the import's stderr checked by the caller) and with
    /// `--flatten-stacks` (`NAME-flat.json`).
    func importKeptAndFlat(_ otio: String, _ name: String) throws -> (kept: String, flat: String, stderr: String) {
        let kept = folder.file(name + ".json").path
        let imported = try reel(["import", otio, "-o", kept])
        #expect(imported.status == 0, "\(imported.stderrText)")
        let flat = folder.file(name + "-flat.json").path
        #expect(try reel(["import", otio, "--flatten-stacks", "-o", flat]).status == 0)
        return (kept, flat, imported.stderrText)
    }

    static func dissolve(_ inOffset: Int, _ outOffset: Int) -> String {
        #"{"OTIO_SCHEMA": "Transition.1", "transition_type": "SMPTE_Dissolve", "in_offset": \#(time(inOffset)),"#
            + #" "out_offset": \#(time(outOffset))}"#
    }

    /// `project` (a JSON file) made lossless: x264 at crf 0, PCM sound; written to `name`.
    func lossless(_ project: String, _ name: String) throws -> String {
        var object = try json(project)
        var output = object["output"] as? [String: Any] ?? [:]
        output["video"] = ["crf": 0]
        output["audio"] = ["codec": "pcm"]
        object["output"] = output
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        try data.write(to: folder.file(name))
        return folder.file(name).path
    }

    /// A cut, a dissolve into a stack trimmed to 20 of its 40 frames (its content continues 4 frames on each side,
    /// the handles the dissolves take), a dissolve out of it, a cut, and a dissolve into a stack with nothing
    /// before its range (flattened, with a warning).
    func transitionEdit() throws -> String {
        let mid = Self.stack("Mid", range: (10, 20), [Self.track([clip("shotB.mov", 30, 40)])])
        let edge = Self.stack("Edge", [Self.track([clip("shotB.mov", 80, 10)])])
        let top = Self.track([clip("shotA.mov", 10, 24), Self.dissolve(4, 4), mid, Self.dissolve(4, 4),
                              clip("shotA.mov", 50, 24), Self.dissolve(4, 4), edge])
        return try write("beside.otio", #"{"OTIO_SCHEMA": "Timeline.1", "name": "beside", "tracks": "#
                         + Self.stack("tracks", [top]) + "}")
    }

    @Test func aStackBesideTransitionsKeepsItsContentAsHandles() throws {
        let (nested, flat, stderr) = try importKeptAndFlat(try transitionEdit(), "beside")
        // Edge has no content before its range: flattened, with the warning at its path.
        #expect(stderr.contains("tracks.children[0].children[6]") && stderr.contains("flattened in place"), "\(stderr)")

        let project = try json(nested)
        let compositions = try #require(project["compositions"] as? [String: Any])
        #expect(Set(compositions.keys) == ["Mid"])
        let clips = try #require((project["timeline"] as? [String: Any])?["clips"] as? [[String: Any]])
        let mid = try #require(clips.first { $0["asset"] as? String == "Mid" })
        // The clip starts 4 frames early and runs 4 frames on: the stack's frames 6…33.
        #expect(mid["in"] as? String == "6f" && mid["duration"] as? String == "28f", "\(mid)")
        #expect((mid["transition"] as? [String: Any])?["type"] as? String == "dissolve")

        let keptPictures = try pictureHashes(render(try lossless(nested, "beside-l.json"), "beside.mkv"))
        let flatPictures = try pictureHashes(render(try lossless(flat, "beside-flat-l.json"), "beside-flat.mkv"))
        #expect(flatPictures.count == 78)
        #expect(keptPictures == flatPictures)

        // Exported and read back: the stack keeps its range and the same pictures.
        let back = folder.file("beside-back.otio").path
        let exported = try reel(["export-otio", nested, "-o", back])
        #expect(exported.status == 0, "\(exported.stderrText)")
        let again = folder.file("beside-again.json").path
        let reimported = try reel(["import", back, "-o", again])
        #expect(reimported.status == 0, "\(reimported.stderrText)")
        #expect((try json(again)["compositions"] as? [String: Any])?.keys.contains("Mid") == true)
        #expect(try pictureHashes(render(try lossless(again, "beside-again-l.json"), "beside-again.mkv")) == flatPictures)
    }

    // MARK: In an audio track (otio38b)

    /// A clip of saw.wav from frame `start` for `duration` frames at 24 fps.
    static func audioClip(_ start: Int, _ duration: Int) -> String {
        #"{"OTIO_SCHEMA": "Clip.1", "name": "saw", "source_range": \#(range(start, duration)),"#
            + #" "media_reference": {"OTIO_SCHEMA": "ExternalReference.1", "target_url": "saw.wav"}}"#
    }

    /// saw.wav in `folder`: a sawtooth, 48 kHz mono PCM, 5 s (every sample differs from its neighbours).
    static func makeSaw(in folder: TemporaryDirectory) throws {
        _ = try runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "aevalsrc=mod(t*217\\,1)*0.8-0.4:s=48000:d=5",
                                      "-c:a", "pcm_s16le", folder.file("saw.wav").path])
    }

    static func audioTrack(_ items: [String]) -> String {
        #"{"OTIO_SCHEMA": "Track.1", "kind": "Audio", "children": [\#(items.joined(separator: ", "))]}"#
    }

    @Test func aStackInAnAudioTrackBecomesACompositionOfSound() throws {
        try Self.makeSaw(in: folder)
        let voice = Self.stack("Voice", range: (6, 24), [Self.audioTrack([Self.audioClip(24, 40)])])
        let sound = Self.audioTrack([Self.audioClip(0, 12), Self.dissolve(3, 3), voice, Self.audioClip(70, 12)])
        let otio = try write("sound.otio", #"{"OTIO_SCHEMA": "Timeline.1", "name": "sound", "tracks": "#
                             + Self.stack("tracks", [Self.track([clip("shotA.mov", 0, 48)]), sound]) + "}")
        let (nested, flat, _) = try importKeptAndFlat(otio, "sound")

        let project = try json(nested)
        let compositions = try #require(project["compositions"] as? [String: [String: Any]])
        #expect(Set(compositions.keys) == ["Voice"])
        let voiceAudio = try #require((compositions["Voice"]?["timeline"] as? [String: Any])?["audio"] as? [[String: Any]])
        #expect(voiceAudio.map { $0["asset"] as? String } == ["saw"] && voiceAudio.first?["in"] as? String == "24f")
        let entries = try #require((project["timeline"] as? [String: Any])?["audio"] as? [[String: Any]])
        let entry = try #require(entries.first { $0["asset"] as? String == "Voice" })
        // The fade in takes 3 frames of the stack before its range: in 6 − 3.
        #expect(entry["in"] as? String == "3f" && entry["duration"] as? String == "27f" && entry["fadeIn"] as? String == "6f",
                "\(entry)")

        func soundHash(_ file: URL) throws -> String {
            String(decoding: try runChecked("ffmpeg", ["-v", "error", "-i", file.path, "-map", "0:a", "-f", "md5", "-"]), as: UTF8.self)
        }
        let keptSound = try soundHash(render(try lossless(nested, "sound-l.json"), "sound.mkv"))
        let flatRender = try render(try lossless(flat, "sound-flat-l.json"), "sound-flat.mkv")
        let flatSound = try soundHash(flatRender)
        #expect(keptSound.hasPrefix("MD5=") && keptSound == flatSound)
        // Not silence: the stack's stretch (0.5 s to 1.5 s) carries the sawtooth.
        let samples = try runChecked("ffmpeg", ["-v", "error", "-ss", "0.75", "-t", "0.5", "-i", flatRender.path, "-map", "0:a",
                                                "-ac", "1", "-f", "s16le", "-"])
        let peak = stride(from: 0, to: samples.count - 1, by: 2).map { abs(Int(Int16(bitPattern: UInt16(samples[$0]) | UInt16(samples[$0 + 1]) << 8))) }.max() ?? 0
        #expect(peak > 8000, "peak \(peak)")
    }
}
