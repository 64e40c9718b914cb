import Foundation
import ReelTestSupport
import Testing

/// Keyed audio effect parameters rendered and read back from outside (docs/effects.md, "Keyed audio parameters"):
/// a keyed filter option equals the ffmpeg CLI sending the same values with `asendcmd` before the same 256-sample
/// blocks (`asetnsamples=n=256`), a constant key list equals the plain value bit for bit, nothing changes before the
/// first sample at or after a key, a `--range` render hears what the whole render has there, and errors name the
/// JSON path with nothing written. They are tests of `AudioEffectRenderTests` (its input files and helpers).
extension AudioEffectRenderTests {
    static let block = 256

    /// A piecewise-linear curve of (seconds, value) points: the first value before the first point, the last after.
    static func curve(_ points: [(Double, Double)], at seconds: Double) -> Double {
        guard let first = points.first, seconds >= first.0 else { return points.first?.1 ?? 0 }
        for (p, q) in zip(points, points.dropFirst()) where seconds < q.0 {
            return p.0 == q.0 ? q.1 : p.1 + (q.1 - p.1) * (seconds - p.0) / (q.0 - p.0)
        }
        return points.last?.1 ?? 0
    }

    /// Key times on the 256-sample grid at 48 kHz (0.512 s is block 96), so that the CLI's fixed blocks meet them.
    static let keyedCases: [(name: String, effect: String, filters: String, target: String, option: String,
                        points: [(Double, Double)], decibels: Bool)] = [
        ("highpass", #"{"type": "highpass", "frequency": [{"at": 0, "value": 200}, {"start": 0.512, "end": 2.048, "from": 200, "to": 3000}, {"at": 3.072, "value": 500}]}"#,
         "highpass=f=200", "highpass", "f", [(0.512, 200), (2.048, 3000), (3.072, 3000), (3.072, 500)], false),
        ("highpass24", #"{"type": "highpass", "slope": 24, "frequency": [{"start": 0.512, "end": 2.048, "from": 150, "to": 1500}]}"#,
         "highpass@a=f=150,highpass@b=f=150", "highpass@a|highpass@b", "f", [(0.512, 150), (2.048, 1500)], false),
        ("compressor", #"{"type": "compressor", "ratio": 8, "threshold": [{"at": 0, "value": -10}, {"at": 2.048, "value": -40, "easing": "linear"}]}"#,
         "acompressor=threshold=0.31622776601683794:ratio=8", "acompressor", "threshold", [(0, -10), (2.048, -40)], true),
        ("eq", #"{"type": "eq", "bands": [{"type": "peak", "frequency": 6000, "gain": 0}, {"type": "peak", "frequency": 60, "q": 2, "gain": [{"start": 1.024, "duration": 2.048, "from": -20, "to": 12}]}]}"#,
         "equalizer@a=f=6000:g=0:w=1,equalizer@b=f=60:g=-20:w=2", "equalizer@b", "g", [(1.024, -20), (3.072, 12)], false),
        ("limiter", #"{"type": "limiter", "ceiling": [{"start": 0.512, "end": 2.048, "from": 0, "to": -20}]}"#,
         "alimiter=limit=1:attack=5:release=50:level=0:latency=1", "alimiter", "limit", [(0.512, 0), (2.048, -20)], true),
        // afftdn and anlmdn delay their output; reel compensates it with apad before and atrim after, as here.
        // (A floor of −20 dB puts the test sound's noise within reach: at afftdn's −50 the amount hardly matters.)
        ("fftAmount", #"{"type": "denoise", "floor": -20, "amount": [{"start": 0.512, "end": 2.048, "from": 3, "to": 40}]}"#,
         "apad=pad_len=1200,afftdn=nr=3:nf=-20,atrim=start_sample=1200", "afftdn", "nr", [(0.512, 3), (2.048, 40)], false),
        ("fftFloor", #"{"type": "denoise", "amount": 30, "floor": [{"at": 0, "value": -80}, {"start": 1.024, "end": 2.048, "from": -80, "to": -20}]}"#,
         "apad=pad_len=1200,afftdn=nr=30:nf=-80,atrim=start_sample=1200", "afftdn", "nf", [(1.024, -80), (2.048, -20)], false),
        ("nlmStrength", #"{"type": "denoise", "model": "nlm", "strength": [{"start": 0.512, "end": 2.048, "from": 0.00001, "to": 100}]}"#,
         "apad=pad_len=384,anlmdn=s=1e-05,atrim=start_sample=384", "anlmdn", "s", [(0.512, 0.00001), (2.048, 100)], false),
    ]

    /// The values sent before each block: the curve at the block's first sample, as the CLI's `asendcmd` sends them
    /// when that block's frame passes (its time in whole microseconds, as sendcmd compares it), to each filter of
    /// `target` (`|`-separated instance names).
    private func commands(_ index: Int) -> String {
        let (_, _, _, target, option, points, decibels) = Self.keyedCases[index]
        return Self.commands(target: target, option: option, points: points, decibels: decibels)
    }

    static func commands(target: String, option: String, points: [(Double, Double)], decibels: Bool) -> String {
        var text = ""
        for block in 0..<(4 * Self.rate / Self.block) {
            let sample = block * Self.block
            let microseconds = (Double(sample) * 1_000_000 / Double(Self.rate)).rounded()
            let curve = Self.curve(points, at: Double(sample) / Double(Self.rate))
            // A level the filter takes as a linear factor, as reel converts it.
            let value = decibels ? pow(10, curve / 20) : curve
            // sendcmd stops at the first filter that takes a command, so each of several is named.
            let sent = target.split(separator: "|").map { "\($0) \(option) \(value)" }.joined(separator: ", ")
            text += String(format: "%.6f", microseconds / 1_000_000) + " \(sent);\n"
        }
        return text
    }

    @Test(arguments: keyedCases.indices)
    func aKeyedOptionMatchesTheCLISendingTheSameCommands(index: Int) throws {
        let (name, effect, filters, _, _, _, _) = Self.keyedCases[index]
        let rendered = try render(try project("keyed-" + name, effects: "[\(effect)]"))
        let file = folder.file("keyed-\(name).cmd")
        try commands(index).write(to: file, atomically: true, encoding: .utf8)
        let mono = folder.file("mono.wav").path
        let reference = try samples(mono, filters: "asetnsamples=n=\(Self.block),asendcmd=f=\(file.path),\(filters)")
        #expect(rendered.count == 4 * Self.rate && reference.count == rendered.count)
        let difference = Self.relativeDifference(rendered, reference)
        #expect(difference <= -60, "\(name): reel differs from the CLI's asendcmd by \(difference) dB")
        // The keys matter: the filter at its first value all along is far from both.
        let fixed = try samples(mono, filters: filters)
        let change = Self.relativeDifference(fixed, reference)
        #expect(change > -40, "\(name): the keys change the sound by only \(change) dB")
    }

    /// `learnFrom` with a keyed amount: afftdn's noise sampling measures its input's bands before it reduces anything,
    /// so the profile it learns is the same whatever its amount (`nr`) and floor (`nf`), the only options reel gives
    /// it; learning with the first key's values therefore learns what the values in force over the stretch would
    /// (docs/effects.md, "A noise profile learned from the recording"). The render equals the CLI learning at other
    /// values, then running afftdn with that profile and the keyed amount sent as commands.
    @Test func aKeyedAmountLearnsTheProfileOfTheValuesInForce() throws {
        let room = try makeRoom()
        // Over the stretch [0.2, 0.9) the amount is 3 up to 0.512 s, then rises towards 40 (12.5 at 0.9 s).
        let points: [(Double, Double)] = [(0.512, 3), (2.048, 40)]
        let effect = #"{"type": "denoise", "floor": -20, "learnFrom": [0.2, 0.9], "amount": [{"start": 0.512, "end": 2.048, "from": 3, "to": 40}]}"#
        let rendered = try render(try project("learned-keyed", source: "room.wav", effects: "[\(effect)]"))
        let profiles = try ["nr=3:nf=-20", "nr=12.5:nf=-20", "nr=40:nf=-20", "nr=3:nf=-80"].map { options throws in
            try learnedBands(room, options: options)
        }
        #expect(Set(profiles).count == 1, "afftdn learns different profiles at different amounts: \(profiles)")
        let file = folder.file("learned-keyed.cmd")
        try Self.commands(target: "afftdn", option: "nr", points: points, decibels: false).write(to: file, atomically: true, encoding: .utf8)
        let filters = "asetnsamples=n=\(Self.block),asendcmd=f=\(file.path),apad=pad_len=1200,"
            + "afftdn=nr=3:nf=-20:nt=custom:bn=\(profiles[2]),atrim=start_sample=1200"
        let reference = try samples(room, filters: filters)
        #expect(rendered.count == 4 * Self.rate && reference.count == rendered.count)
        let difference = Self.relativeDifference(rendered, reference)
        #expect(difference <= -60, "reel differs from the CLI's learned, keyed afftdn by \(difference) dB")
        // The learned profile matters here too: afftdn's white-noise one, keyed the same, is far from it.
        let white = try samples(room, filters: filters.replacingOccurrences(of: ":nt=custom:bn=\(profiles[2])", with: ""))
        let other = Self.relativeDifference(white, reference)
        #expect(other > -45, "the learned profile changes the sound by only \(other) dB")
    }

    /// A keyed pan (applied by reel to every sample: the pan filter takes no commands) equals `aeval` with the same
    /// gains, computed from each sample's time.
    @Test func aKeyedPanMatchesTheGainsAtEverySample() throws {
        let effect = #"{"type": "pan", "position": [{"at": 0, "value": -1}, {"start": 0.5, "end": 2.5, "from": -1, "to": 1}]}"#
        let rendered = try render(try project("keyed-pan", source: "stereo.wav", channels: 2, effects: "[\(effect)]"))
        let position = "if(lt(t,0.5),-1,if(lt(t,2.5),-1+2*(t-0.5)/2,1))"
        let reference = try samples(folder.file("stereo.wav").path,
                                    filters: "aeval='val(0)*min(1,1-\(position))|val(1)*min(1,1+\(position))':c=same")
        #expect(rendered.count == 2 * 4 * Self.rate && reference.count == rendered.count)
        let difference = Self.relativeDifference(rendered, reference)
        #expect(difference <= -60, "reel's keyed pan differs from aeval by \(difference) dB")
        let unpanned = try samples(folder.file("stereo.wav").path)
        #expect(Self.relativeDifference(unpanned, reference) > -20, "the pan changes the sound")
    }

    @Test func aConstantKeyListIsThePlainValueBitForBit() throws {
        for (keyed, plain) in [
            (#"{"type": "highpass", "frequency": [{"at": 0, "value": 700}]}"#, #"{"type": "highpass", "frequency": 700}"#),
            (#"{"type": "compressor", "threshold": [{"at": 1, "value": -30}], "ratio": [{"start": 0, "end": 3, "from": 6, "to": 6}]}"#,
             #"{"type": "compressor", "threshold": -30, "ratio": 6}"#),
            (#"{"type": "denoise", "amount": [{"at": 0.3, "value": 25}]}"#, #"{"type": "denoise", "amount": 25}"#),
        ] {
            let a = try render(try project("constant", effects: "[\(keyed)]"))
            let b = try render(try project("plainValue", effects: "[\(plain)]"))
            #expect(a.count == 4 * Self.rate && a == b, "\(keyed) differs from \(plain)")
        }
    }

    /// A key off the block grid (2.0001 s is 96004.8 samples): the value changes at sample 96005, the first at or
    /// after the key, and not one sample before.
    @Test func nothingChangesBeforeTheKeysFirstSample() throws {
        let plain = try render(try project("before", effects: #"[{"type": "highpass", "frequency": 300}]"#))
        let keyed = try render(try project("keyedLate", effects: #"[{"type": "highpass", "frequency": [{"at": 0, "value": 300}, {"at": 2.0001, "value": 3000}]}]"#))
        let first = 96005
        #expect(Array(keyed[..<first]) == Array(plain[..<first]), "the keyed highpass changed sound before sample \(first)")
        #expect(keyed[first] != plain[first], "the new frequency does not act from sample \(first)")
    }

    @Test func aRangeRenderHearsWhatTheWholeRenderHas() throws {
        let effects = #"""
            [{"type": "highpass", "frequency": [{"start": 0.3, "end": 2.5, "from": 100, "to": 2500, "easing": "easeInOut"}]},
             {"type": "compressor", "ratio": 6, "release": 800, "threshold": [{"at": 0, "value": -10}, {"at": 1.7, "value": -40, "easing": "easeIn"}]},
             {"type": "denoise", "amount": [{"start": 1, "end": 2, "from": 5, "to": 30}]},
             {"type": "gain", "gain": [{"start": 1, "end": 3, "from": -12, "to": 0}]}]
            """#
        let path = try project("rangeKeyed", effects: effects)
        let whole = try render(path)
        let part = try render(path, ["--range", "1.5..3"])
        let first = Self.rate * 3 / 2
        #expect(part.count == Self.rate * 3 / 2)
        #expect(part == Array(whole[first..<(first + part.count)]), "the range's samples differ from the whole render's")
    }

    @Test func keyErrorsNameTheJSONPathAndNothingIsWritten() throws {
        let cases: [(effect: String, message: String)] = [
            (#"{"type": "denoise", "model": [{"at": 0, "value": "nlm"}]}"#, "$.timeline.audio[0].effects[0].model: expected"),
            (#"{"type": "gate", "attack": [{"at": 0, "value": 5}]}"#, "$.timeline.audio[0].effects[0].attack: gate's attack cannot be keyed"),
            (#"{"type": "highpass", "frequency": [{"at": 0, "value": 200}, {"at": 1, "value": 30000}]}"#,
             "$.timeline.audio[0].effects[0].frequency[1].value: frequency 30000 is outside 1…20000 Hz"),
            (#"{"type": "eq", "bands": [{"type": "lowShelf", "gain": [{"start": 0, "duration": 1, "from": 0, "to": 40}]}]}"#,
             "$.timeline.audio[0].effects[0].bands[0].gain[0].to: gain 40 is outside -30…30 dB"),
            (#"{"type": "compressor", "ratio": []}"#, "$.timeline.audio[0].effects[0].ratio: an animated parameter needs at least one key"),
        ]
        for (effect, message) in cases {
            let path = try project("refusedKeys", effects: "[\(effect)]")
            try? FileManager.default.removeItem(at: folder.file("refusedKeys.wav"))
            let result = try run(reel.path, ["render", path, "-o", folder.file("refusedKeys.wav").path, "-q"])
            #expect(result.status == 65, "\(effect): \(result.status) \(result.stderrText)")
            #expect(result.stderrText.contains(message), "\(effect): \(result.stderrText)")
            #expect(!FileManager.default.fileExists(atPath: folder.file("refusedKeys.wav").path))
        }
    }
}
