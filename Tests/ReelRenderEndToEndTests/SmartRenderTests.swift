import Foundation
import ReelTestSupport
import ReelTime
import Testing

/// `reel render --smart`, checked from outside: every frame, copied packet bytes, decodability, timestamps, audio.
@Suite struct SmartRenderTests {
    /// BT.709 tags, so that the 64×36 sources are read as the output is written (untagged SD counts as BT.601).
    static let tags = ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", "-color_range", "tv"]

    /// One packet of a video stream as ffprobe reports it.
    struct ProbedPacket {
        let pts: Int64
        let dts: Int64?
        let timeBase: Rational
        let hash: String
        let isKey: Bool

        /// The frame number at `rate` frames per second.
        func frame(rate: Int64) -> Int64 {
            (pts * timeBase.numerator * rate * 2 + timeBase.denominator) / (2 * timeBase.denominator)
        }
    }

    static func packets(of url: URL) throws -> [ProbedPacket] {
        let data = try runChecked("ffprobe", [
            "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=time_base", "-show_packets",
            "-show_data_hash", "md5", "-of", "json", url.path,
        ])
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let streams = root["streams"] as? [[String: Any]], let base = streams.first?["time_base"] as? String,
              let list = root["packets"] as? [[String: Any]] else { throw SupportError("unexpected ffprobe output") }
        let parts = base.split(separator: "/").compactMap { Int64($0) }
        let timeBase = Rational(parts[0], parts[1])
        return list.map { packet in
            ProbedPacket(
                pts: Int64(packet["pts"] as? Int ?? -1), dts: (packet["dts"] as? Int).map(Int64.init), timeBase: timeBase,
                hash: packet["data_hash"] as? String ?? "", isKey: (packet["flags"] as? String ?? "").hasPrefix("K"))
        }
    }

    /// The source frames a smart render copies from `stretch` (source frames shown untouched, in order), worked out
    /// from the source's packets alone (decode order and keyframe flags; these closed-GOP x264 sources flag only IDR
    /// pictures): every GOP that starts and ends inside the stretch, and — with `prefixes` — the first packets of
    /// the GOP the stretch ends in, as far as they show a gap-free run of frames from its keyframe, if two or more.
    static func copiedFrames(_ packets: [ProbedPacket], rate: Int64, stretch: Range<Int64>, prefixes: Bool = true) -> [Int64] {
        let frames = packets.map { $0.frame(rate: rate) }
        let starts = packets.indices.filter { packets[$0].isKey }
        var copied: [Int64] = []
        for (n, start) in starts.enumerated() {
            let gop = frames[start..<(n + 1 < starts.count ? starts[n + 1] : frames.count)]
            guard let first = gop.first, stretch.contains(first) else { continue }
            if let last = gop.max(), last < stretch.upperBound {
                copied += first...last
                continue
            }
            guard prefixes else { break }
            var shown: Set<Int64> = []
            var prefix: [Int64] = []
            for frame in gop {
                shown.insert(frame)
                if shown == Set(first..<first + Int64(shown.count)), shown.allSatisfy({ stretch.contains($0) }) {
                    prefix = shown.sorted()
                }
            }
            if prefix.count >= 2 { copied += prefix }
            break
        }
        return copied
    }

    /// A timeline with cuts mid-GOP, one frame after a keyframe, on a keyframe, and a dissolve; sources with
    /// B-frames (reorder depth 2) in QuickTime and Matroska.
    @Test(arguments: ["mp4", "mkv"])
    func smartRenderIsExact(container: String) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let pcm = AudioSpec.counter(sampleRate: 48000, channels: 2, codec: "pcm_s16le")
        try IndexedMedia.makeVideo(
            at: folder.file("a.mov"), frameCount: 150, gop: 12, bFrames: 2, extraArgs: Self.tags, audio: pcm)
        _ = try IndexedMedia.makeVideo(
            at: folder.file("b.mkv"), frameCount: 120, gop: 12, bFrames: 2, extraArgs: Self.tags, audio: pcm)
        let audio = container == "mkv" ? "{ \"codec\": \"pcm\" }" : "{ \"codec\": \"aac\" }"
        let project = """
        {
          "reel": 1,
          "output": { "path": "out.\(container)", "size": [64, 36], "frameRate": 30, "audio": \(audio) },
          "assets": { "a": { "path": "a.mov" }, "b": { "path": "b.mkv" } },
          "timeline": { "clips": [
            { "asset": "a", "in": 0.5, "out": 2.5 },
            { "asset": "b", "in": "13f", "duration": "40f" },
            { "asset": "a", "in": "96f", "duration": "36f" },
            { "asset": "b", "in": "60f", "duration": "30f", "transition": { "type": "dissolve", "duration": "10f" } }
          ] }
        }
        """
        try project.write(to: folder.file("project.json"), atomically: true, encoding: .utf8)
        let reel = try builtExecutable(named: "reel")
        let result = try run(reel.path, ["render", folder.file("project.json").path, "--smart", "--progress", "json"])
        #expect(result.status == 0, "stderr: \(result.stderrText)")
        let sourceA = try Self.packets(of: folder.file("a.mov"))
        let sourceB = try Self.packets(of: folder.file("b.mkv"))
        // The untouched stretches (source frames, first output frame): the dissolve covers output 126…135.
        let stretches: [([ProbedPacket], Range<Int64>, Int64)] = [
            (sourceA, 15..<75, 0), (sourceB, 13..<53, 60), (sourceA, 96..<122, 100), (sourceB, 70..<90, 136),
        ]
        let copied: [(output: Int64, source: Int64, packets: [ProbedPacket])] = stretches.flatMap { packets, stretch, start in
            Self.copiedFrames(packets, rate: 30, stretch: stretch).map { (start + $0 - stretch.lowerBound, $0, packets) }
        }
        let wholeGOPs = stretches.map { Self.copiedFrames($0.0, rate: 30, stretch: $0.1, prefixes: false).count }.reduce(0, +)
        // Whole GOPs: a 24…71, b 24…47, a 96…119, b 72…83; the GOPs the stretches end in add their prefixes.
        #expect(wholeGOPs == 108)
        #expect(copied.count > wholeGOPs, "no GOP was copied up to a cut")
        let report = result.stderrText.split(separator: "\n").first { $0.hasPrefix("{\"smart\"") }
        #expect(report?.contains("\"frames\":156,\"copied\":\(copied.count),\"fallback\":null") == true, "\(result.stderrText)")
        #expect(report?.contains("a transition") == true)
        #expect(report?.contains("{\"start\":0,\"end\":9,\"copied\":false,\"asset\":null,"
            + "\"reason\":\"'a' is entered mid-GOP, not on an IDR picture\"}") == true)

        let output = folder.file("out.\(container)")
        // Every frame outside the dissolve (output 126…135) shows exactly the source frame the timeline says.
        var expected: [Int] = []
        expected += (15..<75)                 // a 0.5 s … 2.5 s
        expected += (13..<53)                 // b, one frame after its keyframe at 12
        expected += (96..<132)                // a, from its keyframe at 96
        expected += (70..<90)                 // b after the dissolve
        let shown = try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36)
        #expect(shown.count == 156)
        let outside = Array(shown[0..<126]) + Array(shown[136...])
        #expect(outside == expected.prefix(126) + expected.suffix(20))

        // Copied packets are the sources' bytes, at their output frames.
        let outputPackets = try Self.packets(of: output)
        #expect(outputPackets.count == 156)
        let byFrame = Dictionary(uniqueKeysWithValues: outputPackets.map { ($0.frame(rate: 30), $0.hash) })
        for (frame, source, packets) in copied {
            let hash = packets.first { $0.frame(rate: 30) == source }?.hash
            #expect(hash != nil && byFrame[frame] == hash, "output frame \(frame) is not the copied source packet")
        }
        let allSource = Set(sourceA.map(\.hash)).union(sourceB.map(\.hash))
        #expect(outputPackets.filter { allSource.contains($0.hash) }.count == copied.count)

        // Decoding timestamps strictly increase and never pass presentation (Matroska stores none: ffprobe shows
        // libavformat's guess from the declared reorder depth, N/A for the first packet as for any B-frame stream);
        // every frame has its own presentation time.
        let dts = outputPackets.compactMap(\.dts)
        if container == "mp4" { #expect(dts.count == outputPackets.count) }
        #expect(zip(dts, dts.dropFirst()).allSatisfy { $0 < $1 })
        #expect(outputPackets.allSatisfy { packet in packet.dts.map { $0 <= packet.pts } ?? true })
        #expect(Set(outputPackets.map { $0.frame(rate: 30) }) == Set(0..<156))

        // FFmpeg decodes it without a word, and without the warnings of a badly joined stream.
        let decode = try run("ffmpeg", ["-v", "error", "-xerror", "-i", output.path, "-f", "null", "-"])
        #expect(decode.status == 0)
        #expect(decode.stderrText.isEmpty, "\(decode.stderrText)")
        let warnings = try run("ffmpeg", ["-v", "warning", "-i", output.path, "-f", "null", "-"]).stderrText
        for symptom in ["Increasing reorder buffer", "non-existing PPS", "Non-monotonic DTS", "decode_slice"] {
            #expect(!warnings.contains(symptom), "\(warnings)")
        }

        // The audio is the timeline's, sample for sample in count (PCM: exactly; AAC: up to its last frame's padding).
        let samples = try readAudioSamplesS16(of: output, sampleRate: 48000, channels: 2)
        let timelineSamples = 156 * 1600
        if container == "mkv" {
            #expect(samples[0].count == timelineSamples)
            // Every clip outside the dissolve sounds exactly its source from its in point: no lag at any cut.
            // (output samples, first source sample): a from 0.5 s, b from frame 13, a from frame 96, b from frame 70.
            let stretches: [(Range<Int>, Int)] = [
                (0..<96_000, 24_000), (96_000..<160_000, 13 * 1600), (160_000..<201_600, 96 * 1600),
                (217_600..<249_600, 70 * 1600),
            ]
            Self.expectCounter(samples[0], stretches: stretches)
        } else {
            #expect(samples[0].count >= timelineSamples && samples[0].count < timelineSamples + 1024)
        }
    }

    /// Each stretch of output samples `(range, first)` sounds the counter signal from its source sample `first`:
    /// sample-exact audio, with no lag at any cut.
    static func expectCounter(_ channel: [Int16], stretches: [(Range<Int>, Int)],
                              sourceLocation: SourceLocation = #_sourceLocation) {
        for (outputSamples, first) in stretches {
            let mismatches = outputSamples.filter {
                channel[$0] != AudioSignal.counter.expectedS16($0 - outputSamples.lowerBound + first)
            }
            #expect(mismatches.isEmpty, "first mismatch at sample \(mismatches.first ?? -1)",
                    sourceLocation: sourceLocation)
        }
    }

    /// An open-GOP source has an IDR picture only at its start: its later I-frames are recovery points whose leading
    /// pictures refer to the GOP before, so nothing after a cut can be copied, and every frame is still right.
    @Test func openGOPSourceIsReencodedExactly() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try IndexedMedia.makeVideo(at: folder.file("a.mp4"), frameCount: 90, gop: 12, bFrames: 3,
                                   extraArgs: Self.tags + ["-x264-params", "open-gop=1"])
        let keyframes = try Self.packets(of: folder.file("a.mp4")).filter(\.isKey).count
        #expect(keyframes > 1)
        let project = """
        { "reel": 1, "output": { "path": "out.mp4", "frameRate": 30, "audio": false },
          "assets": { "a": { "path": "a.mp4" } }, "timeline": { "clips": [ { "asset": "a", "in": "13f", "out": "80f" } ] } }
        """
        try project.write(to: folder.file("project.json"), atomically: true, encoding: .utf8)
        let reel = try builtExecutable(named: "reel")
        let result = try run(reel.path, ["render", folder.file("project.json").path, "--smart"])
        #expect(result.status == 0, "stderr: \(result.stderrText)")
        #expect(result.stderrText.contains("smart render: nothing copied, every frame re-encoded "
            + "(no whole GOP of 'a' lies between the cuts)"), "\(result.stderrText)")
        let shown = try IndexedMedia.readFrameIndices(of: folder.file("out.mp4"), width: 64, height: 36)
        #expect(shown == Array(13..<80))
    }

    /// No copied picture hides a title: the frames a title's time range holds are re-encoded with it drawn.
    @Test func titlesAreNeverCopiedOver() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try IndexedMedia.makeVideo(at: folder.file("a.mov"), frameCount: 150, gop: 12, bFrames: 2, extraArgs: Self.tags)
        let project = """
        { "reel": 1, "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30, "audio": false },
          "assets": { "a": { "path": "a.mov" } },
          "timeline": { "clips": [ { "asset": "a", "in": 0, "out": 3 } ],
                        "titles": [ { "text": "Hi", "start": 1, "duration": 1, "size": 20 } ] } }
        """
        try project.write(to: folder.file("project.json"), atomically: true, encoding: .utf8)
        let reel = try builtExecutable(named: "reel")
        let result = try run(reel.path, ["render", folder.file("project.json").path, "--smart", "--progress", "none"])
        #expect(result.status == 0, "stderr: \(result.stderrText)")
        // The title holds 30–59: GOPs 0–23 and 60–83 are copied whole, and the GOPs at 24 and 84 up to a cut.
        let source = try Self.packets(of: folder.file("a.mov"))
        let before = Self.copiedFrames(source, rate: 30, stretch: 0..<30)
        let after = Self.copiedFrames(source, rate: 30, stretch: 60..<90)
        #expect(before.count > 24 && after.count > 24, "no GOP was copied up to a cut")
        #expect(result.stderrText.contains("smart render: copied \(before.count + after.count) of 90 frames"), "\(result.stderrText)")
        #expect(result.stderrText.contains("re-encoded frames \(before.count)–59: 'a' is left mid-GOP, and the pictures "
            + "before the cut refer to ones after it; a title ($.timeline.titles[0]) is drawn over it"), "\(result.stderrText)")
        let shown = try IndexedMedia.readFrameIndices(of: folder.file("out.mp4"), width: 64, height: 36)
        #expect(shown == Array(0..<90))
        let packets = try Self.packets(of: folder.file("out.mp4"))
        // The clip starts at source frame 0, so each copied packet sits at its own frame number.
        let output = Dictionary(uniqueKeysWithValues: packets.map { ($0.frame(rate: 30), $0.hash) })
        let original = Dictionary(uniqueKeysWithValues: source.map { ($0.frame(rate: 30), $0.hash) })
        for frame in before + after {
            #expect(original[frame] != nil && output[frame] == original[frame], "frame \(frame) is not the source's packet")
        }
        let decode = try run("ffmpeg", ["-v", "error", "-xerror", "-i", folder.file("out.mp4").path, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderrText.isEmpty, "\(decode.stderrText)")
    }

    /// A clip of one IDR picture followed by a clip from that same picture: the lone picture is re-encoded, since two
    /// copies of one IDR picture in a row would repeat its `idr_pic_id`, which H.264 forbids for consecutive IDR
    /// access units (7.4.3; FFmpeg copes inside MP4, where packets mark the pictures, but a stream need not).
    @Test func repeatedIDRPictureIsNotCopiedTwiceInARow() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try IndexedMedia.makeVideo(at: folder.file("a.mp4"), frameCount: 60, gop: 12, bFrames: 2, extraArgs: Self.tags)
        let project = """
        { "reel": 1, "output": { "path": "out.mp4", "size": [64, 36], "frameRate": 30, "audio": false },
          "assets": { "a": { "path": "a.mp4" } },
          "timeline": { "clips": [ { "asset": "a", "in": "24f", "duration": "1f" },
                                   { "asset": "a", "in": "24f", "duration": "24f" } ] } }
        """
        try project.write(to: folder.file("project.json"), atomically: true, encoding: .utf8)
        let reel = try builtExecutable(named: "reel")
        let result = try run(reel.path, ["render", folder.file("project.json").path, "--smart", "--progress", "none"])
        #expect(result.status == 0, "stderr: \(result.stderrText)")
        #expect(result.stderrText.contains("smart render: copied 24 of 25 frames"), "\(result.stderrText)")
        let shown = try IndexedMedia.readFrameIndices(of: folder.file("out.mp4"), width: 64, height: 36)
        #expect(shown == [24] + Array(24..<48))
        let decode = try run("ffmpeg", ["-v", "error", "-xerror", "-i", folder.file("out.mp4").path, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderrText.isEmpty, "\(decode.stderrText)")
    }

    /// Sources that cannot be copied fall back to a full render and say why.
    @Test func untaggedSDSourceFallsBack() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try IndexedMedia.makeVideo(at: folder.file("a.mp4"), frameCount: 60, gop: 12, bFrames: 2)
        let project = """
        { "reel": 1, "output": { "path": "out.mp4", "frameRate": 30, "video": { "smart": true }, "audio": false },
          "assets": { "a": { "path": "a.mp4" } }, "timeline": { "clips": [ { "asset": "a", "in": "5f" } ] } }
        """
        try project.write(to: folder.file("project.json"), atomically: true, encoding: .utf8)
        let reel = try builtExecutable(named: "reel")
        let result = try run(reel.path, ["render", folder.file("project.json").path, "--progress", "none"])
        #expect(result.status == 0, "stderr: \(result.stderrText)")
        #expect(result.stderrText.contains(
            "smart render: nothing copied, every frame re-encoded ('a' is untagged below 720 lines (read as BT.601))"),
            "\(result.stderrText)")
        let shown = try IndexedMedia.readFrameIndices(of: folder.file("out.mp4"), width: 64, height: 36)
        #expect(shown == Array(5..<60))
    }
}
