import Testing
import ReelModel
import ReelTime

@Suite struct ProjectReaderTests {
    @Test func decodesEveryOutputKey() throws {
        let (project, diagnostics) = readProject("""
        {"reel": 1,
         "output": {"path": "out/demo.mkv", "format": "mkv", "size": [1280, 720], "frameRate": "30000/1001",
                    "renderScale": 0.5, "background": "#102030", "preset": "draft",
                    "video": {"codec": "hevc", "crf": 28, "bitrate": "5M", "encoderPreset": "fast",
                              "pixelFormat": "yuv420p10le", "gop": 48, "smart": true},
                    "audio": {"codec": "opus", "bitrate": 128000, "sampleRate": 48000, "channels": 1},
                    "metadata": {"title": "Demo", "artist": "Me"},
                    "range": {"start": 1, "end": "00:00:03.5"}, "end": "300f", "faststart": false},
         "assets": {"cat": {"path": "media/cat.mov", "videoTrack": 0, "audioTrack": 2, "language": "eng", "rotation": 90}},
         "timeline": {"clips": [{"asset": "cat", "out": 2}]}}
        """)
        #expect(diagnostics.map(\.humanText) == [])
        let output = try #require(project?.output)
        #expect(output.path == "out/demo.mkv")
        #expect(output.format == .mkv)
        #expect(output.size == PixelSize(width: 1280, height: 720))
        #expect(output.frameRate == Rational(30000, 1001))
        #expect(output.renderScale == Rational(1, 2))
        #expect(output.background == RGBAColor(red: 0x10, green: 0x20, blue: 0x30))
        #expect(output.preset == .draft)
        var video = VideoOutputSettings(codec: .hevc, crf: 28, bitrate: 5_000_000, encoderPreset: "fast",
                                        pixelFormat: "yuv420p10le", gop: 48)
        video.smart = true
        #expect(output.video == video)
        #expect(output.audio == AudioOutputSettings(codec: .opus, bitrate: 128_000, sampleRate: 48000, channels: 1))
        #expect(output.metadata.map(\.key) == ["title", "artist"])
        #expect(output.metadata.map(\.value) == ["Demo", "Me"])
        #expect(output.range == range(t(1), t(7, 2)))
        #expect(output.end == t(300 * 1001, 30000))
        #expect(output.faststart == false)
        #expect(project?.assets == [Asset(id: "cat", source: .file(path: "media/cat.mov", videoTrack: 0, audioTrack: 2,
                                                                  language: "eng", rotation: .degrees(90)))])
        #expect(project?.resolvedPath("media/cat.mov") == "/projects/media/cat.mov")
        #expect(project?.resolvedPath("/abs/cat.mov") == "/abs/cat.mov")
    }

    @Test func smartIsABooleanAndOffByDefault() throws {
        #expect(readErrors(#"{"reel": 1, "output": {"path": "a.mp4", "video": {"smart": "yes"}, "end": 1}, "timeline": {}}"#) == [
            "error: $.output.video.smart: expected true or false, found a string",
        ])
        let plain = try #require(readProject(#"{"reel": 1, "output": {"path": "a.mp4", "end": 1}, "timeline": {}}"#).project)
        #expect(plain.output.video.smart == false)
    }

    @Test func outputDefaultsFollowTheContainer() throws {
        #expect(readErrors(#"{"reel": 1, "output": {"path": "a.mp4"}, "timeline": {"clips": []}}"#) == [
            "error: $.timeline.clips: the timeline has no clips\n       hint: add clips, or set output.end for a render of the background alone",
        ])
        let (webmProject, webmDiagnostics) = readProject(#"{"reel": 1, "output": {"path": "a.WEBM", "end": 2}, "timeline": {"clips": []}}"#)
        #expect(webmDiagnostics.isEmpty)
        let webm = try #require(webmProject?.output)
        #expect(webm.format == .webm)
        #expect(webm.video.codec == .vp9)
        #expect(webm.audio?.codec == .opus)
        #expect(webm.renderScale == Rational(1))
        #expect(webm.background == .black)
        #expect(webm.preset == .medium)
        #expect(webm.faststart)
        let silent = try #require(readProject(#"{"reel": 1, "output": {"path": "a.mov", "audio": false, "end": 1}, "timeline": {}}"#).project)
        #expect(silent.output.audio == nil)
        #expect(silent.output.format == .mov)
        #expect(silent.output.video.codec == .h264)
    }

    @Test
    func replacingThePathRederivesUnwrittenCodecs() throws {
        let project = try #require(readProject(#"{"reel": 1, "output": {"path": "a.mp4", "end": 1}, "timeline": {}}"#).project)
        let (settings, diagnostics) = project.output.replacingPath("b.webm")
        #expect(diagnostics.isEmpty)
        #expect(settings.format == .webm)
        #expect(settings.video.codec == .vp9)
        #expect(settings.audio?.codec == .opus)
        let written = try #require(readProject(#"{"reel": 1, "output": {"path": "a.mp4", "video": {"codec": "h264"}, "end": 1}, "timeline": {}}"#).project)
        #expect(written.output.replacingPath("b.webm").diagnostics.map(\.humanText) == [
            "error: $.output.video.codec: webm cannot hold h264 video\n       hint: use one of vp9, av1",
        ])
        #expect(written.output.replacingPath("b.avi").diagnostics.map(\.humanText) == [
            "error: $.output.path: cannot tell the container from \"b.avi\"\n       hint: use one of the extensions .mp4 .mov .mkv .webm .nut .ts .m4a .mp3 .opus .ogg .flac .wav .gif .webp .apng .png .jpg .m3u8 .mpd or set output.format to one of mp4, mov, mkv, webm, nut, ts, m4a, mp3, opus, ogg, flac, wav, gif, webp, apng, png, jpg, m3u8, mpd",
        ])
    }

    @Test(arguments: [
        ("2.5", Time(value: 5, timescale: 2)),
        ("0.1", Time(value: 1, timescale: 10)),
        ("1e1", Time(seconds: 10)),
        ("\"1001/30000\"", Time(value: 1001, timescale: 30000)),
        ("\"48f\"", Time(value: 2, timescale: 1)),
        ("\"01:02.5\"", Time(value: 125, timescale: 2)),
        ("\"00:01:02.5\"", Time(value: 125, timescale: 2)),
        ("\"00:00:01:12\"", Time(value: 3, timescale: 2)),
    ])
    func decodesEveryTimeForm(literal: String, expected: Time) throws {
        let project = try #require(readProject("""
        {"reel": 1, "output": {"frameRate": 24}, "assets": {"a": {"path": "a.mp4"}},
         "timeline": {"clips": [{"asset": "a", "in": \(literal), "out": 100}]}}
        """).project)
        guard case .clip(let clip)? = project.timeline?.items.first else {
            Issue.record("no clip")
            return
        }
        #expect(clip.inPoint == expected)
    }

    @Test func dropFrameTimecodeNeedsNTSC() {
        let drop = readProject("""
        {"reel": 1, "output": {"frameRate": 29.97}, "assets": {"a": {"path": "a.mp4"}},
         "timeline": {"clips": [{"asset": "a", "in": "00:01:00;02", "out": 100}]}}
        """)
        guard case .clip(let clip)? = drop.project?.timeline?.items.first else {
            Issue.record("no clip: \(drop.diagnostics.map(\.humanText))")
            return
        }
        // 00:01:00;02 is frame 1800 in drop-frame counting.
        #expect(clip.inPoint == Time(value: 1800 * 1001, timescale: 30000))
    }

    @Test func frameTimesNeedAFrameRate() {
        #expect(readErrors("""
        {"reel": 1, "assets": {"a": {"path": "a.mp4"}},
         "timeline": {"clips": [{"asset": "a", "in": "48f", "out": "00:00:10:00"}]}}
        """) == [
            "error: $.timeline.clips[0].in: \"48f\" counts frames, but the project has no frame rate\n       hint: set output.frameRate, or write the time in seconds (without output.frameRate, frames count at the first clip's rate once its media is probed)",
            "error: $.timeline.clips[0].out: \"00:00:10:00\" counts frames, but the project has no frame rate\n       hint: set output.frameRate, or write the time in seconds (without output.frameRate, frames count at the first clip's rate once its media is probed)",
        ])
    }

    @Test func unknownKeysGetSuggestions() {
        #expect(readErrors("""
        {"reel": 1, "ouput": {}, "output": {"frameRat": 30, "path": "x.mp4"}, "assets": {"a": {"paht": "a.mp4"}},
         "timeline": {"clip": [], "clips": [{"asset": "a", "speeed": 2, "zzz": 1}]}}
        """) == [
            "error: $.ouput: unknown key \"ouput\"\n       hint: did you mean \"output\"?",
            "error: $.output.frameRat: unknown key \"frameRat\"\n       hint: did you mean \"frameRate\"?",
            "error: $.assets.a.paht: unknown key \"paht\"\n       hint: did you mean \"path\"?",
            "error: $.assets.a: missing \"path\"\n       hint: give the asset a \"path\" (or \"image\" or \"color\")",
            "error: $.timeline.clip: unknown key \"clip\"\n       hint: did you mean \"clips\"?",
            "error: $.timeline.clips[0].speeed: unknown key \"speeed\"\n       hint: did you mean \"speed\"?",
            "error: $.timeline.clips[0].zzz: unknown key \"zzz\"\n       hint: allowed keys: asset, in, out, duration, speed, volume, muted, fit, pitch, transition, audioLead, audioTail, position, scale, rotation, crop, animations, captions, effects, cornerRadius, mask, audioEffects, freezeAt, reverse, motion, chapters, timeMap, label",
        ])
    }

    @Test func nullIsRefused() {
        #expect(readErrors("""
        {"reel": 1, "output": {"path": "a.mp4", "size": null}, "assets": {"a": {"path": "a.mp4", "language": null}},
         "timeline": {"clips": [{"asset": "a", "out": 1, "in": null}, null]}}
        """) == [
            "error: $.output.size: null is not allowed here\n       hint: omit an optional key instead",
            "error: $.assets.a.language: null is not allowed here\n       hint: omit an optional key instead",
            "error: $.timeline.clips[0].in: null is not allowed here\n       hint: omit an optional key instead",
            "error: $.timeline.clips[1]: expected a clip object or {\"gap\": T}, found null",
        ])
    }

    @Test func versionAndFormsAreChecked() {
        #expect(readErrors(#"{"reel": 2, "timeline": {"clips": []}, "output": {"end": 1}}"#) == [
            "error: $.reel: format version 2 is not supported\n       hint: this reel reads format 1; write \"reel\": 1",
        ])
        #expect(readErrors(#"{"output": {}}"#) == [
            "error: $: missing required key \"reel\"",
            "error: $: missing \"timeline\" (or \"composition\")\n       hint: add a timeline with clips, or the explicit form composition, audioMix and videoComposition",
        ])
        #expect(readErrors(#"{"reel": 1, "output": {"end": 1}, "timeline": {}, "composition": {"tracks": []}}"#) == [
            "error: $.composition: a project has either timeline or composition, audioMix and videoComposition, not both\n       hint: remove composition, or remove timeline",
        ])
        #expect(readErrors(#"{"reel": "1", "videoComposition": {"instructions": []}}"#) == [
            "error: $.reel: expected the format version 1, found a string",
            "error: $: videoComposition without composition\n       hint: add a composition with the tracks they refer to",
        ])
        #expect(readErrors("[1]") == ["error: $: expected a project object, found an array"])
        #expect(readErrors("{\"reel\": 1,\n  \"output\": }").count == 1)
    }

    @Test func syntaxErrorsCarryLineAndColumn() throws {
        let diagnostics = readProject("{\"reel\": 1,\n  \"output\": }").diagnostics
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostic.message.hasSuffix("at line 2, column 13"))
        #expect(diagnostic.path == JSONPath.root.key("output"))
    }

    @Test func outOfRangeValues() {
        #expect(readErrors("""
        {"reel": 1,
         "output": {"path": "a.mp4", "size": [1281, 1], "frameRate": 241, "renderScale": 1.5, "background": "red",
                    "preset": "hihg", "video": {"codec": "h246", "crf": 70}, "audio": {"channels": 6, "sampleRate": 44100, "codec": "opus"}},
         "assets": {"a": {"path": "a.mp4", "rotation": 45}, "": {"path": "b.mp4"}, "c": {"image": "c.png"}, "d": {"color": "#FFF"}},
         "timeline": {"clips": [{"asset": "a", "speed": 0, "volume": 5, "in": -1}, {"asset": "a", "volume": "20dB", "fit": "fill", "duration": 0},
                                {"gap": 0}, {"asset": "a", "out": 2, "duration": 1, "muted": "yes", "transition": {"type": "dissolve", "duration": 1}},
                                {"asset": "a", "in": 5, "out": 4.5}],
                      "audio": [{"asset": "a"}], "titles": {}}}
        """) == [
            "error: $.output.frameRate: frame rate \"241\" is outside 1…240\n       hint: use 1 to 240 frames per second, as a number or \"N/D\"",
            "error: $.output.video.codec: unknown video codec \"h246\"\n       hint: did you mean \"h264\"?",
            "error: $.output.video.crf: 70 is out of range\n       hint: use a whole number from 0 to 51",
            "error: $.output.audio.channels: 6 is out of range\n       hint: use a whole number from 1 to 2",
            "error: $.output.audio.sampleRate: opus cannot encode at 44100 Hz\n       hint: use one of 8000, 12000, 16000, 24000, 48000",
            "error: $.output.size[1]: 1 is out of range\n       hint: use a whole number from 2 to 8192",
            "error: $.output.renderScale: renderScale 1.5 is outside (0, 1]\n       hint: use a scale greater than 0 and at most 1, e.g. 0.5 for half size",
            "error: $.output.background: \"red\" is not a colour\n       hint: write colours as \"#RRGGBB\" or \"#RRGGBBAA\"",
            "error: $.output.preset: unknown preset \"hihg\"\n       hint: did you mean \"high\"?",
            "error: $.assets.a.rotation: rotation 45 is not a quarter turn\n       hint: use \"auto\", 0, 90, 180 or 270",
            "error: $.assets[\"\"]: asset id \"\" must be 1 to 64 characters long",
            "error: $.assets.d.color: \"#FFF\" is not a colour\n       hint: write colours as \"#RRGGBB\" or \"#RRGGBBAA\"",
            "error: $.timeline.clips[0].in: time -1 s is negative\n       hint: times start at 0",
            "error: $.timeline.clips[0].speed: speed 0 is outside 0.01…100\n       hint: use a speed from 0.01 to 100",
            "error: $.timeline.clips[0].volume: gain 5 is out of range\n       hint: gains are from 0 to 4 (+12 dB)",
            "error: $.timeline.clips[1].duration: duration 0 s is not greater than 0\n       hint: give it a length greater than 0",
            "error: $.timeline.clips[1].volume: gain 20dB is out of range\n       hint: gains are from 0 to 4 (+12 dB)",
            "error: $.timeline.clips[1].fit: unknown fit \"fill\"\n       hint: use one of contain, cover, stretch, none, blur",
            "error: $.timeline.clips[2].gap: gap 0 s is not greater than 0\n       hint: give it a length greater than 0",
            "error: $.timeline.clips[3].duration: \"out\" and \"duration\" are both given\n       hint: keep one of them",
            "error: $.timeline.clips[3].muted: expected true or false, found a string",
            "error: $.timeline.clips[3].transition: a transition needs a picture on both sides, but the item before this clip is a gap\n       hint: remove the gap or the transition (a dip fades through a colour between two clips)",
            "error: $.timeline.clips[4].out: out 4.5 s is not after in 5 s\n       hint: a clip needs out > in; zero-length clips are not allowed",
            "error: $.timeline.audio[0]: missing required key \"id\"",
            "error: $.timeline.titles: expected an array, found an object",
        ])
    }

    @Test func emptyTitlesAndOverlaysNameWhatTheyLack() {
        let diagnostics = readProject("""
        {"reel": 1, "assets": {"a": {"path": "a.mp4"}},
         "timeline": {"clips": [{"asset": "a"}], "titles": [{}], "ducking": [], "volume": [], "overlays": [{}]}}
        """).diagnostics
        #expect(diagnostics.map { "\($0.path): \($0.message)" } == [
            "$.timeline.titles[0]: missing required key \"text\"", "$.timeline.titles[0]: missing required key \"start\"",
            "$.timeline.titles[0]: missing \"duration\" or \"end\"",
            "$.timeline.overlays[0]: missing required key \"image\"", "$.timeline.overlays[0]: missing required key \"start\"",
            "$.timeline.overlays[0]: missing \"duration\" or \"end\"",
        ])
        #expect(diagnostics.allSatisfy { $0.category == .invalid })
    }

    @Test func oddSizesNeedAFormatWithoutSubsampling() {
        #expect(readErrors(#"{"reel": 1, "output": {"size": [1279, 720], "end": 1}, "timeline": {}}"#) == [
            "error: $.output.size: size 1279×720 has an odd side, but yuv420p output needs even sides\n       hint: use [1278, 720] or [1280, 720]",
        ])
        #expect(readErrors(#"{"reel": 1, "output": {"size": [1279, 719], "end": 1, "video": {"pixelFormat": "yuv444p"}}, "timeline": {}}"#) == [])
    }

    @Test func decodesClipsAndGaps() throws {
        let project = try #require(readProject("""
        {"reel": 1, "output": {"frameRate": 25}, "assets": {"a": {"path": "a.mp4"}},
         "timeline": {"clips": [{"asset": "a", "in": 1, "out": 5, "speed": 2, "volume": "-6dB", "muted": true, "fit": "cover", "pitch": "varispeed"},
                                {"gap": "12f"},
                                {"asset": "a", "duration": 3, "speed": "1/3"}]}}
        """).project)
        let items = try #require(project.timeline?.items)
        #expect(items.count == 3)
        guard case .clip(let first) = items[0], case .gap(let gap, let gapPath) = items[1], case .clip(let third) = items[2] else {
            Issue.record("unexpected items \(items)")
            return
        }
        #expect(first.inPoint == t(1))
        #expect(first.outPoint == t(5))
        #expect(first.speed == Rational(2))
        #expect(abs(first.volume - 0.501187) < 1e-6)
        #expect(first.muted)
        #expect(first.fit == .cover)
        #expect(first.pitch == .varispeed)
        #expect(first.path.description == "$.timeline.clips[0]")
        #expect(gap == t(12, 25))
        #expect(gapPath.description == "$.timeline.clips[1]")
        #expect(third.inPoint == nil)
        #expect(third.duration == t(3))
        #expect(third.speed == Rational(1, 3))
        #expect(third.fit == .contain)
        #expect(third.volume == 1)
    }

    @Test func decodesTheExplicitForm() throws {
        let (project, diagnostics) = readProject("""
        {"reel": 1, "output": {"path": "o.mp4", "frameRate": 30, "size": [640, 360]},
         "assets": {"cat": {"path": "cat.mov"}},
         "composition": {"tracks": [
            {"id": 1, "type": "video", "segments": [
               {"asset": "cat", "source": {"start": 2, "duration": 8}, "target": {"start": 0, "duration": 4}, "sourceTrack": 0},
               {"empty": {"start": 4, "end": 6}}]},
            {"id": 2, "type": "audio", "name": "main", "segments": [
               {"asset": "cat", "source": {"start": 2, "end": 10}, "target": {"start": 0, "end": 4}, "pitch": "varispeed"}]}]},
         "audioMix": {"inputs": [{"track": 2, "volume": [{"at": 0, "value": 0.5}, {"start": 1, "duration": 1, "from": "-6dB", "to": 0}]}]},
         "videoComposition": {"frameDuration": "1/30", "renderSize": [640, 360], "background": "#FF000080",
            "instructions": [
              {"start": 0, "duration": 4, "layers": [{"track": 1,
                  "opacity": [{"at": 0, "value": 1}, {"start": 3, "end": 4, "from": 1, "to": 0}],
                  "transform": [{"at": 0, "value": [0.5, 0, 0, 0.5, 10, 20]},
                                {"start": 1, "duration": 1, "from": {"scale": 2}, "to": {"translate": [5, 6], "scale": [1, 3], "rotate": 90, "anchor": [10, 0]}}],
                  "crop": [{"at": 0, "value": [0, 0, 320, 180]}]}]},
              {"start": 4, "duration": 2, "layers": [], "background": "#00FF00", "postProcessing": false}]}}
        """)
        #expect(diagnostics.map(\.humanText) == [])
        let composition = try #require(project?.composition)
        #expect(composition.duration == t(6))
        #expect(composition.tracks.map(\.id) == [1, 2])
        #expect(composition.tracks[1].name == "main")
        #expect(composition.tracks[0].segments == [
            Segment(asset: "cat", sourceTrack: 0, source: range(t(2), t(10)), target: range(t(0), t(4))),
            Segment(emptyTarget: range(t(4), t(6))),
        ])
        #expect(composition.tracks[1].segments[0].pitch == .varispeed)
        #expect(try composition.tracks[0].segments[0].mapping?.rate == Rational(2))
        let input = try #require(project?.audioMix?.inputs.first)
        #expect(input.track == 2)
        #expect(input.volume.keys.count == 2)
        if case .ramp(let ramp, let from, let to, let curve) = input.volume.keys[1] {
            #expect(curve == .linear)
            #expect(ramp == range(t(1), t(2)))
            #expect(abs(from - 0.501187) < 1e-6)
            #expect(to == 0)
        } else {
            Issue.record("expected a ramp")
        }
        let videoComposition = try #require(project?.videoComposition)
        #expect(videoComposition.frameDuration == t(1, 30))
        #expect(videoComposition.background == RGBAColor(red: 255, green: 0, blue: 0, alpha: 128))
        #expect(videoComposition.instructions.count == 2)
        let layer = try #require(videoComposition.instructions.first?.layers.first)
        #expect(layer.opacity == KeyList([.set(at: .zero, value: 1), .ramp(range(t(3), t(4)), from: 1, to: 0)]))
        // scale 1×3, then 90° clockwise about (10, 0), then +(5, 6): (x, y) → (10 − 3y + 5, x − 10 + 6).
        #expect(layer.transform == KeyList([
            .set(at: .zero, value: AffineTransform(a: 0.5, b: 0, c: 0, d: 0.5, tx: 10, ty: 20)),
            .ramp(range(t(1), t(2)), from: AffineTransform(a: 2, b: 0, c: 0, d: 2, tx: 0, ty: 0),
                  to: AffineTransform(a: 0, b: 1, c: -3, d: 0, tx: 15, ty: -4)),
        ]))
        #expect(layer.crop == KeyList([.set(at: .zero, value: CropRect(x: 0, y: 0, width: 320, height: 180))]))
        #expect(videoComposition.instructions[1].background == RGBAColor(red: 0, green: 255, blue: 0))
        #expect(videoComposition.instructions[1].postProcessing == false)
        #expect(videoComposition.instructions[1].path.description == "$.videoComposition.instructions[1]")
    }

    @Test func explicitFormErrors() {
        #expect(readErrors("""
        {"reel": 1, "output": {"frameRate": 30}, "assets": {"cat": {"path": "cat.mov"}},
         "composition": {"tracks": [
            {"id": 0, "type": "vidio", "segments": [{"asset": "cta", "source": {"start": 0}, "target": {"start": 0, "duration": 1, "end": 1}}]},
            {"id": 2, "type": "audio", "segments": {}},
            {"id": 2, "type": "audio", "segments": [{"empty": {"start": 1, "end": 1}}]},
            {"id": 3, "type": "video", "name": "main", "segments": []}, {"id": 4, "type": "audio", "name": "main", "segments": []},
            {"id": 5, "type": "audio", "name": "main", "segments": []}]},
         "audioMix": {"inputs": [{"track": 2, "volume": [{"at": 0}, {"start": 1, "duration": 0, "from": 1, "to": 0}, {"at": 2, "value": 9}]}]},
         "videoComposition": {"frameDuration": "1/500", "instructions": [
            {"start": 0, "layers": [{"track": 1, "transform": [{"at": 0, "value": [1, 0, 0]}, {"at": 1, "value": {"rotate": "90"}}],
                                     "crop": [{"at": 0, "value": [0, 0, -1, 5]}]}]}],
            "titles": [{"text": "x"}]}}
        """) == [
            "error: $.composition.tracks[0].id: 0 is out of range\n       hint: use a whole number from 1 to 2147483647",
            "error: $.composition.tracks[0].type: unknown track type \"vidio\"\n       hint: did you mean \"video\"?",
            "error: $.composition.tracks[0].segments[0].asset: unknown asset \"cta\"\n       hint: did you mean \"cat\"?",
            "error: $.composition.tracks[0].segments[0].source: missing \"duration\" or \"end\"\n       hint: give the range a duration or an end",
            "error: $.composition.tracks[0].segments[0].target.end: \"duration\" and \"end\" are both given\n       hint: keep one of them",
            "error: $.composition.tracks[1].segments: expected an array, found an object",
            "error: $.composition.tracks[2].segments[0].empty.end: range ends at 1 s (frame 30), not after its start at 1 s (frame 30)\n       hint: end it after its start",
            // tracks[1] is kept without its segments, so its id still counts.
            "error: $.composition.tracks[2].id: track id 2 is already used by tracks[1]\n       hint: give every track its own id",
            "error: $.composition.tracks[3].name: \"main\" is reserved for the storyline's audio track\n       hint: give this video track another name",
            "error: $.composition.tracks[5].name: another track is already named \"main\"\n       hint: \"main\" names the storyline's audio; give this track another name",
            "error: $.audioMix.inputs[0].volume[0]: missing required key \"value\"",
            "error: $.audioMix.inputs[0].volume[1].duration: ramp 0 s (0 frames) is not greater than 0\n       hint: use an {\"at\", \"value\"} key for a step",
            "error: $.audioMix.inputs[0].volume[2].value: gain 9 is out of range\n       hint: gains are from 0 to 4 (+12 dB)",
            "error: $.videoComposition.frameDuration: frameDuration 0.002 s is a frame rate of 500, outside 1…240\n       hint: use a frame duration from 1/240 to 1 s",
            "error: $.videoComposition.instructions[0]: missing \"duration\" or \"end\"\n       hint: give the instruction a duration or an end",
            "error: $.videoComposition.instructions[0].layers[0].transform[0].value: expected 6 numbers, found 3\n       hint: write a matrix [a, b, c, d, tx, ty]",
            "error: $.videoComposition.instructions[0].layers[0].transform[1].value.rotate: expected a number, found a string",
            "error: $.videoComposition.instructions[0].layers[0].crop[0].value: crop width and height must not be negative\n       hint: write [x, y, width, height]",
            "error: $.videoComposition.titles[0]: missing required key \"start\"",
            "error: $.videoComposition.titles[0]: missing \"duration\" or \"end\"\n       hint: give the title a duration or an end",
        ])
    }
}
