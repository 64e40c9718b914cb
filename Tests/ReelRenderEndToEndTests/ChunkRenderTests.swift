import Foundation
import ReelTestSupport
import Testing

/// `reel plan --chunks`, `reel render --chunk K/N` and `reel join`, checked from outside.
@Suite struct ChunkRenderTests {
    static func project(output: String, inPoint: String = "0.5") -> String {
        """
        {
          "reel": 1,
          "output": { "path": "\(output)", "size": [64, 36], "frameRate": 30, "audio": { "codec": "pcm" } },
          "assets": { "a": { "path": "a.mov" }, "b": { "path": "b.mov" } },
          "timeline": { "clips": [
            { "asset": "a", "in": \(inPoint), "out": 2.5 },
            { "asset": "b", "in": "13f", "duration": "40f", "transition": { "type": "dissolve", "duration": "10f" } },
            { "asset": "a", "in": "96f", "duration": "36f" }
          ] }
        }
        """
    }

    @Test func chunksJoinIntoWhatOneProcessRenders() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let pcm = AudioSpec.counter(sampleRate: 48000, channels: 2, codec: "pcm_s16le")
        try IndexedMedia.makeVideo(at: folder.file("a.mov"), frameCount: 150, gop: 12, bFrames: 2, audio: pcm)
        try IndexedMedia.makeVideo(at: folder.file("b.mov"), frameCount: 120, gop: 12, bFrames: 3, audio: pcm)
        try Self.project(output: "final.mkv").write(to: folder.file("project.json"), atomically: true, encoding: .utf8)
        let reel = try builtExecutable(named: "reel").path
        let project = folder.file("project.json").path

        // 60 + 40 − 10 + 36 = 126 frames in 4 balanced chunks.
        let plan = try run(reel, ["plan", project, "--chunks", "4", "--json"])
        #expect(plan.status == 0, "\(plan.stderrText)")
        let planned = try JSONSerialization.jsonObject(with: plan.stdout) as? [String: Any]
        let chunks = (planned?["chunks"] as? [[String: Any]])?.map { ($0["start"] as? Int ?? -1, $0["end"] as? Int ?? -1) }
        #expect(planned?["frames"] as? Int == 126)
        #expect(chunks.map { $0.map(\.0) } == [0, 31, 63, 94])
        #expect(chunks.map { $0.map(\.1) } == [31, 63, 94, 126])

        for k in 0..<4 {
            let part = try run(reel, ["render", project, "--chunk", "\(k)/4", "-o", folder.file("part-\(k).mkv").path, "-q"])
            #expect(part.status == 0, "\(part.stderrText)")
        }
        // A chunk rendered again is the same bytes.
        let again = try run(reel, ["render", project, "--chunk", "2/4", "-o", folder.file("again.mkv").path, "-q"])
        #expect(again.status == 0)
        #expect(try Data(contentsOf: folder.file("again.mkv")) == Data(contentsOf: folder.file("part-2.mkv")))
        // Each part starts with a keyframe and holds its chunk's frames only.
        let part1 = try IndexedMedia.readFrameIndices(of: folder.file("part-1.mkv"), width: 64, height: 36)
        #expect(part1.count == 32)
        for k in 0..<4 {
            #expect(try SmartRenderTests.packets(of: folder.file("part-\(k).mkv")).first?.isKey == true)
        }

        let parts = [3, 1, 0, 2].map { folder.file("part-\($0).mkv").path }
        let joined = try run(reel, ["join", project] + parts + ["-q"])
        #expect(joined.status == 0, "\(joined.stderrText)")
        let single = try run(reel, ["render", project, "-o", folder.file("single.mkv").path, "-q"])
        #expect(single.status == 0)

        let output = folder.file("final.mkv")
        let shown = try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36)
        let reference = try IndexedMedia.readFrameIndices(of: folder.file("single.mkv"), width: 64, height: 36)
        #expect(shown.count == 126)
        // Outside the dissolve (frames 50…59) every frame is the exact source frame the one-process render shows.
        #expect(Array(shown[0..<50]) + Array(shown[60...]) == Array(reference[0..<50]) + Array(reference[60...]))
        #expect(Array(shown[0..<50]) == Array(15..<65))

        let decode = try run("ffmpeg", ["-v", "error", "-xerror", "-i", output.path, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderrText.isEmpty, "\(decode.stderrText)")
        let packets = try SmartRenderTests.packets(of: output)
        #expect(Set(packets.map { $0.frame(rate: 30) }) == Set(0..<126))
        let dts = packets.compactMap(\.dts)
        #expect(zip(dts, dts.dropFirst()).allSatisfy { $0 < $1 })
        let samples = try readAudioSamplesS16(of: output, sampleRate: 48000, channels: 2)
        #expect(samples[0].count == 126 * 1600)
        let mismatches = (0..<50 * 1600).filter { samples[0][$0] != AudioSignal.counter.expectedS16($0 + 24000) }
        #expect(mismatches.isEmpty, "first mismatch at \(mismatches.first ?? -1)")
    }

    /// An audio stream's packets as `ffprobe` reads them: timestamps and durations in the stream's time base, and
    /// the MD5 of each payload.
    static func audioPackets(of url: URL) throws -> [(pts: Int, duration: Int, hash: String)] {
        let data = try runChecked("ffprobe", [
            "-v", "error", "-select_streams", "a:0", "-show_packets", "-show_data_hash", "md5", "-of", "json", url.path,
        ])
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let list = root["packets"] as? [[String: Any]] else { throw SupportError("unexpected ffprobe output") }
        return list.map { ($0["pts"] as? Int ?? Int.min, $0["duration"] as? Int ?? -1, $0["data_hash"] as? String ?? "") }
    }

    /// The decoded audio of `url` as ffmpeg writes it (16-bit interleaved), to compare bit for bit.
    static func decodedAudio(of url: URL) throws -> Data {
        try runChecked("ffmpeg", ["-v", "error", "-i", url.path, "-map", "0:a", "-f", "s16le", "-"])
    }

    /// `reel render --chunk audio` and a join that copies its packets: for MP4, MOV and Matroska the joined file's
    /// audio stream is the one a one-process render writes — same packets (payloads, timestamps, durations, so the
    /// same AAC priming and edit list), same header, same decoded samples — and its payloads are the audio part's.
    @Test(arguments: ["mp4", "mov", "mkv"])
    func audioPartJoinsIntoWhatOneProcessWrites(container: String) throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let pcm = AudioSpec.counter(sampleRate: 48000, channels: 2, codec: "pcm_s16le")
        try IndexedMedia.makeVideo(at: folder.file("a.mov"), frameCount: 150, gop: 12, bFrames: 2, audio: pcm)
        try IndexedMedia.makeVideo(at: folder.file("b.mov"), frameCount: 120, gop: 12, bFrames: 2, audio: pcm)
        // 127 frames at 30 fps: 203 200 samples, not a whole number of AAC frames nor of milliseconds.
        try Self.project(output: "final.\(container)").replacingOccurrences(of: "\"pcm\"", with: "\"aac\"")
            .replacingOccurrences(of: "\"36f\" }", with: "\"37f\" }")
            .write(to: folder.file("p.json"), atomically: true, encoding: .utf8)
        let reel = try builtExecutable(named: "reel").path
        let project = folder.file("p.json").path
        for k in 0..<3 {
            let part = try run(reel, ["render", project, "--chunk", "\(k)/3", "-o", folder.file("part-\(k).mkv").path, "-q"])
            #expect(part.status == 0, "\(part.stderrText)")
        }
        let sound = folder.file("sound.mov")
        let audio = try run(reel, ["render", project, "--chunk", "audio", "-o", sound.path, "-q"])
        #expect(audio.status == 0, "\(audio.stderrText)")
        #expect(try probe(sound).streams.map(\.codecType) == ["audio"])

        let parts = [2, 0, 1].map { folder.file("part-\($0).mkv").path }
        let joined = try run(reel, ["join", project, sound.path] + parts + ["-q"])
        #expect(joined.status == 0, "\(joined.stderrText)")
        let single = folder.file("single.\(container)")
        #expect(try run(reel, ["render", project, "-o", single.path, "-q"]).status == 0)
        let output = folder.file("final.\(container)")

        let reference = try Self.decodedAudio(of: single)
        #expect(reference.count >= 127 * 1600 * 4)
        #expect(try Self.decodedAudio(of: output) == reference)
        let written = try Self.audioPackets(of: output)
        let expected = try Self.audioPackets(of: single)
        #expect(written.map(\.pts) == expected.map(\.pts))
        #expect(written.map(\.duration) == expected.map(\.duration))
        #expect(written.map(\.hash) == expected.map(\.hash))
        #expect(written.map(\.hash) == (try Self.audioPackets(of: sound)).map(\.hash))
        // In 1/48000: the priming packet starts 1024 samples early; the audio part keeps every timestamp.
        if container != "mkv" {
            #expect(written.first?.pts == -1024)
            #expect(written.map(\.pts) == (try Self.audioPackets(of: sound)).map(\.pts))
        }
        let header = { (url: URL) throws -> [String] in
            let data = try runChecked("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_streams", url.path])
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        #expect(try header(output) == header(single))
        #expect(try IndexedMedia.readFrameIndices(of: output, width: 64, height: 36).count == 127)

        // The join copies and does not encode: another timeline's audio part (the same length), its tags rewritten
        // to this project's, puts that other sound in the file.
        guard container == "mp4" else { return }
        try Self.project(output: "other.mp4", inPoint: "0.6").replacingOccurrences(of: "\"pcm\"", with: "\"aac\"")
            .replacingOccurrences(of: "\"36f\" }", with: "\"37f\" }")
            .write(to: folder.file("q.json"), atomically: true, encoding: .utf8)
        let other = folder.file("other.mov")
        #expect(try run(reel, ["render", folder.file("q.json").path, "--chunk", "audio", "-o", other.path, "-q"]).status == 0)
        let fingerprint = String(decoding: try runChecked("ffprobe", [
            "-v", "error", "-show_entries", "format_tags=reel_fingerprint", "-of", "default=nw=1:nk=1", sound.path,
        ]), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let forged = folder.file("forged.mov")
        _ = try runChecked("ffmpeg", ["-v", "error", "-copyts", "-i", other.path, "-map", "0", "-c", "copy",
                                      "-map_metadata", "0", "-metadata", "reel_fingerprint=\(fingerprint)",
                                      "-movflags", "use_metadata_tags", "-movie_timescale", "48000", forged.path])
        let forgedJoin = try run(reel, ["join", project, forged.path] + parts + ["-o", folder.file("forged.mp4").path, "-q"])
        #expect(forgedJoin.status == 0, "\(forgedJoin.stderrText)")
        let copied = try Self.audioPackets(of: folder.file("forged.mp4")).map(\.hash)
        #expect(copied == (try Self.audioPackets(of: other)).map(\.hash))
        #expect(copied != expected.map(\.hash))
    }

    /// examples/render-chunks.sh: GNU parallel renders the chunks and the audio part into a folder named after the
    /// plan's fingerprint; a failed chunk is rendered alone by the next run and gives the same bytes; the join shows
    /// what a one-process render shows and has its sound, copied from the audio part. A missing output folder is
    /// created first.
    @Test(.enabled(if: (try? run("parallel", ["--version"]))?.status == 0, "GNU parallel is not installed (make deps)"))
    func gnuParallelRecipeResumesAFailedChunk() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try IndexedMedia.makeVideo(at: folder.file("a.mov"), frameCount: 150, gop: 12, bFrames: 2)
        try IndexedMedia.makeVideo(at: folder.file("b.mov"), frameCount: 120, gop: 12, bFrames: 2)
        try Self.project(output: "final.mp4").replacingOccurrences(of: "\"pcm\"", with: "\"aac\"")
            .write(to: folder.file("p.json"), atomically: true, encoding: .utf8)
        let reel = try builtExecutable(named: "reel").path
        let script = Self.example("render-chunks.sh")
        // Chunk 2 fails the first time: a stand-in for reel fails once for it, then hands over to reel.
        let failOnce = folder.file("fail-once.sh")
        try """
            #!/bin/sh
            case "$*" in *"--chunk 2/4"*) [ -e "\(folder.file("failed").path)" ] || { touch "\(folder.file("failed").path)"; exit 70; } ;; esac
            exec "\(reel)" "$@"
            """.write(to: failOnce, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: failOnce.path)
        let environment = ["REEL": failOnce.path]
        let final = folder.file("out/final.mp4")
        let arguments = [script, folder.file("p.json").path, "4", final.path]

        let failed = try run("bash", arguments, environment: environment)
        #expect(failed.status != 0)
        #expect(failed.stderrText.contains("run the same command again"), "\(failed.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: final.path))
        let parts = try Self.partsFolder(in: folder.file("out"))
        let firstParts = try [0, 1, 3].map { try Data(contentsOf: parts.appendingPathComponent("part-\($0).mkv")) }

        let resumed = try run("bash", arguments, environment: environment)
        #expect(resumed.status == 0, "\(resumed.stderrText)")
        // Only the missing part was rendered the second time.
        let log = try String(contentsOf: parts.appendingPathComponent("chunks.log"), encoding: .utf8)
        let jobs = log.split(separator: "\n").dropFirst()
        #expect(jobs.count == 1 && jobs.first?.contains("--chunk 2/4") == true, "\(log)")
        #expect(try [0, 1, 3].map { try Data(contentsOf: parts.appendingPathComponent("part-\($0).mkv")) } == firstParts)
        let fresh = try run(reel, ["render", folder.file("p.json").path, "--chunk", "2/4", "-o",
                                   folder.file("fresh-2.mkv").path, "-q"])
        #expect(fresh.status == 0)
        #expect(try Data(contentsOf: folder.file("fresh-2.mkv")) == Data(contentsOf: parts.appendingPathComponent("part-2.mkv")))

        let single = try run(reel, ["render", folder.file("p.json").path, "-o", folder.file("single.mp4").path, "-q"])
        #expect(single.status == 0)
        let shown = try IndexedMedia.readFrameIndices(of: final, width: 64, height: 36)
        let reference = try IndexedMedia.readFrameIndices(of: folder.file("single.mp4"), width: 64, height: 36)
        #expect(shown.count == 126)
        #expect(Array(shown[0..<50]) + Array(shown[60...]) == Array(reference[0..<50]) + Array(reference[60...]))
        let decode = try run("ffmpeg", ["-v", "error", "-xerror", "-i", final.path, "-f", "null", "-"])
        #expect(decode.status == 0 && decode.stderrText.isEmpty, "\(decode.stderrText)")
        let packets = try SmartRenderTests.packets(of: final)
        let dts = packets.compactMap(\.dts)
        #expect(dts.count == 126 && zip(dts, dts.dropFirst()).allSatisfy { $0 < $1 })
        #expect(packets.allSatisfy { packet in packet.dts.map { $0 <= packet.pts } ?? false })
        // The audio was copied from the audio part: the one-process render's packets and samples.
        let sound = try Self.soundPart(in: folder.file("out"))
        #expect(try Self.audioPackets(of: final).map(\.hash) == Self.audioPackets(of: sound).map(\.hash))
        #expect(try Self.decodedAudio(of: final) == Self.decodedAudio(of: folder.file("single.mp4")))
    }

    /// examples/render-chunks.sh run again: without an edit nothing is rendered and the join is made again; after an
    /// edit the plan's fingerprint changes and every part of the new plan is rendered (issue 19.3: a job log of the
    /// old plan must not make the new one look done).
    @Test(.enabled(if: (try? run("parallel", ["--version"]))?.status == 0, "GNU parallel is not installed (make deps)"))
    func gnuParallelRecipeNoticesAnEdit() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try IndexedMedia.makeVideo(at: folder.file("a.mov"), frameCount: 150, gop: 12, bFrames: 2)
        try IndexedMedia.makeVideo(at: folder.file("b.mov"), frameCount: 120, gop: 12, bFrames: 2)
        let project = folder.file("p.json")
        try Self.project(output: "final.mkv").write(to: project, atomically: true, encoding: .utf8)
        let reel = try builtExecutable(named: "reel").path
        let arguments = [Self.example("render-chunks.sh"), project.path, "3", folder.file("final.mkv").path]
        let first = try run("bash", arguments, environment: ["REEL": reel])
        #expect(first.status == 0, "\(first.stderrText)")
        let firstParts = try Self.partsFolder(in: folder.url)
        let again = try run("bash", arguments, environment: ["REEL": reel])
        #expect(again.status == 0, "\(again.stderrText)")
        let log = try String(contentsOf: firstParts.appendingPathComponent("chunks.log"), encoding: .utf8)
        #expect(log.split(separator: "\n").count == 5, "\(log)")   // the first run's header, 3 chunks, audio

        // The edit: clip a starts 0.1 s later, so the timeline loses 3 frames.
        try Self.project(output: "final.mkv", inPoint: "0.6").write(to: project, atomically: true, encoding: .utf8)
        let edited = try run("bash", arguments, environment: ["REEL": reel])
        #expect(edited.status == 0, "\(edited.stderrText)")
        let shown = try IndexedMedia.readFrameIndices(of: folder.file("final.mkv"), width: 64, height: 36)
        #expect(shown.count == 123)
        #expect(shown.first == 18)
        let folders = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix("reel-parts-") }
        #expect(folders.count == 2, "\(folders)")
    }

    /// The one folder of parts the recipe made under `folder`.
    static func partsFolder(in folder: URL) throws -> URL {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("reel-parts-") }
        guard names.count == 1, let name = names.first else { throw ChunkTestError("parts folders: \(names)") }
        return folder.appendingPathComponent(name)
    }

    /// The one audio part the recipe made under `folder`.
    static func soundPart(in folder: URL) throws -> URL {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("reel-sound-") }
        guard names.count == 1, let name = names.first else { throw ChunkTestError("audio parts: \(names)") }
        return folder.appendingPathComponent(name)
    }

    /// A script of examples/.
    static func example(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples/" + name).path
    }

    struct ChunkTestError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// examples/slurm/render-chunks.sh, run against a stand-in `sbatch` that runs each `--wrap` command at once
    /// (every `--array` index with its `SLURM_ARRAY_TASK_ID`) and records its options: the array covers every
    /// chunk, the join depends on the array job, and the result shows what a one-process render shows.
    @Test func slurmRecipeRendersEveryChunkThenJoins() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try IndexedMedia.makeVideo(at: folder.file("a.mov"), frameCount: 150, gop: 12, bFrames: 2)
        try IndexedMedia.makeVideo(at: folder.file("b.mov"), frameCount: 120, gop: 12, bFrames: 2)
        try Self.project(output: "final.mkv").write(to: folder.file("p.json"), atomically: true, encoding: .utf8)
        let bin = folder.file("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: false)
        let sbatch = bin.appendingPathComponent("sbatch")
        try """
            #!/bin/sh
            # Stand-in for Slurm's sbatch: records its options, runs --wrap now, prints a job id.
            echo "$*" >> "\(folder.file("sbatch.log").path)"
            array="" wrap=""
            while [ $# -gt 0 ]; do
              case "$1" in --array=*) array="${1#--array=}" ;; --wrap) shift; wrap="$1" ;; esac
              shift
            done
            if [ -n "$array" ]; then
              for i in $(seq "${array%-*}" "${array#*-}"); do SLURM_ARRAY_TASK_ID=$i sh -c "$wrap" || exit 1; done
            else
              sh -c "$wrap" || exit 1
            fi
            echo 4242
            """.write(to: sbatch, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: sbatch.path)
        let reel = try builtExecutable(named: "reel").path
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples/slurm/render-chunks.sh").path
        let path = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let result = try run("bash", [script, folder.file("p.json").path, "3", folder.file("out/final.mkv").path],
                             environment: ["REEL": reel, "PATH": path])
        #expect(result.status == 0, "\(result.stderrText)")
        let submitted = try String(contentsOf: folder.file("sbatch.log"), encoding: .utf8).split(separator: "\n")
        #expect(submitted.count == 2)
        #expect(submitted.first?.contains("--array=0-3") == true)   // 3 chunks and the audio part
        #expect(submitted.last?.contains("--dependency=afterok:4242") == true)
        // A failed array cancels the join rather than leaving it pending forever.
        #expect(submitted.last?.contains("--kill-on-invalid-dep=yes") == true)
        let single = try run(reel, ["render", folder.file("p.json").path, "-o", folder.file("single.mkv").path, "-q"])
        #expect(single.status == 0)
        let shown = try IndexedMedia.readFrameIndices(of: folder.file("out/final.mkv"), width: 64, height: 36)
        let reference = try IndexedMedia.readFrameIndices(of: folder.file("single.mkv"), width: 64, height: 36)
        #expect(shown.count == 126)
        #expect(Array(shown[0..<50]) + Array(shown[60...]) == Array(reference[0..<50]) + Array(reference[60...]))
        #expect((try? Self.soundPart(in: folder.file("out"))) != nil)
        #expect(try Self.decodedAudio(of: folder.file("out/final.mkv")) == Self.decodedAudio(of: folder.file("single.mkv")))
    }

    @Test
    func partsOfAnotherPlanOrProjectAreRefused() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        try IndexedMedia.makeVideo(at: folder.file("a.mov"), frameCount: 150, gop: 12, bFrames: 2)
        try IndexedMedia.makeVideo(at: folder.file("b.mov"), frameCount: 120, gop: 12, bFrames: 2)
        try Self.project(output: "final.mkv").write(to: folder.file("p.json"), atomically: true, encoding: .utf8)
        try Self.project(output: "final.mkv", inPoint: "0.6").write(to: folder.file("q.json"), atomically: true, encoding: .utf8)
        let reel = try builtExecutable(named: "reel").path
        for k in 0..<2 {
            _ = try run(reel, ["render", folder.file("p.json").path, "--chunk", "\(k)/2", "-o", folder.file("p\(k).mkv").path, "-q"])
            _ = try run(reel, ["render", folder.file("q.json").path, "--chunk", "\(k)/2", "-o", folder.file("q\(k).mkv").path, "-q"])
        }
        let mixed = try run(reel, ["join", folder.file("p.json").path, folder.file("p0.mkv").path, folder.file("q1.mkv").path])
        #expect(mixed.status == 65)
        #expect(mixed.stderrText.contains("q1.mkv belongs to another project or plan"), "\(mixed.stderrText)")
        // The message names what differs: q's timeline is 3 frames shorter.
        #expect(mixed.stderrText.contains("frames is \"123\" in the part but \"126\" now"), "\(mixed.stderrText)")
        // An output the parts cannot make says so, not that the parts are stale (issue 19.3).
        let parts = [folder.file("p0.mkv").path, folder.file("p1.mkv").path]
        let webm = try run(reel, ["join", folder.file("p.json").path] + parts + ["-o", folder.file("x.webm").path])
        #expect(webm.status == 65)
        // This project's PCM audio is the first thing a .webm cannot hold, and the message says so.
        #expect(webm.stderrText.contains("webm cannot hold pcm audio"), "\(webm.stderrText)")
        #expect(!webm.stderrText.contains("another project"))
        #expect(!FileManager.default.fileExists(atPath: folder.file("x.webm").path))
        let nut = try run(reel, ["join", folder.file("p.json").path] + parts + ["-o", folder.file("x.nut").path])
        #expect(nut.status == 65)
        #expect(nut.stderrText.contains("a join cannot write a .nut file: it copies the parts' packets unchanged"), "\(nut.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("x.nut").path))
        // The join never writes over one of its parts, even with --force.
        let overPart = try run(reel, ["join", folder.file("p.json").path] + parts + ["-o", parts[0], "--force"])
        #expect(overPart.status == 73, "\(overPart.stderrText)")
        let missing = try run(reel, ["join", folder.file("p.json").path, folder.file("p1.mkv").path])
        #expect(missing.status == 65)
        #expect(missing.stderrText.contains("missing chunk 0"), "\(missing.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("final.mkv").path))
        // Audio parts: of another project, two of them, alone, or with other encoder settings.
        let p = folder.file("p.json").path
        #expect(try run(reel, ["render", p, "--chunk", "audio", "-o", folder.file("p.mov").path, "-q"]).status == 0)
        #expect(try run(reel, ["render", folder.file("q.json").path, "--chunk", "audio", "-o", folder.file("q.mov").path,
                               "-q"]).status == 0)
        try Self.project(output: "final.mkv").replacingOccurrences(of: "\"pcm\"", with: "\"pcm\", \"sampleRate\": 44100")
            .write(to: folder.file("rate.json"), atomically: true, encoding: .utf8)
        #expect(try run(reel, ["render", folder.file("rate.json").path, "--chunk", "audio", "-o",
                               folder.file("rate.mov").path, "-q"]).status == 0)
        let videoParts = [folder.file("p0.mkv").path, folder.file("p1.mkv").path]
        let otherAudio = try run(reel, ["join", p] + videoParts + [folder.file("q.mov").path])
        #expect(otherAudio.status == 65)
        #expect(otherAudio.stderrText.contains("q.mov is the audio of another project"), "\(otherAudio.stderrText)")
        let twoAudio = try run(reel, ["join", p] + videoParts + [folder.file("p.mov").path, folder.file("p.mov").path])
        #expect(twoAudio.status == 65)
        #expect(twoAudio.stderrText.contains("two audio parts"), "\(twoAudio.stderrText)")
        let audioAlone = try run(reel, ["join", p, folder.file("p.mov").path])
        #expect(audioAlone.status == 65)
        #expect(audioAlone.stderrText.contains("p.mov is the audio part; name the video parts"), "\(audioAlone.stderrText)")
        let otherSettings = try run(reel, ["join", p] + videoParts + [folder.file("rate.mov").path])
        #expect(otherSettings.status == 65)
        #expect(otherSettings.stderrText.contains("rate.mov holds pcm 44100 Hz 2 ch - audio, but the project's output is "
                                                  + "pcm 48000 Hz 2 ch -"), "\(otherSettings.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("final.mkv").path))
        // An audio part where a video part belongs, and the reverse.
        let audioAsChunk = try run(reel, ["render", p, "--chunk", "audio", "-o", folder.file("a.mkv").path])
        #expect(audioAsChunk.status == 64)
        #expect(audioAsChunk.stderrText.contains("error: --chunk audio: the audio part is written as a QuickTime file; "
                                                 + "give it a .mov name (-o sound.mov)"), "\(audioAsChunk.stderrText)")
        let smartAudio = try run(reel, ["render", p, "--chunk", "audio", "--smart", "-o", folder.file("s.mov").path])
        #expect(smartAudio.status == 64)
        try Self.project(output: "final.mkv").replacingOccurrences(of: "{ \"codec\": \"pcm\" }", with: "false")
            .write(to: folder.file("silent.json"), atomically: true, encoding: .utf8)
        let silent = try run(reel, ["render", folder.file("silent.json").path, "--chunk", "audio", "-o",
                                    folder.file("silent.mov").path])
        #expect(silent.status == 64)
        #expect(silent.stderrText.contains("the project writes no audio"), "\(silent.stderrText)")
        for name in ["a.mkv", "s.mov", "silent.mov"] {
            #expect(!FileManager.default.fileExists(atPath: folder.file(name).path))
        }

        let badChunk = try run(reel, ["render", folder.file("p.json").path, "--chunk", "2/2", "-o", folder.file("x.mkv").path])
        #expect(badChunk.status == 64)
        let notMKV = try run(reel, ["render", folder.file("p.json").path, "--chunk", "0/2", "-o", folder.file("x.mov").path])
        #expect(notMKV.status == 64)
        #expect(notMKV.stderrText.contains("error: --chunk 0/2: a part is written as a Matroska file; give it a .mkv "
                                           + "name (-o part-0.mkv)"), "\(notMKV.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("x.mov").path))
    }
}
