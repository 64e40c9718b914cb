import Foundation
import Testing
import ReelModel
import ReelTime

@Suite struct RoundTripTests {
    static let facts: [String: MediaFactsResult] = [
        "a": videoFacts(duration: t(10)),
        "wide": videoFacts(duration: t(15, 2), width: 1920, height: 800, rate: Rational(30000, 1001)),
        "small": videoFacts(duration: t(1001, 30), width: 320, height: 240, rate: Rational(25), audio: false),
    ]

    /// compile → write → read → compile must give an equal compiled project (and the same text again).
    func expectRoundTrip(_ text: String, facts: [String: MediaFactsResult] = RoundTripTests.facts,
                         sourceLocation: SourceLocation = #_sourceLocation) throws {
        let (compiled, diagnostics) = compileProject(text, facts: facts)
        #expect(diagnostics.map(\.humanText) == [], sourceLocation: sourceLocation)
        let first = try #require(compiled, sourceLocation: sourceLocation)
        let written = ProjectWriter.explicitProject(first)
        let (again, againDiagnostics) = compileProject(written, facts: facts)
        #expect(againDiagnostics.map(\.humanText) == [], sourceLocation: sourceLocation)
        let second = try #require(again, sourceLocation: sourceLocation)
        #expect(second == first, sourceLocation: sourceLocation)
        #expect(ProjectWriter.explicitProject(second) == written, sourceLocation: sourceLocation)
    }

    @Test func editingFormWithEveryOutputKey() throws {
        try expectRoundTrip("""
        {"reel": 1,
         "output": {"path": "out/demo.mkv", "size": [1280, 720], "frameRate": 29.97, "renderScale": "1/3", "background": "#10203040",
                    "preset": "high", "video": {"codec": "vp9", "crf": 40, "bitrate": "2M", "encoderPreset": "good",
                    "pixelFormat": "yuv444p", "gop": 60, "smart": true}, "audio": {"codec": "opus", "bitrate": 96000, "channels": 1},
                    "metadata": {"title": "Round \\"trip\\"", "comment": "é"}, "range": {"start": "30f", "end": 5}, "end": 60, "faststart": false},
         "assets": {"a": {"path": "media/a.mp4", "videoTrack": 0, "audioTrack": 1, "language": "eng"},
                    "wide": {"path": "media/wide.mov", "rotation": 0}, "small": {"path": "small.mp4"}},
         "timeline": {"clips": [
            {"asset": "a", "in": 1, "out": 5, "speed": 2, "volume": "-6dB"}, {"gap": "1001/30000"},
            {"asset": "wide", "duration": 1, "speed": "1/3", "fit": "cover", "pitch": "varispeed"},
            {"asset": "small", "in": 0.25, "fit": "stretch"}, {"asset": "a", "in": 9, "muted": true, "fit": "none"}]}}
        """)
    }

    @Test func defaultsFilledFromMedia() throws {
        try expectRoundTrip("""
        {"reel": 1, "output": {"path": "o.webm"}, "assets": {"wide": {"path": "w.mov"}, "a": {"path": "a.mp4"}},
         "timeline": {"clips": [{"asset": "wide", "out": 2}, {"gap": 0.1}, {"asset": "a", "in": "00:00:01.5", "duration": 2, "speed": 1.5}]}}
        """)
    }

    @Test func audioOffAndSpeedsWithoutDecimals() throws {
        try expectRoundTrip("""
        {"reel": 1, "output": {"path": "o.mov", "size": [640, 480], "frameRate": 24, "audio": false},
         "assets": {"a": {"path": "a.mp4"}},
         "timeline": {"clips": [{"asset": "a", "out": 1, "speed": "1/3"}, {"asset": "a", "in": 2, "out": 3, "speed": "3/7"}, {"asset": "a", "in": 0.1, "out": 0.2}]}}
        """)
    }

    @Test func handWrittenExplicitForm() throws {
        try expectRoundTrip("""
        {"reel": 1, "output": {"path": "o.mp4", "frameRate": "24000/1001", "size": [640, 360]},
         "assets": {"a": {"path": "a.mp4"}, "wide": {"path": "w.mov"}},
         "composition": {"tracks": [
            {"id": 1, "type": "video", "segments": [{"asset": "a", "source": {"start": 0, "duration": 8}, "target": {"start": 0, "duration": 8}}]},
            {"id": 3, "type": "video", "segments": [{"empty": {"start": 0, "duration": 7}},
                {"asset": "wide", "sourceTrack": 0, "source": {"start": 1, "duration": 4}, "target": {"start": 7, "duration": 6}}]},
            {"id": 2, "type": "audio", "segments": [{"asset": "a", "source": {"start": 0, "duration": 8}, "target": {"start": 0, "duration": 8}, "pitch": "varispeed"}]}]},
         "audioMix": {"inputs": [{"track": 2, "volume": [{"at": 0, "value": 0.8}, {"start": 7, "end": 8, "from": 0.8, "to": 0}]}]},
         "videoComposition": {"frameDuration": "1001/24000", "renderSize": [640, 360], "renderScale": 0.5, "background": "#202020",
            "instructions": [
              {"start": 0, "duration": 7, "layers": [{"track": 1, "transform": [{"at": 0, "value": {"scale": 0.5, "rotate": 30, "anchor": [640, 360], "translate": [1, 2]}}]}]},
              {"start": 7, "duration": 1, "layers": [
                  {"track": 1, "opacity": [{"start": 7, "duration": 1, "from": 1, "to": 0}], "crop": [{"start": 7, "end": 8, "from": [0, 0, 1280, 720], "to": [640, 0, 0.1, 720]}]},
                  {"track": 3}]},
              {"start": 8, "duration": 5, "layers": [{"track": 3}], "background": "#FF0000", "postProcessing": false}]}}
        """)
    }

    @Test func transitionsAndAudio() throws {
        try expectRoundTrip(##"""
        {"reel": 1, "output": {"path": "o.mp4", "size": [640, 360], "frameRate": 25},
         "assets": {"a": {"path": "a.mp4"}, "wide": {"path": "w.mov"}, "small": {"path": "s.mp4"}},
         "timeline": {"clips": [
            {"asset": "a", "out": 3}, {"asset": "wide", "out": 3, "transition": {"type": "push", "direction": "up", "duration": 1, "audioCurve": "equalPower"}},
            {"asset": "small", "out": 2, "transition": {"type": "wipe", "direction": "right", "duration": "12f"}},
            {"asset": "a", "in": 1, "out": 3, "volume": 0.5, "transition": {"type": "dip", "color": "#FF8000", "duration": "1/3"}},
            {"gap": 0.5}, {"asset": "wide", "out": 2}, {"asset": "a", "out": 2, "transition": {"type": "slide", "duration": 0.5}}],
          "audio": [{"id": "music", "asset": "a", "in": 1, "out": 3, "loop": true, "volume": "-6dB", "fadeIn": 1, "fadeOut": 1},
                    {"id": "voice", "asset": "a", "at": 2, "duration": 1.5}],
          "volume": [{"track": "voice", "volume": [{"at": 2, "value": 1.5}, {"start": 3, "end": 3.5, "from": 1.5, "to": 0.5, "curve": "equalPower"}]}],
          "ducking": [{"duck": "music", "under": "voice", "to": 0.1, "ramp": 0.25}, {"duck": "main", "under": "voice", "to": "-20dB", "ramp": 0.5}]}}
        """##)
    }

    @Test func severalInputsPerTrackCurvesAndACompositor() throws {
        try expectRoundTrip("""
        {"reel": 1, "output": {"path": "o.mp4", "frameRate": 30, "size": [64, 36]}, "assets": {"a": {"path": "a.mp4"}},
         "composition": {"tracks": [
            {"id": 1, "type": "video", "segments": [{"asset": "a", "source": {"start": 0, "duration": 2}, "target": {"start": 0, "duration": 2}}]},
            {"id": 2, "type": "audio", "segments": [{"asset": "a", "source": {"start": 0, "duration": 2}, "target": {"start": 0, "duration": 2}}]}]},
         "audioMix": {"inputs": [{"track": 2, "name": "fades", "volume": [{"start": 0, "duration": 1, "from": 0, "to": 1, "curve": "equalPower"}]},
                                 {"track": 2, "volume": [{"at": 0, "value": 0.5}, {"start": 1, "duration": 1, "from": 0.5, "to": 1, "curve": "linear"}]}]},
         "videoComposition": {"compositor": "trackMap", "instructions": [{"start": 0, "duration": 2, "layers": [{"track": 1}]}]}}
        """)
        let (compiled, _) = compileProject("""
        {"reel": 1, "output": {"path": "o.mp4", "frameRate": 30, "size": [64, 36]}, "assets": {"a": {"path": "a.mp4"}},
         "composition": {"tracks": [
            {"id": 1, "type": "video", "segments": [{"asset": "a", "source": {"start": 0, "duration": 2}, "target": {"start": 0, "duration": 2}}]},
            {"id": 2, "type": "audio", "segments": [{"asset": "a", "source": {"start": 0, "duration": 2}, "target": {"start": 0, "duration": 2}}]}]},
         "audioMix": {"inputs": [{"track": 2, "name": "fades", "volume": [{"start": 0, "duration": 1, "from": 0, "to": 1, "curve": "equalPower"}]},
                                 {"track": 2, "volume": [{"at": 0, "value": 0.5}]}]},
         "videoComposition": {"compositor": "trackMap", "instructions": [{"start": 0, "duration": 2, "layers": [{"track": 1}]}]}}
        """, facts: Self.facts)
        let project = try #require(compiled)
        #expect(project.videoComposition.compositor == .trackMap)
        #expect(project.audioMix.inputs.map(\.name) == ["fades", nil])
        #expect(project.audioMix.inputs[0].volume == KeyList([.ramp(range(t(0), t(1)), from: 0, to: 1, easing: .equalPower)]))
        #expect(abs(project.audioMix.gain(forTrack: 2, at: t(1, 2)) - 0.5 * sin(Double.pi / 4)) < 1e-12)
        let written = ProjectWriter.explicitProject(project)
        #expect(written.contains(#""compositor": "trackMap""#))
        #expect(written.contains(#""easing": "equalPower""#))
        #expect(!written.contains(#""curve""#) && !written.contains(#""easing": "linear""#))
    }

    @Test func curvesAreForVolumeKeysOnly() {
        #expect(readErrors("""
        {"reel": 1, "output": {"path": "o.mp4", "frameRate": 30, "size": [64, 36]}, "assets": {"a": {"path": "a.mp4"}},
         "composition": {"tracks": [{"id": 1, "type": "video", "segments": []}]},
         "videoComposition": {"compositor": "fancy", "instructions": [{"start": 0, "duration": 2, "layers": [{"track": 1,
            "opacity": [{"start": 0, "duration": 1, "from": 0, "to": 1, "curve": "equalPower"}],
            "crop": [{"start": 0, "duration": 1, "from": [0, 0, 1, 1], "to": [0, 0, 2, 2], "curve": "linear"}]}]}]}}
        """) == [
            "error: $.videoComposition.compositor: unknown compositor \"fancy\"\n       hint: use one of builtIn, trackMap",
            "error: $.videoComposition.instructions[0].layers[0].opacity[0].curve: only volume ramps may have a \"equalPower\" curve\n       hint: remove \"curve\": only volume ramps may be equal-power",
        ])
    }

    @Test func writtenTextShape() throws {
        let compiled = try #require(compileProject("""
        {"reel": 1, "output": {"path": "o.mp4", "frameRate": 30, "size": [64, 36]}, "assets": {"a": {"path": "a.mp4"}},
         "timeline": {"clips": [{"asset": "a", "duration": 1, "speed": 3}]}}
        """, facts: Self.facts).compiled)
        #expect(ProjectWriter.explicitProject(compiled) == """
        {
          "reel": 1,
          "output": {
            "path": "o.mp4",
            "format": "mp4",
            "size": [64, 36],
            "frameRate": 30,
            "renderScale": 1,
            "background": "#000000",
            "preset": "medium",
            "video": {
              "codec": "h264"
            },
            "audio": {
              "codec": "aac",
              "sampleRate": 48000,
              "channels": 2
            },
            "faststart": true
          },
          "assets": {
            "a": {
              "path": "a.mp4"
            }
          },
          "composition": {
            "tracks": [
              {
                "id": 1,
                "type": "video",
                "segments": [
                  {
                    "asset": "a",
                    "source": {
                      "start": 0,
                      "duration": 1
                    },
                    "target": {
                      "start": 0,
                      "duration": "1/3"
                    }
                  }
                ]
              },
              {
                "id": 2,
                "type": "audio",
                "name": "main",
                "segments": [
                  {
                    "asset": "a",
                    "source": {
                      "start": 0,
                      "duration": 1
                    },
                    "target": {
                      "start": 0,
                      "duration": "1/3"
                    }
                  }
                ]
              }
            ]
          },
          "audioMix": {
            "inputs": []
          },
          "videoComposition": {
            "frameDuration": "1/30",
            "renderSize": [64, 36],
            "renderScale": 1,
            "background": "#000000",
            "instructions": [
              {
                "start": 0,
                "duration": "1/3",
                "layers": [
                  {
                    "track": 1,
                    "transform": [
                      {
                        "at": 0,
                        "value": [0.05, 0, 0, 0.05, 0, 0]
                      }
                    ]
                  }
                ]
              }
            ]
          }
        }
        """)
    }
}

/// SplitMix64: a small deterministic generator so failures reproduce.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct CompilePropertyTests {
    static let speeds: [(text: String, value: Rational)] = [
        ("\"1/3\"", Rational(1, 3)), ("0.5", Rational(1, 2)), ("1", Rational(1)), ("1.5", Rational(3, 2)),
        ("2", Rational(2)), ("3", Rational(3)), ("\"2/3\"", Rational(2, 3)),
    ]
    static let frameRates: [(text: String, value: Rational)] = [
        ("24", Rational(24)), ("25", Rational(25)), ("\"30000/1001\"", Rational(30000, 1001)), ("30", Rational(30)), ("59.94", Rational(60000, 1001)),
    ]
    static let facts: [String: MediaFactsResult] = [
        "a": videoFacts(duration: t(10), rate: Rational(25)),
        "b": videoFacts(duration: t(15, 2), width: 1920, height: 1080, audio: false),
        "c": videoFacts(duration: t(1001, 100), width: 720, height: 576, rate: Rational(30000, 1001), averageRate: Rational(29)),
    ]

    static let transitionTypes = [
        #""type": "dissolve""#, #""type": "dip""#, ##""type": "dip", "color": "#FFFFFF""##,
    ] + ["push", "slide", "wipe"].flatMap { type in
        ["left", "right", "up", "down"].map { #""type": "\#(type)", "direction": "\#($0)""# }
    }

    /// A random valid editing-form project, the exact timeline length of each item and the total
    /// length of its transitions; transitions only when `transitions`.
    static func randomProject(_ random: inout SeededGenerator, transitions: Bool = false)
        -> (text: String, lengths: [Time], overlap: Time) {
        let durations: [String: Time] = ["a": t(10), "b": t(15, 2), "c": t(1001, 100)]
        var clips: [String] = []
        var lengths: [Time] = []
        let frameRate = frameRates.randomElement(using: &random)!
        let twelveFrames = try! Time.frames(12, frameDuration: Time(frameRate.value.inverse))
        let gaps: [(text: String, value: Time)] = [("0.5", t(1, 2)), ("\"1/3\"", t(1, 3)), ("\"12f\"", twelveFrames), ("2", t(2))]
        var overlap = Time.zero
        // The previous item's length left over after its own incoming transition; nil after a gap.
        var previousFree: Time?
        for _ in 0..<Int.random(in: 1...20, using: &random) {
            if clips.count > 0, Int.random(in: 0..<6, using: &random) == 0 {
                let gap = gaps.randomElement(using: &random)!
                clips.append("{\"gap\": \(gap.text)}")
                lengths.append(gap.value)
                previousFree = nil
                continue
            }
            let asset = ["a", "b", "c"].randomElement(using: &random)!
            let duration = durations[asset]!
            // Quarter-second trims inside the source.
            let quarters = Int64(duration.seconds * 4)
            let inQuarter = Int64.random(in: 0..<quarters, using: &random)
            let outQuarter = Int64.random(in: (inQuarter + 1)...quarters, using: &random)
            let speed = speeds.randomElement(using: &random)!
            var fields = ["\"asset\": \"\(asset)\"", "\"in\": \(Double(inQuarter) / 4)", "\"speed\": \(speed.text)"]
            let useDuration = Bool.random(using: &random)
            let sourceLength = t(outQuarter - inQuarter, 4)
            if outQuarter == quarters, Bool.random(using: &random) {
                // Runs to the source's end.
                let end = duration
                lengths.append(try! (end - t(inQuarter, 4)).divided(by: speed.value))
            } else {
                fields.append(useDuration ? "\"duration\": \(Double(outQuarter - inQuarter) / 4)" : "\"out\": \(Double(outQuarter) / 4)")
                lengths.append(try! sourceLength.divided(by: speed.value))
            }
            if Bool.random(using: &random) { fields.append("\"volume\": \([0.5, 1, 2, "\"-6dB\""].randomElement(using: &random)!)") }
            if Int.random(in: 0..<5, using: &random) == 0 { fields.append("\"muted\": true") }
            fields.append("\"fit\": \"\(["contain", "cover", "stretch", "none"].randomElement(using: &random)!)\"")
            let length = lengths[lengths.count - 1]
            var incoming = Time.zero
            if transitions, let free = previousFree, Bool.random(using: &random) {
                // Up to the whole room the two clips leave: a quarter, a half or all of it.
                let fraction = [Rational(1, 4), Rational(1, 2), Rational(1)].randomElement(using: &random)!
                let room = try! min(free, length).multiplied(by: fraction)
                if !room.isZero {
                    incoming = room
                    overlap = try! overlap + room
                    let curve = Bool.random(using: &random) ? ", \"audioCurve\": \"equalPower\"" : ""
                    fields.append("\"transition\": {\(transitionTypes.randomElement(using: &random)!), \"duration\": \"\(room.value)/\(room.timescale)\"\(curve)}")
                }
            }
            previousFree = try! length - incoming
            clips.append("{" + fields.joined(separator: ", ") + "}")
        }
        let size = ["", ", \"size\": [1280, 720]", ", \"size\": [640, 360]"].randomElement(using: &random)!
        let text = """
        {"reel": 1, "output": {"path": "o.mp4", "frameRate": \(frameRate.text)\(size)},
         "assets": {"a": {"path": "a.mp4"}, "b": {"path": "b.mp4"}, "c": {"path": "c.mp4"}},
         "timeline": {"clips": [\(clips.joined(separator: ", "))]}}
        """
        return (text, lengths, overlap)
    }

    @Test(arguments: 0..<10)
    func randomProjectsCompileToTiledValidExplicitForms(batch: Int) throws {
        var random = SeededGenerator(state: UInt64(batch) &* 7919 &+ 17)
        for _ in 0..<25 {
            let (text, lengths, _) = Self.randomProject(&random)
            let (compiled, diagnostics) = compileProject(text, facts: Self.facts)
            #expect(diagnostics.map(\.humanText) == [], "\(text)")
            guard let project = compiled else { continue }
            #expect(Validator.validate(project).isEmpty)
            let total = try lengths.reduce(Time.zero) { try $0 + $1 }
            #expect(project.duration == total, "\(text)")
            // Instructions tile [0, duration) exactly, one per item.
            let ranges = project.videoComposition.instructions.map(\.timeRange)
            #expect(ranges.count == lengths.count)
            #expect(ranges.first?.start == .zero)
            #expect(ranges.last?.end == project.duration)
            for (previous, next) in zip(ranges, ranges.dropFirst()) {
                #expect(previous.end == next.start)
            }
            #expect(ranges.map(\.duration) == lengths, "\(text)")
            // Every media segment runs at its clip's exact speed.
            for track in project.composition.tracks {
                #expect(track.segments.map(\.target) == ranges)
                for segment in track.segments {
                    guard let source = segment.source else { continue }
                    #expect(try source.duration.divided(by: segment.mapping!.rate) == segment.target.duration)
                }
            }
            // And the written explicit form reads back to the same project.
            let (again, againDiagnostics) = compileProject(ProjectWriter.explicitProject(project), facts: Self.facts)
            #expect(againDiagnostics.isEmpty)
            #expect(again == project, "\(text)")
        }
    }
}

@Suite struct TransitionPropertyTests {
    @Test(arguments: 0..<10)
    func randomProjectsWithTransitionsCompileToTiledValidExplicitForms(batch: Int) throws {
        var random = SeededGenerator(state: UInt64(batch) &* 104_729 &+ 3)
        var transitionsSeen = 0
        for _ in 0..<25 {
            let (text, lengths, overlap) = CompilePropertyTests.randomProject(&random, transitions: true)
            if !overlap.isZero { transitionsSeen += 1 }
            let (compiled, diagnostics) = compileProject(text, facts: CompilePropertyTests.facts)
            #expect(diagnostics.map(\.humanText) == [], "\(text)")
            guard let project = compiled else { continue }
            #expect(Validator.validate(project).isEmpty, "\(text)")
            let total = try lengths.reduce(Time.zero) { try $0 + $1 } - overlap
            #expect(project.duration == total, "\(text)")
            // Instructions tile [0, duration) exactly.
            let ranges = project.videoComposition.instructions.map(\.timeRange)
            #expect(ranges.first?.start == .zero)
            #expect(ranges.last?.end == project.duration)
            for (previous, next) in zip(ranges, ranges.dropFirst()) {
                #expect(previous.end == next.start, "\(text)")
            }
            // Every instruction with two layers covers a transition: its tracks are 1 and 3.
            for instruction in project.videoComposition.instructions where instruction.layers.count == 2 {
                #expect(Set(instruction.layers.map(\.track)) == [1, 3])
            }
            #expect(project.composition.tracks.map(\.id) == (overlap.isZero ? [1, 2] : [1, 2, 3, 4]))
            let (again, againDiagnostics) = compileProject(ProjectWriter.explicitProject(project), facts: CompilePropertyTests.facts)
            #expect(againDiagnostics.map(\.humanText) == [])
            #expect(again == project, "\(text)")
        }
        #expect(transitionsSeen > 5)
    }
}
