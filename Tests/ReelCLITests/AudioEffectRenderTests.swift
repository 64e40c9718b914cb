import Foundation
import ReelTestSupport
import ReelUnitTestSupport
import Testing

/// Audio effects rendered and read back from outside (docs/effects.md, "Audio effects"): each effect's output
/// against the ffmpeg CLI running the same libavfilter filter with the same options on the same input (RMS
/// difference at most −60 dB of the signal), an effect starting at 2 s changing nothing before sample 2 × rate,
/// delaying filters compensated to the sample, `--range` renders hearing the state a whole render has, and errors
/// naming the JSON path with nothing written.
@Suite(.serialized) struct AudioEffectRenderTests {
    let folder: TemporaryDirectory
    let reel: URL
    static let rate = 48000

    init() throws {
        folder = try TemporaryDirectory(prefix: "reel-audio-effects")
        reel = try builtExecutable(named: "reel")
        // Speech-like noise in syllables over a low hum and a high whistle, 4 s, mono and stereo, as 32-bit floats so
        // that reel and the CLI read the very same samples.
        let voice = "0.3*(random(0)*2-1)*max(0,sin(2*PI*3.3*t))+0.05*sin(2*PI*60*t)+0.04*sin(2*PI*6000*t)"
        try make("mono.wav", expression: voice)
        try make("stereo.wav", expression: voice + "|" + voice.replacingOccurrences(of: "random(0)", with: "random(1)"))
        // A chirp from 200 Hz to 8 kHz: a one-sample shift of it differs by far more than −60 dB.
        try make("chirp.wav", expression: "0.4*sin(2*PI*(200+975*t)*t)")
    }

    private func make(_ name: String, expression: String) throws {
        let result = try run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "aevalsrc='\(expression)':s=\(Self.rate):d=4",
                                        "-c:a", "pcm_f32le", folder.file(name).path])
        #expect(result.status == 0, "\(result.stderrText)")
    }

    /// A project playing `source` as an extra audio track with `effects`, written to `output` (pcm WAV).
    func project(_ name: String, source: String = "mono.wav", channels: Int = 1, sampleRate: Int = rate, effects: String,
                         outputEffects: String = "") throws -> String {
        let url = folder.file(name + ".json")
        let mix = outputEffects.isEmpty ? "" : #", "effects": \#(outputEffects)"#
        try """
            { "reel": 1,
              "output": { "path": "\(name).wav", "size": [64, 36], "frameRate": 30, "end": 4,
                          "audio": { "sampleRate": \(sampleRate), "channels": \(channels)\(mix) } },
              "assets": { "sound": { "path": "\(source)" } },
              "timeline": { "clips": [], "audio": [ { "id": "sound", "asset": "sound", "effects": \(effects) } ] } }
            """.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// Renders `project` and returns its samples, channel after channel interleaved, as floats.
    func render(_ project: String, _ extra: [String] = []) throws -> [Float] {
        let output = (project as NSString).deletingPathExtension + ".wav"
        let result = try run(reel.path, ["render", project, "-o", output, "--force", "-q"] + extra)
        #expect(result.status == 0, "\(result.stderrText)")
        return try samples(output)
    }

    /// The samples of `file` (or of `filters` run on it by the ffmpeg CLI) as interleaved floats.
    func samples(_ file: String, filters: String? = nil) throws -> [Float] {
        let result = try run("ffmpeg", ["-v", "error", "-i", file] + (filters.map { ["-af", $0] } ?? []) + ["-f", "f32le", "-"])
        #expect(result.status == 0, "\(result.stderrText)")
        return result.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// 20·log10 of the RMS of a − b over the RMS of b, comparing `count` values from `offset` of `a` with `b` from
    /// `offset + lag`.
    static func relativeDifference(_ a: [Float], _ b: [Float], offset: Int = 0, lag: Int = 0, count: Int? = nil) -> Double {
        let n = count ?? min(a.count - offset, b.count - offset - lag)
        var difference = 0.0, signal = 0.0
        for k in 0..<n {
            let x = Double(a[offset + k]), y = Double(b[offset + lag + k])
            difference += (x - y) * (x - y)
            signal += y * y
        }
        return 10 * log10(max(difference, 1e-30) / max(signal, 1e-30))
    }

    /// Effect JSON, the same filters as an ffmpeg -af string, and the delay the CLI's plain filter puts on its output.
    static let cases: [(name: String, effect: String, filters: String, delay: Int)] = [
        ("highpass", #"{"type": "highpass", "frequency": 300}"#, "highpass=f=300", 0),
        ("highpass24", #"{"type": "highpass", "frequency": 300, "slope": 24}"#, "highpass=f=300,highpass=f=300", 0),
        ("lowpass", #"{"type": "lowpass", "frequency": 1000}"#, "lowpass=f=1000", 0),
        ("eq", #"{"type": "eq", "bands": [{"type": "peak", "frequency": 1000, "gain": 6, "q": 2}, {"type": "lowShelf", "gain": -6}, {"type": "highShelf", "frequency": 4000, "gain": 4}]}"#,
         "equalizer=f=1000:g=6:w=2,bass=g=-6,treble=f=4000:g=4", 0),
        ("compressor", #"{"type": "compressor", "threshold": -20, "ratio": 4, "attack": 5, "release": 100}"#,
         "acompressor=threshold=0.1:ratio=4:attack=5:release=100", 0),
        ("compressorDefaults", #"{"type": "compressor"}"#, "acompressor", 0),
        ("limiter", #"{"type": "limiter", "ceiling": -12, "release": 20}"#, "alimiter=limit=0.251188643150958:release=20:level=0:latency=1", 0),
        ("gate", #"{"type": "gate", "threshold": -20, "ratio": 20}"#, "agate=threshold=0.1:ratio=20", 0),
        ("deesser", #"{"type": "deesser", "amount": 0.8}"#, "deesser=i=0.8", 0),
        ("denoiseFFT", #"{"type": "denoise", "amount": 20, "floor": -40}"#, "afftdn=nr=20:nf=-40", 1200),
        ("denoiseNLM", #"{"type": "denoise", "model": "nlm", "strength": 100}"#, "anlmdn=s=100", 384),
        ("gain", #"{"type": "gain", "gain": -6}"#, "volume=-6dB", 0),
    ]

    @Test(arguments: cases.indices)
    func eachEffectMatchesTheFFmpegCLI(index: Int) throws {
        let (name, effect, filters, delay) = Self.cases[index]
        let rendered = try render(try project(name, effects: "[\(effect)]"))
        let reference = try samples(folder.file("mono.wav").path, filters: filters)
        let input = try samples(folder.file("mono.wav").path)
        #expect(rendered.count == input.count, "\(name): \(rendered.count) samples for \(input.count)")
        // The CLI's plain filter delays its output by `delay`; reel's is compensated, so its sample k is the CLI's
        // sample k + delay (the tail the CLI never gives back is left out of the comparison).
        let difference = Self.relativeDifference(rendered, reference, lag: delay, count: input.count - delay)
        #expect(difference <= -60, "\(name): reel differs from `ffmpeg -af \(filters)` by \(difference) dB")
        // The effect does something: otherwise the comparison above proves nothing.
        let change = Self.relativeDifference(input, reference, lag: delay, count: input.count - delay)
        #expect(change > -40, "\(name): the filter changes the input by only \(change) dB")
    }

    @Test func panMatchesTheFFmpegCLI() throws {
        let rendered = try render(try project("pan", source: "stereo.wav", channels: 2,
                                              effects: #"[{"type": "pan", "position": -0.5}]"#))
        let reference = try samples(folder.file("stereo.wav").path, filters: "pan=stereo|c0=1*c0|c1=0.5*c1")
        #expect(rendered.count == reference.count)
        #expect(Self.relativeDifference(rendered, reference) <= -60)
        // The right channel is halved, the left one kept.
        let right = stride(from: 1, to: rendered.count, by: 2).map { abs(rendered[$0]) }.reduce(0, +)
        let left = stride(from: 0, to: rendered.count, by: 2).map { abs(rendered[$0]) }.reduce(0, +)
        #expect(right < left * 0.6, "left \(left), right \(right)")
    }

    @Test func anEffectStartingAt2sChangesNothingBeforeSample2TimesRate() throws {
        let first = 2 * Self.rate
        let plain = try render(try project("plain", effects: "[]"))
        for effect in [#"{"type": "highpass", "frequency": 1000, "start": 2}"#,
                       #"{"type": "compressor", "threshold": -30, "ratio": 8, "start": 2}"#,
                       #"{"type": "denoise", "amount": 30, "start": 2}"#] {
            let rendered = try render(try project("late", effects: "[\(effect)]"))
            #expect(Array(rendered[..<first]) == Array(plain[..<first]), "\(effect) changed sound before 2 s")
            #expect(rendered[first..<(first + Self.rate / 2)] != plain[first..<(first + Self.rate / 2)],
                    "\(effect) changes nothing after 2 s")
            if effect.contains("highpass") {
                // A filter without memory to build up changes the first sound of its range (the input is exactly 0 at
                // 2 s, which a high-pass leaves 0).
                let sounding = plain[first...].firstIndex { $0 != 0 } ?? first
                #expect(sounding < first + 4, "the input is silent after 2 s")
                #expect(rendered[sounding] != plain[sounding], "\(effect) does not start at sample \(first)")
            }
            // From 2 s on it is the CLI's filter starting afresh on the input from sample 2 × rate.
            if effect.contains("compressor") {
                let reference = try samples(folder.file("mono.wav").path,
                                            filters: "atrim=start_sample=\(first),asetpts=N/SR/TB,acompressor=threshold=0.0316227766016838:ratio=8")
                let difference = Self.relativeDifference(Array(rendered[first...]), reference)
                #expect(difference <= -60, "from 2 s: \(difference) dB from the CLI")
            }
        }
    }

    @Test func delayingFiltersAreCompensatedToTheSample() throws {
        // Denoisers turned almost off and a limiter that never limits: the output is the input, at the same sample.
        let chain = #"[{"type": "denoise", "amount": 0.01}, {"type": "denoise", "model": "nlm", "strength": 0.00001}, {"type": "limiter", "ceiling": 0}]"#
        let rendered = try render(try project("aligned", source: "chirp.wav", effects: chain))
        let input = try samples(folder.file("chirp.wav").path)
        #expect(rendered.count == input.count)
        let aligned = Self.relativeDifference(rendered, input, offset: 4800, count: input.count - 9600)
        #expect(aligned <= -60, "at lag 0 the chain differs from its input by \(aligned) dB")
        for lag in [-1, 1] {
            let shifted = Self.relativeDifference(rendered, input, offset: 4800, lag: lag, count: input.count - 9600)
            #expect(shifted > aligned + 20, "lag \(lag): \(shifted) dB, lag 0: \(aligned) dB")
        }
    }

    /// An rnnoise model file of the layer sizes arnndn reads (those of the models rnnoise's training writes: dense 42→24
    /// tanh, GRUs 24→24, 90→48 and 114→96, dense 96→22 and 24→1 sigmoid) with every weight 0: every band's gain is
    /// then sigmoid(0) = ½. Tests cannot download a real model; arnndn's frames, and so its delay, do not depend on
    /// the weights (a real model, measured by hand, lags the same, docs/effects.md).
    static func zeroRNNoiseModel() -> String {
        let layers: [(inputs: Int, neurons: Int, activation: Int, gated: Bool)] = [
            (42, 24, 0, false), (24, 24, 0, true), (90, 48, 2, true), (114, 96, 0, true), (96, 22, 1, false), (24, 1, 1, false),
        ]
        func zeros(_ count: Int) -> String { Array(repeating: "0", count: count).joined(separator: " ") }
        var lines = ["rnnoise-nu model file version 1"]
        for layer in layers {
            lines.append("\(layer.inputs) \(layer.neurons) \(layer.activation)")
            let gates = layer.gated ? 3 : 1
            lines.append(zeros(gates * layer.inputs * layer.neurons))
            if layer.gated { lines.append(zeros(gates * layer.neurons * layer.neurons)) }
            lines.append(zeros(gates * layer.neurons))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// arnndn (denoise, model rnn) hands each 480-sample frame out a frame late, at 48 kHz, the only rate it runs at;
    /// reel compensates that at 48 kHz (docs/effects.md, "Sample-exact, aligned"): a click comes out at its own sample
    /// at 48 and 44.1 kHz, and the output is the CLI's arnndn output 480 samples on.
    @Test func theRNNoiseDelayIsCompensated() throws {
        try Self.zeroRNNoiseModel().write(to: folder.file("zero.rnnn"), atomically: true, encoding: .utf8)
        let effect = #"[{"type": "denoise", "model": "rnn", "modelFile": "zero.rnnn"}]"#
        try make("click.wav", expression: "if(eq(n,60000),0.5,0)")
        for rate in [48000, 44100] {
            let plain = try render(try project("click-\(rate)", source: "click.wav", sampleRate: rate, effects: "[]"))
            let denoised = try render(try project("click-rnn-\(rate)", source: "click.wav", sampleRate: rate, effects: effect))
            #expect(denoised.count == plain.count)
            func loudest(_ samples: [Float]) -> Int { samples.indices.max { abs(samples[$0]) < abs(samples[$1]) } ?? -1 }
            #expect(loudest(denoised) == loudest(plain), "\(rate) Hz: the click at \(loudest(plain)) comes out at \(loudest(denoised))")
            #expect(abs(denoised[loudest(plain)]) > 0.05, "\(rate) Hz: the click is lost")
        }
        let rendered = try render(try project("rnn", effects: effect))
        let reference = try samples(folder.file("mono.wav").path, filters: "arnndn=m=\(folder.file("zero.rnnn").path)")
        let input = try samples(folder.file("mono.wav").path)
        let delay = 480
        #expect(rendered.count == input.count)
        let difference = Self.relativeDifference(rendered, reference, lag: delay, count: input.count - delay)
        #expect(difference <= -60, "reel differs from the CLI's arnndn \(delay) samples on by \(difference) dB")
        let change = Self.relativeDifference(input, reference, lag: delay, count: input.count - delay)
        #expect(change > -40, "arnndn changes the input by only \(change) dB")
    }

    @Test func aRangeRenderHearsTheStateOfTheWholeRender() throws {
        let chain = #"[{"type": "compressor", "threshold": -30, "ratio": 8, "release": 1000}, {"type": "denoise", "amount": 20}]"#
        let path = try project("ranged", effects: chain, outputEffects: #"[{"type": "limiter", "ceiling": -10}]"#)
        let whole = try render(path)
        let part = try render(path, ["--range", "1.5..3"])
        let first = Self.rate * 3 / 2
        #expect(part.count == Self.rate * 3 / 2)
        #expect(part == Array(whole[first..<(first + part.count)]), "the range's samples differ from the whole render's")
    }

    @Test func outputEffectsRunBeforeLoudnessNormalisation() throws {
        let url = folder.file("mastered.json")
        try """
            { "reel": 1,
              "output": { "path": "mastered.wav", "size": [64, 36], "frameRate": 30, "end": 4,
                          "audio": { "sampleRate": \(Self.rate), "channels": 1,
                                     "effects": [{"type": "compressor", "threshold": -30, "ratio": 6}],
                                     "loudness": { "integrated": -16, "truePeak": -1 } } },
              "assets": { "sound": { "path": "mono.wav" } },
              "timeline": { "clips": [], "audio": [ { "id": "sound", "asset": "sound" } ] } }
            """.write(to: url, atomically: true, encoding: .utf8)
        let result = try run(reel.path, ["render", url.path, "--force", "-q"], in: folder.url)
        #expect(result.status == 0, "\(result.stderrText)")
        let measured = try LoudnessTests.ffmpegLoudness(folder.file("mastered.wav").path)
        #expect(abs(measured.integrated + 16) <= 0.5, "\(measured)")
        #expect(measured.truePeak <= -0.9, "\(measured)")
    }

    /// room.wav: noise alone for the first second (hiss and hum), then speech-like syllables over it; its path.
    func makeRoom() throws -> String {
        try make("room.wav", expression: "0.03*(random(0)*2-1)+0.04*sin(2*PI*120*t)+0.02*sin(2*PI*3000*t)"
                                       + "+gte(t,1)*0.3*(random(1)*2-1)*max(0,sin(2*PI*3.3*t))")
        return folder.file("room.wav").path
    }

    /// The profile the CLI's afftdn with `options` learns from `file`'s stretch [0.2 s, 0.9 s) as reel samples it, as
    /// `bn`'s `|`-separated value: samples [9600, 43200) are 56 blocks of 600; the fourth completes the first
    /// 2400-sample window, and `sn stop` comes before the last whole block.
    func learnedBands(_ file: String, options: String) throws -> String {
        let commands = folder.file("learn.cmd")
        try "0.0375 afftdn sn start;\n0.6875 afftdn sn stop;\n".write(to: commands, atomically: true, encoding: .utf8)
        let learning = try run("ffmpeg", ["-v", "info", "-i", file, "-af",
                                          "atrim=start_sample=9600:end_sample=43200,asetpts=PTS-STARTPTS,asetnsamples=n=600,"
                                          + "asendcmd=f=\(commands.path),afftdn=\(options)", "-f", "null", "-"])
        #expect(learning.status == 0, "\(learning.stderrText)")
        let printed = learning.stderrText.components(separatedBy: "bn=").dropFirst().first?.prefix { $0 != "\n" } ?? ""
        let bands = printed.split(separator: " ")
        #expect(bands.count == 15, "afftdn printed \(learning.stderrText)")
        return bands.joined(separator: "|")
    }

    /// `learnFrom`: the profile afftdn learns from the named stretch applies over the whole effect (docs/effects.md,
    /// "A noise profile learned from the recording"). The reference is the CLI in two steps: afftdn sampling the
    /// same whole windows of the stretch (`asendcmd` before the block completing the first window and before the
    /// last whole block) prints `bn=…`; `afftdn=…:nt=custom:bn=…` on the whole file is what reel must give.
    @Test func aLearnedNoiseProfileIsAfftdnsOwnOverTheWholeEffect() throws {
        let room = try makeRoom()
        let rendered = try render(try project("learned", source: "room.wav",
                                               effects: #"[{"type": "denoise", "amount": 20, "learnFrom": [0.2, 0.9]}]"#))
        let learned = "afftdn=nr=20:nf=-50:nt=custom:bn=" + (try learnedBands(room, options: "nr=20:nf=-50"))
        let reference = try samples(room, filters: learned)
        let white = try samples(room, filters: "afftdn=nr=20:nf=-50")
        let count = rendered.count - 1200
        let difference = Self.relativeDifference(rendered, reference, lag: 1200, count: count)
        #expect(difference <= -60, "reel differs from `ffmpeg -af \(learned)` by \(difference) dB")
        // Learning matters: the white-noise profile gives another sound in the noise before the speech (−38 dB
        // from the learned one when measured), far from the −60 dB the comparison above holds reel to.
        let other = Self.relativeDifference(white, reference, offset: 1200, count: Self.rate - 2400)
        #expect(other > -45, "the learned profile changes the noise by only \(other) dB")
        // Stereo: one profile, the mean of the channels' (here the same noise in both channels, so the same bands).
        _ = try run("ffmpeg", ["-v", "error", "-y", "-i", room, "-af", "pan=stereo|c0=c0|c1=c0", "-c:a", "pcm_f32le", folder.file("room2.wav").path])
        let stereo = try render(try project("learned2", source: "room2.wav", channels: 2,
                                             effects: #"[{"type": "denoise", "amount": 20, "learnFrom": [0.2, 0.9]}]"#))
        let left = stride(from: 0, to: stereo.count, by: 2).map { stereo[$0] }
        #expect(Self.relativeDifference(left, reference, lag: 1200, count: count) <= -60)
    }

    /// A video overlay's `audioEffects` run on its sound alone, from the overlay's start, as the CLI's filter on that
    /// stretch of the render without them; the sound before and after the overlay is untouched.
    @Test func aVideoOverlaysSoundTakesItsOwnEffects() throws {
        let movie = folder.file("talking.mkv").path
        let made = try run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=red:s=64x36:r=30:d=2",
                                      "-i", folder.file("chirp.wav").path, "-t", "2", "-c:v", "libx264", "-c:a", "pcm_f32le", movie])
        #expect(made.status == 0, "\(made.stderrText)")
        func overlaid(_ name: String, _ effects: String) throws -> [Float] {
            let url = folder.file(name + ".json")
            try """
                { "reel": 1,
                  "output": { "path": "\(name).wav", "size": [64, 36], "frameRate": 30, "end": 4,
                              "audio": { "sampleRate": \(Self.rate), "channels": 1 } },
                  "assets": { "bg": { "color": "#000000" }, "talk": { "path": "talking.mkv" } },
                  "timeline": { "clips": [ { "asset": "bg", "duration": 4 } ],
                                "overlays": [ { "video": "talk", "start": 1, "size": [32, 18], "audioEffects": \(effects) } ] } }
                """.write(to: url, atomically: true, encoding: .utf8)
            return try render(url.path)
        }
        let plain = try overlaid("overlayPlain", "[]")
        let effected = try overlaid("overlayHighpass", #"[{"type": "highpass", "frequency": 1000}]"#)
        let (start, end) = (Self.rate, 3 * Self.rate)
        #expect(effected.count == 4 * Self.rate && plain.count == effected.count)
        #expect(Array(effected[..<start]) == Array(plain[..<start]) && Array(effected[end...]) == Array(plain[end...]))
        let reference = try samples(folder.file("overlayPlain.wav").path,
                                    filters: "atrim=start_sample=\(start):end_sample=\(end),asetpts=N/SR/TB,highpass=f=1000")
        let difference = Self.relativeDifference(Array(effected[start..<end]), reference)
        #expect(difference <= -60, "the overlay's sound differs from the CLI's highpass by \(difference) dB")
        #expect(Self.relativeDifference(Array(plain[start..<end]), reference) > -40, "the highpass changes nothing")
    }

    @Test func errorsNameTheJSONPathAndNothingIsWritten() throws {
        let cases: [(effect: String, message: String, status: Int32)] = [
            (#"{"type": "reverb"}"#, #"$.timeline.audio[0].effects[0].type: unknown audio effect type "reverb""#, 65),
            (#"{"type": "limiter", "ceiling": -30}"#, "$.timeline.audio[0].effects[0].ceiling: ceiling -30 is outside -24…0 dBFS", 65),
            (#"{"type": "denoise", "model": "rnn", "modelFile": "missing.rnnn"}"#, "$.timeline.audio[0].effects[0].modelFile", 66),
            (#"{"type": "denoise", "model": "rnn", "modelFile": "mono.wav"}"#, "is not an rnnoise model", 65),
            (#"{"type": "denoise", "learnFrom": [1, 1.05]}"#, "$.timeline.audio[0].effects[0].learnFrom[1]: learnFrom must end at least 0.1 s after it starts", 65),
            (#"{"type": "denoise", "learnFrom": [1]}"#, "$.timeline.audio[0].effects[0].learnFrom: learnFrom needs two times", 65),
            (#"{"type": "denoise", "model": "nlm", "learnFrom": [0, 1]}"#, #"$.timeline.audio[0].effects[0].learnFrom: "learnFrom" does not apply"#, 65),
            (#"{"type": "denoise", "learnFrom": [3.5, 4.5]}"#, "$.timeline.audio[0].effects[0].learnFrom: learnFrom ends at 4.5 s, after the movie's end at 4 s", 65),
        ]
        for (effect, message, status) in cases {
            let path = try project("refused", effects: "[\(effect)]")
            try? FileManager.default.removeItem(at: folder.file("refused.wav"))
            let result = try run(reel.path, ["render", path, "-o", folder.file("refused.wav").path, "-q"])
            #expect(result.status == status, "\(effect): \(result.status) \(result.stderrText)")
            #expect(result.stderrText.contains(message), "\(effect): \(result.stderrText)")
            #expect(!FileManager.default.fileExists(atPath: folder.file("refused.wav").path))
        }
    }

    /// The voice preset on real, noisy outdoor speech: sample peaks at the limiter's ceiling at most and a smaller
    /// loudness range, read by ffmpeg (docs/effects.md, "The voice preset", gives the figures).
    @Test(.enabled(if: Workplace.media.isPresent, Comment(rawValue: Workplace.media.absence)))
    func theVoicePresetOnRealSpeech() throws {
        let source = Workplace.media.file("jfk_speech_11s.flac").path
        #expect(FileManager.default.fileExists(atPath: source), "\(source) is missing from the shared media folder")
        let url = folder.file("jfk.json")
        try """
            { "reel": 1,
              "output": { "path": "jfk.wav", "size": [64, 36], "frameRate": 30, "end": 11,
                          "audio": { "sampleRate": \(Self.rate), "channels": 1 } },
              "assets": { "speech": { "path": "\(source)" } },
              "timeline": { "clips": [], "audio": [ { "id": "speech", "asset": "speech", "effects": [{"preset": "voice"}] } ] } }
            """.write(to: url, atomically: true, encoding: .utf8)
        let result = try run(reel.path, ["render", url.path, "--force", "-q"], in: folder.url)
        #expect(result.status == 0, "\(result.stderrText)")
        let after = try samples(folder.file("jfk.wav").path)
        let peak = after.map { abs($0) }.max() ?? 1
        #expect(20 * log10(Double(peak)) <= -0.95, "sample peak \(20 * log10(Double(peak))) dBFS above the −1 dBFS ceiling")
        let before = try LoudnessTests.ffmpegLoudness(source)
        let measured = try LoudnessTests.ffmpegLoudness(folder.file("jfk.wav").path)
        #expect(measured.range < before.range, "loudness range \(before.range) → \(measured.range) LU")
    }
}
