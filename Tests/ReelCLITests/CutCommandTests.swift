import Foundation
import ReelTestSupport
import Testing

/// `reel cut` from outside: on generated media with silences at known times, every cut lands on the expected
/// frame (the render of the written project, piped into `reel render -`, shows exactly the source frames kept) or
/// sample; on real speech the cuts agree with ffmpeg's `silencedetect`; errors name the input and the option and
/// leave nothing behind.
@Suite struct CutCommandTests {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-cut")
        reel = try builtExecutable(named: "reel")
    }

    func reel(_ args: [String], stdin: Data? = nil) throws -> ProcessResult {
        try run(reel.path, args, stdin: stdin)
    }

    /// A 3 s, 30 fps indexed video (frame n shows n) with 48 kHz PCM sound: a 440.25 Hz tone at half scale, silent
    /// from 1 s to 2 s exactly. At 1 s the tone is at its crest: a cut there without a fade would click.
    func talk() throws -> URL {
        let video = folder.file("picture.mkv")
        try IndexedMedia.makeVideo(at: video, frameCount: 90, frameRate: "30")
        let talk = folder.file("talk.mkv")
        _ = try runChecked("ffmpeg", [
            "-v", "error", "-y", "-i", video.path, "-f", "lavfi",
            "-i", "aevalsrc=exprs='if(between(t,1,2),0,0.5*sin(2*PI*440.25*t))':s=48000:d=3",
            "-map", "0:v", "-map", "1:a", "-c:v", "copy", "-c:a", "pcm_s16le", talk.path,
        ])
        return talk
    }

    /// (margins, the source frames the cut keeps).
    static let frameCases: [([String], [Int])] = [
        (["--margin", "0"], Array(0..<30) + Array(60..<90)),
        // 1.05 s is frame 31.5: the cut starts on frame 32; 1.95 s is frame 58.5: the sound returns on frame 58.
        (["--margin", "0.05"], Array(0..<32) + Array(58..<90)),
        (["--margin-before", "0.1", "--margin-after", "0"], Array(0..<30) + Array(57..<90)),
        (["--margin", "0.6"], Array(0..<90)),
    ]

    @Test(arguments: frameCases)
    func cutsLandOnTheExpectedFrames(margins: [String], kept: [Int]) throws {
        let talk = try talk()
        let cut = try reel(["cut", talk.path, "--min-silence", "0.5", "-o", "-"] + margins)
        #expect(cut.status == 0, "\(cut.stderrText)")
        let project = try #require(try JSONSerialization.jsonObject(with: cut.stdout) as? [String: Any])
        let clips = try #require((project["timeline"] as? [String: Any])?["clips"] as? [[String: Any]])
        #expect(clips.count == (kept.count == 90 ? 1 : 2), "\(String(decoding: cut.stdout, as: UTF8.self))")

        let output = folder.file("cut-\(margins.joined()).mkv")
        let render = try reel(["render", "-", "-o", output.path, "--force"], stdin: cut.stdout)
        #expect(render.status == 0, "\(render.stderrText)")
        let frames = try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36)
        #expect(frames == kept, "rendered \(frames)")
    }

    /// Fillers from a word-level transcript: each cut widens to whole frames, so no part of the word stays; silence
    /// is not a criterion unless named.
    @Test func fillerWordsAreCutOnWholeFrames() throws {
        let talk = try talk()
        let transcript = folder.file("talk.words.json")
        try Data("""
            [{"word": "Hello", "start": 0.1, "end": 0.4}, {"word": "Um,", "start": 0.41, "end": 0.62},
             {"word": "you", "start": 2.2, "end": 2.3}, {"word": "know", "start": 2.3, "end": 2.45},
             {"word": "world.", "start": 2.5, "end": 2.9}]
            """.utf8).write(to: transcript)
        let report = folder.file("fillers-report.json")
        let cut = try reel(["cut", talk.path, "--transcript", transcript.path, "--report", report.path, "--fillers",
                            "-o", "-"])
        #expect(cut.status == 0, "\(cut.stderrText)")
        let output = folder.file("fillers.mkv")
        let render = try reel(["render", "-", "-o", output.path], stdin: cut.stdout)
        #expect(render.status == 0, "\(render.stderrText)")
        // "Um," 0.41–0.62 s is frames 12.3–18.6: frames 12 to 18 go; "you know" 2.2–2.45 s: frames 66 to 73.
        let frames = try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36)
        #expect(frames == Array(0..<12) + Array(19..<66) + Array(74..<90), "rendered \(frames)")
        let text = try String(contentsOf: report, encoding: .utf8)
        #expect(text.contains(#""filler""#) && text.contains(#""you know""#), "\(text)")

        let chosen = try reel(["cut", talk.path, "--transcript", transcript.path, "--fillers=hello",
                               "--remove-words", "world", "--report", folder.file("words.json").path, "-o", "-"])
        #expect(chosen.status == 0, "\(chosen.stderrText)")
        let words = try String(contentsOf: folder.file("words.json"), encoding: .utf8)
        #expect(words.contains(#""Hello""#) && words.contains(#""world.""#) && !words.contains(#""Um,""#), "\(words)")

        let noTranscript = try reel(["cut", talk.path, "--fillers", "-o", "-"])
        #expect(noTranscript.status == 64, "\(noTranscript.stderrText)")
        #expect(noTranscript.stderrText.contains("--transcript"), "\(noTranscript.stderrText)")
    }

    /// `--captions stream` with a transcript: one subtitle stream whose cues are where the kept words are after the
    /// cut, and whose text has no cut filler; a caption file follows the cuts the same way.
    @Test func captionsFollowTheCuts() throws {
        let talk = try talk()
        let transcript = folder.file("captioned.words.json")
        try Data("""
            [{"word": "Hello", "start": 0.1, "end": 0.4}, {"word": "Um,", "start": 0.41, "end": 0.62},
             {"word": "Hi", "start": 2.2, "end": 2.2}, {"word": "world.", "start": 2.5, "end": 2.9}]
            """.utf8).write(to: transcript)
        let project = folder.file("captioned.json")
        let cut = try reel(["cut", talk.path, "--transcript", transcript.path, "--fillers", "--silence", "-35",
                            "--margin", "0", "--captions", "stream", "-o", project.path, "--force"])
        #expect(cut.status == 0, "\(cut.stderrText)")
        let output = folder.file("captioned.mkv")
        let render = try reel(["render", project.path, "-o", output.path, "--force"])
        #expect(render.status == 0, "\(render.stderrText)")
        #expect(!render.stderrText.contains("warning"), "\(render.stderrText)")
        // Kept: frames 0–11 (0–0.4 s), 19–29 (0.6333–1 s), 60–89 (2–3 s): 53 frames. "world." at 2.5 s of the source is
        // 0.5 s into the last clip, which starts at 23 frames = 0.7667 s: 1.2667–1.6667 s; "Hi", a word without length
        // at 2.2 s, is at 0.9667 s. The words are one page ("Hello Hi world."), each word's cue lasting until the
        // next one's starts. Matroska shifts every stream by
        // the video's start (its first packet's delay), so times are read from there.
        let probe = try run("ffprobe", ["-v", "error", "-select_streams", "s", "-show_entries",
                                        "packet=pts_time,duration_time", "-of", "csv=p=0", output.path])
        let streams = try run("ffprobe", ["-v", "error", "-select_streams", "s", "-show_entries", "stream=index",
                                          "-of", "csv=p=0", output.path])
        #expect(streams.stdoutText.split(separator: "\n").count == 1, "subtitle streams: \(streams.stdoutText)")
        let packets = probe.stdoutText.split(separator: "\n").map { $0.split(separator: ",").compactMap { Double($0) } }
        #expect(packets.count == 3, "\(probe.stdoutText)")
        let videoStart = try run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "stream=start_time",
                                             "-of", "csv=p=0", output.path]).stdoutText
        let zero = Double(videoStart.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        if packets.count == 3, packets.allSatisfy({ $0.count == 2 }) {
            for (packet, (start, end)) in zip(packets, [(0.1, 0.9667), (0.9667, 1.2667), (1.2667, 1.6667)]) {
                #expect(abs(packet[0] - zero - start) < 0.002 && abs(packet[0] - zero + packet[1] - end) < 0.002,
                        "\(packet) from \(zero): expected \(start)–\(end)")
            }
        }
        let text = try run("ffmpeg", ["-v", "error", "-i", output.path, "-map", "0:s", "-f", "srt", "-"])
        #expect(text.stdoutText.contains("Hello Hi world.") && !text.stdoutText.contains("Um"),
                "\(text.stdoutText)")

        let subtitles = folder.file("talk.srt")
        try "1\n00:00:02,500 --> 00:00:02,900\nworld\n".write(to: subtitles, atomically: true, encoding: .utf8)
        let burned = try reel(["cut", talk.path, "--margin", "0", "--caption-file", subtitles.path, "-o", "-"])
        #expect(burned.status == 0, "\(burned.stderrText)")
        #expect(burned.stdoutText.contains(#""mode": "burn""#) && burned.stdoutText.contains("talk.srt"), "\(burned.stdoutText)")
        let none = try reel(["cut", talk.path, "--captions", "both", "-o", "-"])
        #expect(none.status == 64 && none.stderrText.contains("neither a --caption-file nor a --transcript"), "\(none.stderrText)")
    }

    /// `--speed-silence 4`: the silence plays at four times the speed over whole output frames (28 of its 30 source
    /// frames, one in four shown), its last two frames at speed 1, and the sound after it on the grid.
    @Test func silencesPlayFastOnTheFrameGrid() throws {
        let talk = try talk()
        let cut = try reel(["cut", talk.path, "--margin", "0", "--speed-silence", "4", "-o", "-"])
        #expect(cut.status == 0, "\(cut.stderrText)")
        let output = folder.file("fast.mkv")
        let render = try reel(["render", "-", "-o", output.path], stdin: cut.stdout)
        #expect(render.status == 0, "\(render.stderrText)")
        let frames = try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36)
        let expected = Array(0..<30) + stride(from: 30, to: 58, by: 4) + [58, 59] + Array(60..<90)
        #expect(frames == expected, "rendered \(frames)")
    }

    /// Every clip after a cut says why the stretch before it went (issue 36 point 6), in the project, the edit
    /// decision list's comments and for a silence played fast; a label is a note the renderer reads and ignores.
    @Test func everyClipSaysWhyTheStretchBeforeItWasCut() throws {
        let talk = try talk()
        let transcript = folder.file("labelled.words.json")
        try Data("""
            [{"word": "Hello", "start": 0.1, "end": 0.4}, {"word": "Um,", "start": 0.41, "end": 0.62},
             {"word": "you", "start": 2.2, "end": 2.3}, {"word": "know", "start": 2.3, "end": 2.45},
             {"word": "world.", "start": 2.5, "end": 2.9}]
            """.utf8).write(to: transcript)
        let list = folder.file("labelled.edl")
        let cut = try reel(["cut", talk.path, "--transcript", transcript.path, "--fillers", "--silence", "-35",
                            "--min-silence", "0.5", "--margin", "0", "--edl", list.path, "-o", "-"])
        #expect(cut.status == 0, "\(cut.stderrText)")
        let project = try #require(try JSONSerialization.jsonObject(with: cut.stdout) as? [String: Any])
        let clips = try #require((project["timeline"] as? [String: Any])?["clips"] as? [[String: Any]])
        #expect(clips.map { $0["label"] as? String } == [
            nil,
            #"after a cut of 0.4–0.633 s: filler "Um,""#,
            "after a cut of 1–2 s: silence (digital silence)",
            #"after a cut of 2.2–2.467 s: filler "you know""#,
        ], "\(String(decoding: cut.stdout, as: UTF8.self))")
        let listText = try String(contentsOf: list, encoding: .utf8)
        #expect(listText.components(separatedBy: "\n").filter { $0.hasPrefix("* COMMENT: ") } == [
            #"* COMMENT: after a cut of 0.4–0.633 s: filler "Um,""#,
            "* COMMENT: after a cut of 1–2 s: silence (digital silence)",
            #"* COMMENT: after a cut of 2.2–2.467 s: filler "you know""#,
        ], "\(listText)")
        let render = try reel(["render", "-", "-o", folder.file("labelled.mkv").path], stdin: cut.stdout)
        #expect(render.status == 0, "\(render.stderrText)")

        // A filler that --remove-words names too is told once.
        let both = try reel(["cut", talk.path, "--transcript", transcript.path, "--fillers", "--remove-words", "um",
                             "-o", "-"])
        #expect(both.status == 0, "\(both.stderrText)")
        let bothProject = try #require(try JSONSerialization.jsonObject(with: both.stdout) as? [String: Any])
        let bothClips = try #require((bothProject["timeline"] as? [String: Any])?["clips"] as? [[String: Any]])
        #expect(bothClips.compactMap { $0["label"] as? String }.first == #"after a cut of 0.4–0.633 s: filler "Um,""#,
                "\(String(decoding: both.stdout, as: UTF8.self))")

        // Cut to the end: the last clip says so; a silence played fast says what it is.
        let tail = try reel(["cut", talk.path, "--margin", "0", "--remove", "2.5..3", "--speed-silence", "4", "-o", "-"])
        #expect(tail.status == 0, "\(tail.stderrText)")
        let tailProject = try #require(try JSONSerialization.jsonObject(with: tail.stdout) as? [String: Any])
        let tailClips = try #require((tailProject["timeline"] as? [String: Any])?["clips"] as? [[String: Any]])
        #expect(tailClips.map { $0["label"] as? String } == [
            nil, "1–2 s: silence (digital silence), played fast", nil,
            "then a cut of 2.5–3 s: removed by hand (--remove) to the source's end",
        ], "\(String(decoding: tail.stdout, as: UTF8.self))")

        let badLabel = try reel(["validate", "-"], stdin: Data("""
            {"reel": 1, "assets": {"t": {"path": "\(talk.path)"}}, "timeline": {"clips": [{"asset": "t", "label": 3}]}}
            """.utf8))
        #expect(badLabel.status == 65 && badLabel.stderrText.contains("$.timeline.clips[0].label"), "\(badLabel.stderrText)")
    }

    /// Two inputs, each its clips in order; `--remove` and `--keep` in every input's source time.
    @Test func severalInputsWithRangesByHand() throws {
        let first = try talk()
        let second = folder.file("talk-again.mkv")
        try FileManager.default.copyItem(at: first, to: second)
        let cut = try reel(["cut", first.path, second.path, "--margin", "0", "--remove", "0..0.5",
                            "--keep", "1.2..1.5", "-o", "-"])
        #expect(cut.status == 0, "\(cut.stderrText)")
        let project = try #require(try JSONSerialization.jsonObject(with: cut.stdout) as? [String: Any])
        #expect((project["assets"] as? [String: Any])?.keys.sorted() == ["talk", "talk-again"])
        let output = folder.file("two.mkv")
        let render = try reel(["render", "-", "-o", output.path], stdin: cut.stdout)
        #expect(render.status == 0, "\(render.stderrText)")
        let each = Array(15..<30) + Array(36..<45) + Array(60..<90)
        let frames = try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36)
        #expect(frames == each + each, "rendered \(frames)")

        let badRange = try reel(["cut", first.path, "--keep", "5..2", "-o", "-"])
        #expect(badRange.status == 64 && badRange.stderrText.contains("--keep 5..2"), "\(badRange.stderrText)")

        // Ranges of one input: named by its path as given, or by its number.
        let own = try reel(["cut", first.path, second.path, "--margin", "0", "--remove", "0..0.5",
                            "--keep", "\(first.path)=1.2..1.5", "--remove", "2=2.5..3", "-o", "-"])
        #expect(own.status == 0, "\(own.stderrText)")
        let ownOutput = folder.file("two-own.mkv")
        let ownRender = try reel(["render", "-", "-o", ownOutput.path], stdin: own.stdout)
        #expect(ownRender.status == 0, "\(ownRender.stderrText)")
        let ownFrames = try IndexedMedia.readFrameIndices(of: ownOutput, width: 64, height: 36)
        #expect(ownFrames == each + Array(15..<30) + Array(60..<75), "rendered \(ownFrames)")
        let notAnInput = try reel(["cut", first.path, second.path, "--remove", "3=0..1", "-o", "-"])
        #expect(notAnInput.status == 64 && notAnInput.stderrText.contains("--remove 3=0..1: 3 is not one of the 2 inputs"),
                "\(notAnInput.stderrText)")
    }

    @Test func theCutFadesItsSoundInsteadOfClicking() throws {
        let talk = try talk()
        let projectFile = folder.file("fades.json")
        let cut = try reel(["cut", talk.path, "--margin", "0", "-o", projectFile.path])
        #expect(cut.status == 0, "\(cut.stderrText)")
        let text = try String(contentsOf: projectFile, encoding: .utf8)
        #expect(text.contains(#""out": 1"#), "\(text)")
        #expect(text.contains(#""in": 2"#), "\(text)")
        let output = folder.file("fades.wav")
        let render = try reel(["render", projectFile.path, "-o", output.path])
        #expect(render.status == 0, "\(render.stderrText)")
        let samples = try readAudioSamples(of: output, sampleRate: 48000, channels: 1)[0]
        // The cut is at 1 s, sample 48000 of the render, where the tone is at its crest: faded to nearly nothing
        // there, at full level 20 ms either side.
        let peak = { (range: Range<Int>) in range.map { abs(samples[$0]) }.max() ?? 0 }
        #expect(peak(47995..<48005) < 0.05, "around the cut: \(peak(47995..<48005))")
        #expect(peak(47000..<47500) > 0.3, "before the cut: \(peak(47000..<47500))")
        #expect(peak(48500..<49000) > 0.3, "after the cut: \(peak(48500..<49000))")
    }

    /// An audio-only input's captions ride on its audio tracks and follow the cuts as clip captions do.
    @Test func anAudioOnlyInputsCaptionsFollowItsCuts() throws {
        let wav = folder.file("spoken.wav")
        _ = try runChecked("ffmpeg", [
            "-v", "error", "-y", "-f", "lavfi",
            "-i", "aevalsrc=exprs='if(gte(t,1)*lt(t,2),0,0.4+0.1*sin(2*PI*300*t))':s=16000:d=3",
            "-c:a", "pcm_s16le", wav.path,
        ])
        let transcript = folder.file("spoken.words.json")
        try Data("""
            [{"word": "Hello", "start": 0.1, "end": 0.4}, {"word": "gap", "start": 1.2, "end": 1.5},
             {"word": "world.", "start": 2.5, "end": 2.9}]
            """.utf8).write(to: transcript)
        let project = folder.file("spoken.json")
        let cut = try reel(["cut", wav.path, "--margin", "0", "--min-silence", "0.5", "--transcript", transcript.path,
                            "--captions", "stream", "-o", project.path])
        #expect(cut.status == 0, "\(cut.stderrText)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: project)) as? [String: Any])
        let audio = try #require((json["timeline"] as? [String: Any])?["audio"] as? [[String: Any]])
        #expect(audio.count == 2 && audio.allSatisfy { $0["captions"] != nil }, "\(audio)")
        let output = folder.file("spoken.mkv")
        let render = try reel(["render", project.path, "-o", output.path])
        #expect(render.status == 0 && !render.stderrText.contains("warning"), "\(render.stderrText)")
        // Kept: 0–1 s and 2–3 s. "world." at 2.5 s of the source plays at 1.5 s; "gap" went with the silence. The
        // pause between the words pages them apart.
        let probe = try run("ffprobe", ["-v", "error", "-select_streams", "s", "-show_entries", "packet=pts_time",
                                        "-of", "csv=p=0", output.path])
        let videoStart = try run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "stream=start_time",
                                             "-of", "csv=p=0", output.path]).stdoutText
        let zero = Double(videoStart.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        let starts = probe.stdoutText.split(separator: "\n").compactMap { Double($0) }.map { $0 - zero }
        #expect(starts.count == 2 && abs(starts[0] - 0.1) < 0.002 && abs(starts[1] - 1.5) < 0.002, "\(starts)")
        let text = try run("ffmpeg", ["-v", "error", "-i", output.path, "-map", "0:s", "-f", "srt", "-"])
        #expect(text.stdoutText.contains("Hello") && text.stdoutText.contains("world.") && !text.stdoutText.contains("gap"),
                "\(text.stdoutText)")

        // A looping track plays its source more than once: its captions are refused at their path.
        try "1\n00:00:00,500 --> 00:00:01,000\nbed\n".write(to: folder.file("bed.srt"), atomically: true, encoding: .utf8)
        let looping = folder.file("looping.json")
        try Data("""
            { "reel": 1, "output": { "size": [64, 36], "end": 2 }, "assets": { "a": { "path": "spoken.wav" } },
              "timeline": { "clips": [], "audio": [ { "id": "bed", "asset": "a", "loop": true,
                                                      "captions": { "file": "bed.srt" } } ] } }
            """.utf8).write(to: looping)
        let refused = try reel(["validate", looping.path])
        #expect(refused.status == 65 && refused.stderrText.contains("$.timeline.audio[0].captions: a looping track"),
                "\(refused.stderrText)")
    }

    @Test func audioOnlyCutsFallOnSamples() throws {
        // 16 kHz mono, 3 s: a tone on an offset (never near zero, so the silences end exactly where they are
        // written), silent from 0.75 s to 1.625 s and from 2.25 s to 2.5 s (shorter than --min-silence).
        let wav = folder.file("voice.wav")
        _ = try runChecked("ffmpeg", [
            "-v", "error", "-y", "-f", "lavfi",
            "-i", "aevalsrc=exprs='if(gte(t,0.75)*lt(t,1.625)+gte(t,2.25)*lt(t,2.5),0,0.4+0.1*sin(2*PI*300*t))':s=16000:d=3",
            "-c:a", "pcm_s16le", wav.path,
        ])
        let projectFile = folder.file("voice.json")
        let report = folder.file("voice-report.json")
        let cut = try reel(["cut", wav.path, "--margin", "0.1", "--min-silence", "0.5", "--report", report.path,
                            "-o", projectFile.path])
        #expect(cut.status == 0, "\(cut.stderrText)")
        let reportJSON = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let input = try #require((reportJSON["inputs"] as? [[String: Any]])?.first)
        let ranges = try #require(input["removedRanges"] as? [[String: Any]])
        #expect(ranges.count == 1, "\(ranges)")
        #expect(ranges.first?["start"] as? Double == 0.85)
        #expect(ranges.first?["end"] as? Double == 1.525)
        #expect(ranges.first?["reason"] as? String == "silence")
        #expect(input["kept"] as? Double == 2.325)

        let output = folder.file("voice-cut.wav")
        let render = try reel(["render", projectFile.path, "-o", output.path])
        #expect(render.status == 0, "\(render.stderrText)")
        let samples = try readAudioSamples(of: output, sampleRate: 16000, channels: 1)[0]
        #expect(samples.count == 37200, "\(samples.count) samples")
    }

    /// `--silence -20LU`: the threshold follows each file's own loudness, so one setting cuts the same pause from a
    /// recording and from a copy 40 dB quieter, where a fixed dBFS threshold cuts all of the quiet one; the loudness
    /// in the report is ffmpeg `ebur128`'s.
    @Test func aThresholdRelativeToTheLoudnessFitsLoudAndQuietRecordings() throws {
        // 48 kHz mono float, 3 s: a tone on an offset (never near zero), 40 dB lower from 1 s to 2 s.
        func recording(_ name: String, gain: String) throws -> URL {
            let wav = folder.file(name)
            _ = try runChecked("ffmpeg", [
                "-v", "error", "-y", "-f", "lavfi",
                "-i", "aevalsrc=exprs='\(gain)*if(gte(t,1)*lt(t,2),0.01,1)*(0.4+0.1*sin(2*PI*300*t))':s=48000:d=3",
                "-c:a", "pcm_f32le", wav.path,
            ])
            return wav
        }
        for (file, gain) in [("relative-loud.wav", "1"), ("relative-quiet.wav", "0.01")] {
            let wav = try recording(file, gain: gain)
            let report = folder.file(file + ".report.json")
            let cut = try reel(["cut", wav.path, "--silence", "-20LU", "--margin", "0", "--report", report.path, "-o", "-"])
            #expect(cut.status == 0, "\(file): \(cut.stderrText)")
            let reportJSON = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
            let input = try #require((reportJSON["inputs"] as? [[String: Any]])?.first)
            let ranges = try #require(input["removedRanges"] as? [[String: Any]])
            #expect(ranges.map { [$0["start"] as? Double, $0["end"] as? Double] } == [[1, 2]], "\(file): \(ranges)")
            let loudness = try #require(input["loudness"] as? Double)
            let measured = try LoudnessTargetTests.ffmpegMeasure(wav.path).integrated
            #expect(abs(loudness - measured) <= 0.1, "\(file): reel \(loudness) LUFS, ebur128 \(measured) LUFS")
            let level = try #require(input["silenceLevel"] as? Double)
            #expect(abs(level - (loudness - 20)) <= 0.01, "\(file): \(level) dBFS from \(loudness) LUFS")
            if gain != "1" {
                // A fixed -35 dBFS finds the whole quiet file silent.
                let fixed = try reel(["cut", wav.path, "--silence", "-35", "--margin", "0", "-o", "-"])
                #expect(fixed.status == 65 && fixed.stderrText.contains("nothing is left to keep"), "\(fixed.stderrText)")
            }
        }
        let silent = try recording("relative-silent.wav", gain: "0")
        let gated = try reel(["cut", silent.path, "--silence", "-20LU", "-o", "-"])
        #expect(gated.status == 65 && gated.stderrText.contains("−70 LUFS gate"), "\(gated.stderrText)")
        let badLU = try reel(["cut", silent.path, "--silence", "-80LU", "-o", "-"])
        #expect(badLU.status == 64 && badLU.stderrText.contains("--silence -80LU"), "\(badLU.stderrText)")
    }

    /// `--audio-track N` measures (and the project keeps) that stream; `--channel C` decides silence by one channel.
    @Test func theStreamAndChannelSilenceIsMeasuredOnCanBeChosen() throws {
        // Stream 1: stereo, the left channel pausing from 1 s to 2 s, the right one never; stream 2: mono, never.
        let file = folder.file("two-streams.mkv")
        let tone = "0.4+0.1*sin(2*PI*300*t)"
        _ = try runChecked("ffmpeg", [
            "-v", "error", "-y",
            "-f", "lavfi", "-i", "aevalsrc=exprs='if(gte(t,1)*lt(t,2),0,\(tone))|\(tone)':s=48000:d=3",
            "-f", "lavfi", "-i", "aevalsrc=exprs='\(tone)':s=48000:d=3",
            "-map", "0:a", "-map", "1:a", "-c:a", "pcm_s16le", file.path,
        ])
        func removed(_ options: [String]) throws -> (ranges: [[Double?]], project: [String: Any]) {
            let report = folder.file("streams-report.json")
            let cut = try reel(["cut", file.path, "--margin", "0", "--report", report.path, "--force", "-o", "-"] + options)
            #expect(cut.status == 0, "\(options): \(cut.stderrText)")
            let reportJSON = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
            let input = try #require((reportJSON["inputs"] as? [[String: Any]])?.first)
            let ranges = try #require(input["removedRanges"] as? [[String: Any]])
            let project = try #require(try JSONSerialization.jsonObject(with: cut.stdout) as? [String: Any])
            return (ranges.map { [$0["start"] as? Double, $0["end"] as? Double] }, project)
        }
        // The peak over both channels never drops: nothing is cut.
        #expect(try removed(["--silence", "-35"]).ranges.isEmpty)
        // The left channel alone pauses.
        #expect(try removed(["--silence", "-35", "--channel", "1"]).ranges == [[1, 2]])
        #expect(try removed(["--silence", "-35", "--channel", "2"]).ranges.isEmpty)
        // Stream 1 (the second stream of the file) never pauses; the project's asset names it.
        let second = try removed(["--silence", "-35", "--audio-track", "1", "--channel", "1"])
        #expect(second.ranges.isEmpty)
        let assets = try #require(second.project["assets"] as? [String: [String: Any]])
        #expect(assets.values.first?["audioTrack"] as? Int == 1, "\(assets)")

        let notAudio = try reel(["cut", file.path, "--audio-track", "5", "-o", "-"])
        #expect(notAudio.status == 65 && notAudio.stderrText.contains("its audio streams: 0, 1"), "\(notAudio.stderrText)")
        let noChannel = try reel(["cut", file.path, "--channel", "3", "-o", "-"])
        #expect(noChannel.status == 65 && noChannel.stderrText.contains("--channel 3: the audio stream has 2 channels"),
                "\(noChannel.stderrText)")
        let channelAlone = try reel(["cut", file.path, "--fillers", "--transcript", file.path, "--channel", "1", "-o", "-"])
        #expect(channelAlone.status == 64, "\(channelAlone.stderrText)")
    }

    @Test func errorsNameTheInputAndTheOptionAndWriteNothing() throws {
        let silent = folder.file("picture-only.mkv")
        try IndexedMedia.makeVideo(at: silent, frameCount: 10, frameRate: "30")
        let projectFile = folder.file("never.json")
        let noSound = try reel(["cut", silent.path, "-o", projectFile.path])
        #expect(noSound.status == 65, "\(noSound.stderrText)")
        #expect(noSound.stderrText.contains(silent.path) && noSound.stderrText.contains("--silence"), "\(noSound.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: projectFile.path))

        let missing = try reel(["cut", folder.file("absent.mp4").path, "-o", projectFile.path])
        #expect(missing.status == 66, "\(missing.stderrText)")
        #expect(missing.stderrText.contains("absent.mp4"), "\(missing.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: projectFile.path))

        let badLevel = try reel(["cut", silent.path, "--silence", "loud", "-o", projectFile.path])
        #expect(badLevel.status == 64, "\(badLevel.stderrText)")
        #expect(badLevel.stderrText.contains("--silence loud"), "\(badLevel.stderrText)")
    }

    /// Three 1 s shots at 30 fps with no sound — a moving test pattern, colour bars, a Mandelbrot zoom — encoded with
    /// libx264: the shots start at frames 30 and 60.
    func shots() throws -> URL {
        let film = folder.file("shots.mp4")
        _ = try runChecked("ffmpeg", [
            "-v", "error", "-y",
            "-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=1",
            "-f", "lavfi", "-i", "smptebars=s=320x240:r=30:d=1",
            "-f", "lavfi", "-i", "mandelbrot=s=320x240:r=30,trim=end_frame=30",
            "-filter_complex", "[0:v][1:v][2:v]concat=n=3:v=1:a=0,format=yuv420p[v]", "-map", "[v]",
            "-c:v", "libx264", "-crf", "18", "-g", "250", film.path,
        ])
        return film
    }

    /// `--scenes`: one clip per shot, each starting on the first frame of its shot, the same shots ffmpeg's `scdet`
    /// finds at the same threshold; nothing is cut, and a file without sound needs none.
    @Test func scenesSplitAtTheFirstFrameOfEveryShot() throws {
        let film = try shots()
        let report = folder.file("shots-report.json")
        let timeline = folder.file("shots.otio")
        let list = folder.file("shots.edl")
        let cut = try reel(["cut", film.path, "--scenes", "--report", report.path, "--otio", timeline.path,
                            "--edl", list.path, "-o", "-"])
        #expect(cut.status == 0, "\(cut.stderrText)")
        let project = try #require(try JSONSerialization.jsonObject(with: cut.stdout) as? [String: Any])
        let clips = try #require((project["timeline"] as? [String: Any])?["clips"] as? [[String: Any]])
        let points = clips.map { clip in ["in", "out"].map { (clip[$0] as? NSNumber)?.doubleValue } }
        #expect(points == [[0, 1], [1, 2], [2, nil]], "\(String(decoding: cut.stdout, as: UTF8.self))")

        let detected = try run("ffmpeg", ["-v", "info", "-i", film.path, "-vf", "scdet=threshold=10", "-f", "null", "-"])
        let times = detected.stderrText.split(separator: "\n").compactMap { line -> Double? in
            guard let range = line.range(of: "lavfi.scd.time: ") else { return nil }
            return Double(line[range.upperBound...].prefix { "0123456789.".contains($0) })
        }
        #expect(times == [1, 2], "scdet: \(detected.stderrText)")
        let text = try String(contentsOf: report, encoding: .utf8)
        #expect(text.contains(#""shotStarts""#), "\(text)")

        // The shots, rendered, are the source's pictures: no frame lost or repeated at a split.
        let output = folder.file("shots.mkv")
        let render = try reel(["render", "-", "-o", output.path], stdin: cut.stdout)
        #expect(render.status == 0, "\(render.stderrText)")
        let count = try run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                        "stream=nb_read_frames", "-of", "csv=p=0", output.path])
        #expect(count.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "90")
        // The OpenTimelineIO timeline holds the same three shots.
        let imported = try reel(["import", timeline.path, "-o", "-"])
        #expect(imported.status == 0, "\(imported.stderrText)")
        let otioProject = try #require(try JSONSerialization.jsonObject(with: imported.stdout) as? [String: Any])
        #expect(((otioProject["timeline"] as? [String: Any])?["clips"] as? [Any])?.count == 3,
                "\(imported.stdoutText)")
        // So does the edit decision list, read back at its rate: frames 0–30, 30–60, 60–90.
        let edlText = try String(contentsOf: list, encoding: .utf8)
        #expect(edlText.contains("001  AX       AA/V  C        00:00:00:00 00:00:01:00 01:00:00:00 01:00:01:00"), "\(edlText)")
        let fromList = try reel(["import", list.path, "--frame-rate", "30", "--media-dir", folder.url.path, "-o", "-"])
        #expect(fromList.status == 0, "\(fromList.stderrText)")
        let listProject = try #require(try JSONSerialization.jsonObject(with: fromList.stdout) as? [String: Any])
        let listClips = try #require((listProject["timeline"] as? [String: Any])?["clips"] as? [[String: Any]])
        #expect(listClips.map { $0["in"].map { "\($0)" } } == ["0", "30f", "60f"], "\(fromList.stdoutText)")

        // A threshold above every score splits nothing.
        let none = try reel(["cut", film.path, "--scenes", "100", "-o", "-"])
        #expect(none.status == 0, "\(none.stderrText)")
        let whole = try #require(try JSONSerialization.jsonObject(with: none.stdout) as? [String: Any])
        #expect(((whole["timeline"] as? [String: Any])?["clips"] as? [Any])?.count == 1)

        let bad = try reel(["cut", film.path, "--scenes", "0", "-o", "-"])
        #expect(bad.status == 64 && bad.stderrText.contains("--scenes"), "\(bad.stderrText)")
    }

    /// `--still 1`: frame 29 of an indexed video held for 2 s (60 more frames) goes but for the margins, 0.1 s
    /// (3 frames) each side; the pictures around it stay.
    @Test func stillPicturesAreCutButForTheMargins() throws {
        let video = folder.file("moving.mkv")
        try IndexedMedia.makeVideo(at: video, frameCount: 90, frameRate: "30")
        let held = folder.file("held.mp4")
        _ = try runChecked("ffmpeg", [
            "-v", "error", "-y", "-i", video.path, "-filter_complex",
            "[0:v]split[x][y];[x]trim=end_frame=30,setpts=PTS-STARTPTS,tpad=stop_mode=clone:stop=60[a];"
                + "[y]trim=start_frame=30,setpts=PTS-STARTPTS[b];[a][b]concat=n=2:v=1:a=0[v]",
            "-map", "[v]", "-c:v", "libx264", "-crf", "10", "-r", "30", held.path,
        ])
        let cut = try reel(["cut", held.path, "--still", "1", "--margin", "0.1", "-o", "-"])
        #expect(cut.status == 0, "\(cut.stderrText)")
        let output = folder.file("unheld.mkv")
        let render = try reel(["render", "-", "-o", output.path], stdin: cut.stdout)
        #expect(render.status == 0, "\(render.stderrText)")
        let frames = try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36)
        #expect(frames == Array(0..<30) + Array(repeating: 29, count: 5) + Array(30..<90), "rendered \(frames)")

        // Held for less than --still: nothing goes.
        let longer = try reel(["cut", held.path, "--still", "3", "-o", "-"])
        #expect(longer.status == 0, "\(longer.stderrText)")
        let project = try #require(try JSONSerialization.jsonObject(with: longer.stdout) as? [String: Any])
        #expect(((project["timeline"] as? [String: Any])?["clips"] as? [Any])?.count == 1)
    }

    /// `--scenes` and `--still` on a file without pictures: an error naming the file and the option.
    @Test func pictureCriteriaNeedVideo() throws {
        let sound = folder.file("sound.wav")
        _ = try runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=d=1", sound.path])
        for option in [["--scenes"], ["--still", "1"]] {
            let result = try reel(["cut", sound.path] + option + ["-o", folder.file("never.json").path])
            #expect(result.status == 65, "\(result.stderrText)")
            #expect(result.stderrText.contains(sound.path) && result.stderrText.contains(option[0]), "\(result.stderrText)")
            #expect(!FileManager.default.fileExists(atPath: folder.file("never.json").path))
        }
    }

    @Test func anExistingProjectIsNeverReplacedWithoutForce() throws {
        let talk = try talk()
        let projectFile = folder.file("kept.json")
        try Data("{}".utf8).write(to: projectFile)
        let refused = try reel(["cut", talk.path, "-o", projectFile.path])
        #expect(refused.status == 73, "\(refused.stderrText)")
        #expect(try String(contentsOf: projectFile, encoding: .utf8) == "{}")
        let forced = try reel(["cut", talk.path, "-o", projectFile.path, "--force"])
        #expect(forced.status == 0, "\(forced.stderrText)")
        let validated = try reel(["validate", projectFile.path])
        #expect(validated.status == 0, "\(validated.stderrText)")
        let overInput = try reel(["cut", talk.path, "-o", talk.path, "--force"])
        #expect(overInput.status == 73, "\(overInput.stderrText)")
    }

    /// Real speech over crowd noise: at the same threshold and minimum duration, every silence reel cuts (margins
    /// 0) is one silencedetect reports, start and end within one frame at 30 fps.
    @Test(.enabled(if: Workplace.media.isPresent, Comment(rawValue: Workplace.media.absence)),
          arguments: [("-25", "0.3"), ("-20", "0.5"), ("-30", "0.2")])
    func realSpeechAgreesWithSilencedetect(threshold: String, minimum: String) throws {
        let source = Workplace.media.file("jfk_speech_11s.flac")
        #expect(FileManager.default.fileExists(atPath: source.path), "\(source.path) is missing from the shared media folder")
        let detect = try run("ffmpeg", ["-nostats", "-i", source.path, "-af",
                                        "silencedetect=n=\(threshold)dB:d=\(minimum)", "-f", "null", "-"])
        var expected: [(Double, Double)] = []
        var start: Double?
        for line in detect.stderrText.split(separator: "\n") {
            if let range = line.range(of: "silence_start: ") {
                start = Double(line[range.upperBound...].prefix { !$0.isWhitespace })
            } else if let range = line.range(of: "silence_end: "), let begun = start,
                      let end = Double(line[range.upperBound...].prefix { !$0.isWhitespace }) {
                expected.append((begun, end))
                start = nil
            }
        }
        if let begun = start { expected.append((begun, 11)) }
        #expect(!expected.isEmpty, "silencedetect found no silence: \(detect.stderrText)")

        let report = folder.file("jfk\(threshold).json")
        let cut = try reel(["cut", source.path, "--silence", threshold, "--min-silence", minimum, "--margin", "0",
                            "--report", report.path, "-o", folder.file("jfk\(threshold)-project.json").path])
        #expect(cut.status == 0, "\(cut.stderrText)")
        let reportJSON = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let ranges = try #require((reportJSON["inputs"] as? [[String: Any]])?.first?["removedRanges"] as? [[String: Any]])
        let found = ranges.compactMap { range -> (Double, Double)? in
            guard let start = range["start"] as? Double, let end = range["end"] as? Double else { return nil }
            return (start, end)
        }
        #expect(found.count == expected.count, "reel \(found), silencedetect \(expected)")
        let frame = 1.0 / 30
        for ((start, end), (detectedStart, detectedEnd)) in zip(found, expected) {
            #expect(abs(start - detectedStart) <= frame, "start \(start) against \(detectedStart)")
            #expect(abs(end - detectedEnd) <= frame, "end \(end) against \(detectedEnd)")
        }
    }
}
