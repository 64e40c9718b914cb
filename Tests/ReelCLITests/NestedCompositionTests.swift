import Foundation
import ReelTestSupport
import Testing

/// Issue 38 point 1 through the built binary: a composition used as a clip or an overlay shows, frame for frame, what
/// rendering the child alone shows at the mapped time (lossless outputs, so the decoded pictures are the rendered
/// ones: framemd5 equal), and its sound arrives sample-exact (a PCM sawtooth), for 20 overlays heard in turn too; `reel compile` keeps the child as a
/// composition and its explicit form renders the same; cycles, nesting deeper than 16, a child's missing media and a
/// child that does not read stop with the right exit code, the child's file and JSON path, and nothing written.
@Suite struct NestedCompositionTests {
    let folder: TemporaryDirectory
    let reel: URL

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-nested")
        reel = try builtExecutable(named: "reel")
        try FileManager.default.createDirectory(at: folder.file("child"), withIntermediateDirectories: true)
        // The child's media, in the child's own folder: testsrc 160×120 at 25 fps for 4 s, lossless, with a sawtooth
        // whose sample k is (k mod 4000) / 4000 − 0.5 (so an offset of a sample is seen), 48 kHz stereo PCM.
        _ = try runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=s=160x120:r=25:d=4,format=yuv420p",
                                      "-f", "lavfi", "-i", "aevalsrc='mod(n,4000)/4000-0.5':s=48000:c=stereo:d=4",
                                      "-c:v", "libx264", "-crf", "0", "-g", "25", "-bf", "0", "-c:a", "pcm_s16le",
                                      folder.file("child/src.mkv").path])
        try write("child/card.json", """
            {"reel": 1, "output": {"size": [160, 120], "frameRate": 25, "video": {"crf": 0}, "audio": {"codec": "pcm"}},
             "assets": {"src": {"path": "src.mkv"}},
             "timeline": {"clips": [{"asset": "src"}],
                          "titles": [{"text": "CARD", "start": 0.5, "duration": 3, "position": [0.5, 0.3], "size": 24}]}}
            """)
    }

    func write(_ name: String, _ text: String) throws {
        try text.write(to: folder.file(name), atomically: true, encoding: .utf8)
    }

    /// `reel render name -o out` in the test folder.
    func render(_ name: String, _ out: String) throws -> ProcessResult {
        try run(reel.path, ["render", folder.file(name).path, "-o", folder.file(out).path, "--force", "--quiet"])
    }

    /// A parent project 160×120 at 25 fps, lossless, whose assets and timeline are given.
    func parent(assets: String = #""card": {"composition": "child/card.json"}"#, timeline: String) -> String {
        """
        {"reel": 1, "output": {"size": [160, 120], "frameRate": 25, "video": {"crf": 0}, "audio": {"codec": "pcm"}},
         "assets": {\(assets), "black": {"color": "#000000"}},
         "timeline": \(timeline)}
        """
    }

    /// The MD5 of each decoded picture of `file`'s video, in order.
    func pictureHashes(_ file: String) throws -> [String] {
        let data = try runChecked("ffmpeg", ["-v", "error", "-i", folder.file(file).path, "-map", "0:v", "-f", "framemd5", "-"])
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// The child rendered alone (once per test).
    func childAlone() throws -> (pictures: [String], samples: [[Float]]) {
        let result = try render("child/card.json", "alone.mkv")
        try #require(result.status == 0, "\(result.stderrText)")
        return (try pictureHashes("alone.mkv"), try readAudioSamples(of: folder.file("alone.mkv"), sampleRate: 48000, channels: 2))
    }

    @Test func aClipOfTheChildWithATrimAndSpeedTwoShowsTheChildsFramesAtTheMappedTimes() throws {
        let alone = try childAlone()
        #expect(alone.pictures.count == 100)
        // in 1, out 3 at speed 2: 1 s on the timeline, output frame k shows source time 1 + 2k/25, the child's frame 25 + 2k.
        try write("parent.json", parent(timeline: #"{"clips": [{"asset": "card", "in": 1, "out": 3, "speed": 2}]}"#))
        let result = try render("parent.json", "parent.mkv")
        #expect(result.status == 0, "\(result.stderrText)")
        let pictures = try pictureHashes("parent.mkv")
        #expect(pictures.count == 25)
        for (k, hash) in pictures.enumerated() {
            #expect(hash == alone.pictures[25 + 2 * k], "output frame \(k) is not the child's frame \(25 + 2 * k)")
        }
        // Not a picture repeated: the child's frames differ (the testsrc counter moves).
        #expect(Set(pictures).count == 25)
    }

    @Test func theChildsSoundArrivesSampleExactAfterABlackClip() throws {
        let alone = try childAlone()
        // 0.5 s of black, then the child from 1 s to 2.5 s: output sample 24000 + j is the child's sample 48000 + j.
        try write("parent.json", parent(timeline: #"""
            {"clips": [{"asset": "black", "duration": 0.5}, {"asset": "card", "in": 1, "out": 2.5}]}
            """#))
        let result = try render("parent.json", "parent.mkv")
        #expect(result.status == 0, "\(result.stderrText)")
        let samples = try readAudioSamples(of: folder.file("parent.mkv"), sampleRate: 48000, channels: 2)
        try #require(samples[0].count == 96000, "\(samples[0].count) samples")
        for c in 0..<2 {
            #expect(samples[c][0..<24000].allSatisfy { $0 == 0 }, "the black clip is silent")
            let mismatches = (0..<72000).filter { samples[c][24000 + $0] != alone.samples[c][48000 + $0] }
            #expect(mismatches.isEmpty, "channel \(c): \(mismatches.count) samples differ, first at \(mismatches.first ?? -1)")
        }
        // And the pictures: output frame 12 + k is the child's frame 25 + k.
        let pictures = try pictureHashes("parent.mkv")
        #expect(pictures.count == 50)
        for k in 0..<37 { #expect(pictures[13 + k] == alone.pictures[25 + k], "output frame \(13 + k)") }
    }

    @Test func anInlineCompositionAsAVideoOverlayShowsItsFramesFromItsStart() throws {
        let alone = try childAlone()
        // An entry of compositions showing the child file's clip again (compositions nest), as an overlay at 0.4 s over
        // black: output frame 10 + k is the child's frame k.
        try write("parent.json", parent(
            assets: #""card": {"composition": "child/card.json"}, "inline": {"composition": "wrapper"}"#,
            timeline: #"""
            {"clips": [{"asset": "black", "duration": 2}], "overlays": [{"video": "inline", "start": 0.4, "duration": 1.2}]}
            """#).replacingOccurrences(of: #""timeline":"#, with: #""compositions": {"wrapper": {"size": [160, 120], "frameRate": 25, "#
                                  + #""timeline": {"clips": [{"asset": "card"}]}}}, "timeline":"#))
        let result = try render("parent.json", "parent.mkv")
        #expect(result.status == 0, "\(result.stderrText)")
        let pictures = try pictureHashes("parent.mkv")
        #expect(pictures.count == 50)
        for k in 0..<30 { #expect(pictures[10 + k] == alone.pictures[k], "output frame \(10 + k)") }
        #expect(pictures[0] != alone.pictures[0], "before the overlay starts the canvas is black")
        // Its sound plays from the overlay's start.
        let samples = try readAudioSamples(of: folder.file("parent.mkv"), sampleRate: 48000, channels: 2)
        #expect(Array(samples[0][19200..<(19200 + 48000)]) == Array(alone.samples[0][0..<48000]))
    }

    @Test func compileKeepsTheCompositionAndItsExplicitFormRendersTheSame() throws {
        try write("parent.json", parent(timeline: #"{"clips": [{"asset": "card", "in": 1, "out": 3, "speed": 2}]}"#))
        #expect(try render("parent.json", "parent.mkv").status == 0)
        let compiled = try run(reel.path, ["compile", folder.file("parent.json").path])
        #expect(compiled.status == 0, "\(compiled.stderrText)")
        #expect(compiled.stdoutText.contains(#""composition": "\#(folder.file("child/card.json").path)""#), "\(compiled.stdoutText)")
        try write("explicit.json", compiled.stdoutText)
        let result = try render("explicit.json", "explicit.mkv")
        #expect(result.status == 0, "\(result.stderrText)")
        #expect(try pictureHashes("explicit.mkv") == pictureHashes("parent.mkv"))
    }

    @Test func cyclesAreRefusedWithNothingWritten() throws {
        // a.json uses b.json, which uses a.json.
        try write("a.json", parent(assets: #""b": {"composition": "b.json"}"#, timeline: #"{"clips": [{"asset": "b"}]}"#))
        try write("b.json", parent(assets: #""a": {"composition": "a.json"}"#, timeline: #"{"clips": [{"asset": "a"}]}"#))
        let result = try render("a.json", "out.mkv")
        #expect(result.status == 65, "\(result.stderrText)")
        #expect(result.stderrText.contains("b.json") && result.stderrText.contains("$.assets.a.composition"), "\(result.stderrText)")
        #expect(result.stderrText.contains("uses itself"), "\(result.stderrText)")
        // An entry of compositions that shows itself.
        try write("self.json", parent(assets: #""me": {"composition": "loop"}"#, timeline: #"{"clips": [{"asset": "me"}]}"#)
            .replacingOccurrences(of: #""timeline":"#, with: #""compositions": {"loop": {"size": [160, 120], "frameRate": 25, "#
                                  + #""timeline": {"clips": [{"asset": "me"}]}}}, "timeline":"#))
        let selfResult = try render("self.json", "out.mkv")
        #expect(selfResult.status == 65, "\(selfResult.stderrText)")
        #expect(selfResult.stderrText.contains("$.assets.me.composition") && selfResult.stderrText.contains("uses itself"),
                "\(selfResult.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.mkv").path))
    }

    @Test func nestingDeeperThanSixteenIsRefused() throws {
        // level0.json uses level1.json … uses levelN.json, a black clip.
        func chain(_ levels: Int) throws {
            for level in 0..<levels {
                try write("level\(level).json", parent(assets: #""next": {"composition": "level\#(level + 1).json"}"#,
                                                       timeline: #"{"clips": [{"asset": "next"}]}"#))
            }
            try write("level\(levels).json", parent(timeline: #"{"clips": [{"asset": "black", "duration": 0.2}]}"#))
        }
        try chain(16)
        let deepest = try render("level0.json", "ok.mkv")
        #expect(deepest.status == 0, "16 levels are allowed: \(deepest.stderrText)")
        #expect(try countFrames(folder.file("ok.mkv")) == 5)
        try chain(17)
        let result = try render("level0.json", "out.mkv")
        #expect(result.status == 65, "\(result.stderrText)")
        #expect(result.stderrText.contains("deeper than 16"), "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.mkv").path))
    }

    @Test func aChildsMissingMediaNamesTheChildFileAndItsPath() throws {
        try FileManager.default.createDirectory(at: folder.file("broken"), withIntermediateDirectories: true)
        try write("broken/card.json", """
            {"reel": 1, "output": {"size": [160, 120], "frameRate": 25},
             "assets": {"gone": {"path": "gone.mp4"}}, "timeline": {"clips": [{"asset": "gone"}]}}
            """)
        try write("parent.json", parent(assets: #""card": {"composition": "broken/card.json"}"#,
                                        timeline: #"{"clips": [{"asset": "card"}]}"#))
        let result = try render("parent.json", "out.mkv")
        #expect(result.status == 66, "\(result.stderrText)")
        #expect(result.stderrText.contains("broken/card.json") && result.stderrText.contains("$.assets.gone.path"),
                "\(result.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.mkv").path))
        // A child file that is missing, and one that is not a project.
        try write("parent.json", parent(assets: #""card": {"composition": "nowhere.json"}"#,
                                        timeline: #"{"clips": [{"asset": "card"}]}"#))
        let missing = try render("parent.json", "out.mkv")
        #expect(missing.status == 66 && missing.stderrText.contains("$.assets.card.composition"), "\(missing.stderrText)")
        try write("notjson.json", "{\"reel\": 1, ")
        try write("parent.json", parent(assets: #""card": {"composition": "notjson.json"}"#,
                                        timeline: #"{"clips": [{"asset": "card"}]}"#))
        let unreadable = try render("parent.json", "out.mkv")
        #expect(unreadable.status == 65 && unreadable.stderrText.contains("notjson.json"), "\(unreadable.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.mkv").path))
    }

    /// `reel validate --no-probe` reads, compiles and checks the children too (no medium opened): a child's unknown
    /// key is reported at the same place in the child's file as a probing validation reports it; a child that is
    /// not JSON and a cycle are refused; a child's missing medium is treated as the project's own would be.
    @Test func validateWithoutProbingReadsTheChildren() throws {
        func validate(_ name: String, _ extra: [String] = ["--no-probe"]) throws -> ProcessResult {
            try run(reel.path, ["validate", folder.file(name).path] + extra)
        }
        #expect(try validate("child/card.json").status == 0)
        try write("parent.json", parent(timeline: #"{"clips": [{"asset": "card"}]}"#))
        #expect(try validate("parent.json").status == 0)
        try write("child/bad.json", """
            {"reel": 1, "output": {"size": [160, 120], "frameRate": 25},
             "assets": {"src": {"path": "src.mkv"}},
             "timeline": {"clips": [{"asset": "src", "speeed": 2}]}}
            """)
        try write("parent.json", parent(assets: #""card": {"composition": "child/bad.json"}"#,
                                        timeline: #"{"clips": [{"asset": "card"}]}"#))
        let lint = try validate("parent.json")
        #expect(lint.status == 65, "\(lint.stderrText)")
        let line = { (text: String) in text.split(separator: "\n").first { $0.contains("speeed") }.map(String.init) }
        let placed = try #require(line(lint.stderrText), "\(lint.stderrText)")
        #expect(placed.contains("child/bad.json:3:") && placed.contains("$.timeline.clips[0].speeed"), "\(placed)")
        let probed = try validate("parent.json", [])
        #expect(probed.status == 65 && line(probed.stderrText) == placed, "\(probed.stderrText)")
        // A child that is not JSON, and a cycle.
        try write("notjson.json", "{\"reel\": 1, ")
        try write("parent.json", parent(assets: #""card": {"composition": "notjson.json"}"#,
                                        timeline: #"{"clips": [{"asset": "card"}]}"#))
        let unreadable = try validate("parent.json")
        #expect(unreadable.status == 65 && unreadable.stderrText.contains("notjson.json"), "\(unreadable.stderrText)")
        try write("a.json", parent(assets: #""b": {"composition": "b.json"}"#, timeline: #"{"clips": [{"asset": "b"}]}"#))
        try write("b.json", parent(assets: #""a": {"composition": "a.json"}"#, timeline: #"{"clips": [{"asset": "a"}]}"#))
        let cycle = try validate("a.json")
        #expect(cycle.status == 65 && cycle.stderrText.contains("uses itself"), "\(cycle.stderrText)")
        // A missing medium: in a child as in the project itself (no medium is opened under --no-probe).
        try write("gone.json", """
            {"reel": 1, "output": {"size": [160, 120], "frameRate": 25},
             "assets": {"gone": {"path": "gone.mp4"}}, "timeline": {"clips": [{"asset": "gone"}]}}
            """)
        try write("parent.json", parent(assets: #""card": {"composition": "gone.json"}"#,
                                        timeline: #"{"clips": [{"asset": "card"}]}"#))
        #expect(try validate("parent.json").status == validate("gone.json").status)
    }

    /// A child's warnings reach the parent's validation, named by the child's file and JSON path, once however many
    /// assets use the child; `--strict` then refuses the parent.
    @Test func aChildsWarningsAreTheParentsNamedByTheChildFile() throws {
        try FileManager.default.createDirectory(at: folder.file("warned"), withIntermediateDirectories: true)
        _ = try runChecked("ffmpeg", ["-v", "error", "-y", "-i", folder.file("child/src.mkv").path, "-c", "copy",
                                      folder.file("warned/src.mkv").path])
        // A clip chapter in the part trimmed away is a warning (the chapter is left out).
        try write("warned/card.json", """
            {"reel": 1, "output": {"size": [160, 120], "frameRate": 25},
             "assets": {"src": {"path": "src.mkv"}},
             "timeline": {"clips": [{"asset": "src", "in": 1, "out": 2, "chapters": [{"at": 0.5, "title": "Gone"}]}]}}
            """)
        try write("parent.json", parent(assets: #""card": {"composition": "warned/card.json"}, "again": {"composition": "warned/card.json"}"#,
                                        timeline: #"{"clips": [{"asset": "card"}, {"asset": "again"}]}"#))
        let checked = try run(reel.path, ["validate", folder.file("parent.json").path])
        #expect(checked.status == 0, "\(checked.stderrText)")
        let lines = checked.stderrText.split(separator: "\n").filter { $0.contains("$.timeline.clips[0].chapters[0].at") }
        #expect(lines.count == 1 && lines[0].contains("warned/card.json") && lines[0].contains("warning"), "\(checked.stderrText)")
        let strict = try run(reel.path, ["render", folder.file("parent.json").path, "-o", folder.file("out.mkv").path,
                                         "--strict", "--force", "--quiet"])
        #expect(strict.status == 65, "\(strict.stderrText)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.mkv").path))
    }

    @Test func anEntrysProblemIsPlacedInTheParentsDocument() throws {
        // The entry's clip names an asset nobody declared: the error has the entry's path and its line in parent.json.
        try write("parent.json", parent(assets: #""card": {"composition": "card"}"#, timeline: #"{"clips": [{"asset": "card"}]}"#)
            .replacingOccurrences(of: #""timeline":"#, with: "\"compositions\": {\"card\": {\"size\": [160, 120], \"frameRate\": 25,\n"
                                  + #"  "timeline": {"clips": [{"asset": "nope", "duration": 1}]}}}, "timeline":"#))
        let result = try render("parent.json", "out.mkv")
        #expect(result.status == 65, "\(result.stderrText)")
        #expect(result.stderrText.contains("parent.json:4:") && result.stderrText.contains("$.compositions.card.timeline.clips[0].asset")
                && result.stderrText.contains("\"nope\""), "\(result.stderrText)")
        // An entry no asset uses is not rendered, and its problems are not reported.
        try write("parent.json", parent(timeline: #"{"clips": [{"asset": "black", "duration": 0.2}]}"#)
            .replacingOccurrences(of: #""timeline":"#, with: #""compositions": {"spare": {"size": [160, 120], "timeline": {"clips": [{"asset": "nope"}]}}}, "timeline":"#))
        let unused = try render("parent.json", "out.mkv")
        #expect(unused.status == 0, "\(unused.stderrText)")
    }

    @Test func templateVariablesReachInlineCompositions() throws {
        try write("template.json", """
            {"reel": 1, "variables": {"name": {"type": "string", "default": "A"}},
             "output": {"size": [160, 120], "frameRate": 25, "video": {"crf": 0}, "audio": false},
             "compositions": {"third": {"size": [160, 120], "frameRate": 25,
                                        "timeline": {"clips": [{"asset": "black", "duration": 0.2}],
                                                     "titles": [{"text": "{{name}}", "start": 0, "duration": 0.2}]}}},
             "assets": {"black": {"color": "#000000"}, "third": {"composition": "third"}},
             "timeline": {"clips": [{"asset": "third"}]}}
            """)
        let first = try run(reel.path, ["render", folder.file("template.json").path, "-o", folder.file("a.mkv").path,
                                        "--set", "name=AAAA", "--force", "--quiet"])
        let second = try run(reel.path, ["render", folder.file("template.json").path, "-o", folder.file("b.mkv").path,
                                         "--set", "name=WWWW", "--force", "--quiet"])
        #expect(first.status == 0 && second.status == 0, "\(first.stderrText)\(second.stderrText)")
        #expect(try pictureHashes("a.mkv") != pictureHashes("b.mkv"), "the variable changed the inline composition's title")
    }

    @Test func withPassesValuesToAChildTemplate() throws {
        try write("lower.json", """
            {"reel": 1, "variables": {"who": {"type": "string", "default": "nobody"}},
             "output": {"size": [160, 120], "frameRate": 25},
             "assets": {"black": {"color": "#000000"}},
             "timeline": {"clips": [{"asset": "black", "duration": 0.2}], "titles": [{"text": "{{who}}", "start": 0, "duration": 0.2}]}}
            """)
        func speakers(_ a: String, _ b: String) -> String {
            parent(assets: #""one": {"composition": "lower.json", "with": {"who": "\#(a)"}}, "two": {"composition": "lower.json", "with": {"who": "\#(b)"}}"#,
                   timeline: #"{"clips": [{"asset": "one"}, {"asset": "two"}]}"#)
        }
        try write("parent.json", speakers("AAAA", "WWWW"))
        let result = try render("parent.json", "parent.mkv")
        #expect(result.status == 0, "\(result.stderrText)")
        let pictures = try pictureHashes("parent.mkv")
        try #require(pictures.count == 10)
        #expect(pictures[0] != pictures[5], "each use got its own value")
        // The same value twice draws the same picture.
        try write("parent.json", speakers("AAAA", "AAAA"))
        #expect(try render("parent.json", "same.mkv").status == 0)
        let same = try pictureHashes("same.mkv")
        #expect(same[0] == same[5] && same[0] == pictures[0])
        // A value for a variable the child does not declare is the child's error, named in it.
        try write("parent.json", parent(assets: #""one": {"composition": "lower.json", "with": {"nobody": 1}}"#,
                                        timeline: #"{"clips": [{"asset": "one"}]}"#))
        let wrong = try render("parent.json", "out.mkv")
        #expect(wrong.status == 65 && wrong.stderrText.contains("lower.json") && wrong.stderrText.contains("$.assets.one.with"), "\(wrong.stderrText)")
    }

    @Test func twentyOverlaysOfTheChildInTurnEachSoundSampleExact() throws {
        let alone = try childAlone()
        // Overlay i starts at 0.4·i s and plays the child from (i mod 4)·0.5 s for 0.2 s: the uses share one mixer
        // of the child (NestedSounds), which moves back and forth in it; each window is still the child's samples.
        let overlays = (0..<20).map { i in
            #"{"video": "card", "start": \#(String(format: "%.1f", 0.4 * Double(i))), "in": \#(String(format: "%.1f", 0.5 * Double(i % 4))), "duration": 0.2}"#
        }
        try write("parent.json", parent(timeline: #"{"clips": [{"asset": "black", "duration": 8}], "overlays": ["#
            + overlays.joined(separator: ", ") + "]}"))
        let result = try render("parent.json", "parent.mkv")
        #expect(result.status == 0, "\(result.stderrText)")
        let samples = try readAudioSamples(of: folder.file("parent.mkv"), sampleRate: 48000, channels: 2)
        try #require(samples[0].count == 8 * 48000, "\(samples[0].count) samples")
        for c in 0..<2 {
            var expected = [Float](repeating: 0, count: 8 * 48000)
            for i in 0..<20 {
                let at = 19200 * i, from = 24000 * (i % 4)
                for j in 0..<9600 { expected[at + j] = alone.samples[c][from + j] }
            }
            let mismatches = expected.indices.filter { samples[c][$0] != expected[$0] }
            #expect(mismatches.isEmpty, "channel \(c): \(mismatches.count) samples differ, first at \(mismatches.first ?? -1)")
        }
    }

    @Test func aReversedClipOfTheChildEqualsTheSameClipOfTheChildRenderedToAFile() throws {
        _ = try childAlone()
        // The same reversed trim of the composition and of its rendering (alone.mkv): the same pictures and sound.
        func reversed(_ asset: String) -> String {
            parent(assets: #""card": {"composition": "child/card.json"}, "file": {"path": "alone.mkv"}"#,
                   timeline: #"{"clips": [{"asset": "\#(asset)", "in": 1, "out": 2, "reverse": true}]}"#)
        }
        try write("nested.json", reversed("card"))
        try write("filed.json", reversed("file"))
        let nested = try render("nested.json", "nested.mkv"), filed = try render("filed.json", "filed.mkv")
        #expect(nested.status == 0 && filed.status == 0, "\(nested.stderrText)\(filed.stderrText)")
        let pictures = try pictureHashes("nested.mkv")
        #expect(pictures.count == 25 && Set(pictures).count == 25)
        #expect(pictures == (try pictureHashes("filed.mkv")))
        let a = try readAudioSamples(of: folder.file("nested.mkv"), sampleRate: 48000, channels: 2)
        let b = try readAudioSamples(of: folder.file("filed.mkv"), sampleRate: 48000, channels: 2)
        #expect(a == b && a[0].count == 48000)
    }
}

