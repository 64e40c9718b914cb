import Foundation
import ReelTime

/// One audio effect (docs/effects.md, "Audio effects"): a libavfilter filter run on float samples at the mix's rate,
/// on a clip's sound (`audioEffects`), an audio track (`effects` of a `timeline.audio` entry or of an audio mix
/// input) or the whole mix (`output.audio.effects`).
///
/// On a clip, `timeRange` is in seconds from the clip's start on the timeline; everywhere else, and on every audio
/// mix input once compiled, it is in composition seconds. Outside it the sound passes untouched, and the filter
/// sees nothing of it: its state starts fresh at the range's first sample.
public struct AudioEffect: Sendable, Hashable {
    /// What the effect does.
    public var type: AudioEffectType
    /// Whose parameter rows of `AudioEffectParameter.table` apply: the type, or for `denoise` its model.
    public var owner: AudioParameterOwner
    /// Every numeric parameter of the owner, in the table's units, the ones left out at their defaults.
    public var values: [String: Double]
    /// `eq`'s bands, in order.
    public var bands: [EQBand] = []
    /// `denoise` with `model: "rnn"`: the rnnoise model file as written (relative to the project's folder).
    public var modelFile: String?
    /// `denoise` with `model: "fft"`: the stretch afftdn learns its noise profile from (`"learnFrom": [start, end]`),
    /// in the same time frame as `timeRange`; the profile then applies over the effect's whole range. nil: afftdn's
    /// built-in white-noise profile.
    public var learnFrom: TimeRange?
    /// The keyed parameters (docs/effects.md, "Keyed audio parameters"): key lists in the table's units and the
    /// effect's time frame, by key. `values` holds each one's first key's value, which holds before that key.
    public var keys: [String: KeyList<Double>] = [:]
    /// When it applies, half-open; nil: always.
    public var timeRange: TimeRange?
    /// Where it was written (`$.timeline.clips[0].audioEffects[1]`).
    public var path: JSONPath

    /// An effect of `owner`'s type with `values` (defaults are not filled in here).
    public init(owner: AudioParameterOwner, values: [String: Double], timeRange: TimeRange? = nil, path: JSONPath = .root) {
        self.type = owner.effectType
        self.owner = owner
        self.values = values
        self.timeRange = timeRange
        self.path = path
    }

    /// The shortest `learnFrom`: two of afftdn's 50 ms windows.
    public static let shortestLearning = Time(value: 1, timescale: 10)

    /// The value of parameter `key`: written or its default.
    public func value(_ key: String) -> Double {
        values[key] ?? AudioEffectParameter.row(owner, key)?.defaultValue ?? 0
    }
}

/// The `"type"` of an audio effect.
public enum AudioEffectType: String, Sendable, Hashable, CaseIterable {
    case highpass, lowpass, eq, compressor, limiter, gate, deesser, denoise, gain, pan
}

/// `denoise`'s `"model"`: which libavfilter denoiser runs.
public enum DenoiseModel: String, Sendable, Hashable, CaseIterable {
    /// Spectral subtraction in the FFT domain (`afftdn`).
    case fft
    /// Non-local means (`anlmdn`).
    case nlm
    /// A recurrent network, rnnoise (`arnndn`), with the model file `modelFile`.
    case rnn
}

/// The `"type"` of one band of an `eq` effect.
public enum EQBandType: String, Sendable, Hashable, CaseIterable {
    /// A bell around `frequency` (`equalizer`).
    case peak
    /// A shelf below `frequency` (`bass`).
    case lowShelf
    /// A shelf above `frequency` (`treble`).
    case highShelf
}

/// One band of an `eq` effect: its type and every parameter of it (defaults filled in).
public struct EQBand: Sendable, Hashable {
    /// The band's shape.
    public var type: EQBandType
    /// `frequency` (Hz), `gain` (dB) and `q`.
    public var values: [String: Double]
    /// The keyed ones, as `AudioEffect.keys`.
    public var keys: [String: KeyList<Double>] = [:]

    /// A band.
    public init(type: EQBandType, values: [String: Double], keys: [String: KeyList<Double>] = [:]) {
        self.type = type
        self.values = values
        self.keys = keys
    }
}

/// Whose parameters a row of `AudioEffectParameter.table` describes.
public enum AudioParameterOwner: Sendable, Hashable {
    /// An effect type (every type but `denoise`).
    case effect(AudioEffectType)
    /// `denoise` with one of its models.
    case denoise(DenoiseModel)
    /// A band of `eq`.
    case band(EQBandType)

    /// The effect type the owner belongs to.
    public var effectType: AudioEffectType {
        switch self {
        case .effect(let type): type
        case .denoise: .denoise
        case .band: .eq
        }
    }

    /// How docs and hints name it: `compressor`, `denoise (fft)`, `eq band (peak)`.
    public var name: String {
        switch self {
        case .effect(let type): type.rawValue
        case .denoise(let model): "denoise (\(model.rawValue))"
        case .band(let type): "eq band (\(type.rawValue))"
        }
    }
}

/// How a parameter's value in reel's units becomes its libavfilter option's value.
public enum AudioOptionConversion: Sendable, Hashable {
    /// The same number.
    case same
    /// Decibels to a linear factor: 10^(dB / 20).
    case decibelsToLinear

    /// `value` converted.
    public func apply(_ value: Double) -> Double {
        switch self {
        case .same: value
        case .decibelsToLinear: pow(10, value / 20)
        }
    }

    /// A filter default converted back into reel's units.
    public func invert(_ value: Double) -> Double {
        switch self {
        case .same: value
        case .decibelsToLinear: 20 * log10(value)
        }
    }
}

/// Whether an audio effect's parameter may be a key list, and how the renderer moves it (docs/effects.md, "Keyed
/// audio parameters").
public enum AudioParameterKeying: Sendable, Hashable {
    /// The filter takes the option as a runtime command: the renderer sends the keys' value before every block of at
    /// most `AudioEffectParameter.keyBlock` samples (and at every key's start and end), when it changed.
    case commands
    /// reel applies it to every sample itself (a gain, a pan's two gains).
    case samples
    /// Not keyable, for the reason given (shown under the error).
    case fixed(String)

    /// Whether a key list is allowed.
    public var isAnimatable: Bool {
        if case .fixed = self { return false }
        return true
    }
}

/// One numeric parameter of an audio effect, declared once: the reader checks its range and fills its default, the
/// schema and docs/format.md describe it, and the renderer hands it to the libavfilter option named.
public struct AudioEffectParameter: Sendable {
    /// The key as written in JSON.
    public let key: String
    /// Whose parameter it is.
    public let owner: AudioParameterOwner
    /// The values allowed, in `unit`.
    public let range: ClosedRange<Double>
    /// What holds when it is left out, in `unit` (the filter's own default converted); nil: required.
    public let defaultValue: Double?
    /// The unit, as docs say it (`Hz`, `dB`, `ms`, or empty for a plain number).
    public let unit: String
    /// What it does, for hints and docs.
    public let meaning: String
    /// The libavfilter option it sets; nil when the renderer uses it otherwise (a slope picks how many filters run).
    public let option: String?
    /// How the value becomes the option's value.
    public let conversion: AudioOptionConversion
    /// Whether it may be keyed, and how.
    public let keying: AudioParameterKeying
    /// Whether it may be a key list (`keying` is not `.fixed`).
    public var animatable: Bool { keying.isAnimatable }

    /// The longest run of samples a keyed parameter sent as commands holds one value: 256 samples, 5.3 ms at
    /// 48 kHz (docs/decisions.md, "Keyed audio parameters").
    public static let keyBlock = 256

    init(_ key: String, _ owner: AudioParameterOwner, _ range: ClosedRange<Double>, default defaultValue: Double?,
         _ unit: String, _ meaning: String, option: String?, _ conversion: AudioOptionConversion = .same,
         keying: AudioParameterKeying = .commands) {
        self.key = key
        self.owner = owner
        self.range = range
        self.defaultValue = defaultValue
        self.unit = unit
        self.meaning = meaning
        self.option = option
        self.conversion = conversion
        self.keying = keying
    }

    /// The row of `owner`'s parameter `key`, nil when it has none.
    public static func row(_ owner: AudioParameterOwner, _ key: String) -> AudioEffectParameter? {
        table.first { $0.owner == owner && $0.key == key }
    }

    /// Every row of `owner`, in table order.
    public static func rows(_ owner: AudioParameterOwner) -> [AudioEffectParameter] {
        table.filter { $0.owner == owner }
    }

    /// 20·log10 of a libavfilter default that is a linear factor, rounded to 0.01 dB so that documents show it
    /// plainly (the filter then receives 10^(that / 20), within 0.12 % of its own default).
    private static func dB(_ linear: Double) -> Double { (20 * log10(linear) * 100).rounded() / 100 }

    /// Every parameter of every audio effect (libavfilter 5.1's defaults and ranges, in reel's units).
    public static let table: [AudioEffectParameter] = [
        .init("frequency", .effect(.highpass), 1...20000, default: 3000, "Hz", "the cut-off frequency", option: "f"),
        .init("slope", .effect(.highpass), 12...24, default: 12, "dB per octave",
              "12 (one two-pole filter) or 24 (two in series)", option: nil, keying: slopeFixed),
        .init("frequency", .effect(.lowpass), 1...20000, default: 500, "Hz", "the cut-off frequency", option: "f"),
        .init("slope", .effect(.lowpass), 12...24, default: 12, "dB per octave",
              "12 (one two-pole filter) or 24 (two in series)", option: nil, keying: slopeFixed),
        .init("frequency", .band(.peak), 1...20000, default: nil, "Hz", "the band's centre", option: "f"),
        .init("gain", .band(.peak), -30...30, default: 0, "dB", "the boost (or cut, below 0) at the centre", option: "g"),
        .init("q", .band(.peak), 0.1...100, default: 1, "", "the quality factor: higher is narrower", option: "w"),
        .init("frequency", .band(.lowShelf), 1...20000, default: 100, "Hz", "the shelf's corner", option: "f"),
        .init("gain", .band(.lowShelf), -30...30, default: 0, "dB", "the boost (or cut) below the corner", option: "g"),
        .init("q", .band(.lowShelf), 0.1...100, default: 0.5, "", "the shelf's steepness", option: "w"),
        .init("frequency", .band(.highShelf), 1...20000, default: 3000, "Hz", "the shelf's corner", option: "f"),
        .init("gain", .band(.highShelf), -30...30, default: 0, "dB", "the boost (or cut) above the corner", option: "g"),
        .init("q", .band(.highShelf), 0.1...100, default: 0.5, "", "the shelf's steepness", option: "w"),
        .init("threshold", .effect(.compressor), -60...0, default: dB(0.125), "dB",
              "the level above which gain is reduced", option: "threshold", .decibelsToLinear),
        .init("ratio", .effect(.compressor), 1...20, default: 2, "", "the reduction above the threshold (3 is 3:1)",
              option: "ratio"),
        .init("attack", .effect(.compressor), 0.01...2000, default: 20, "ms", "how fast reduction starts", option: "attack"),
        .init("release", .effect(.compressor), 0.01...9000, default: 250, "ms", "how fast reduction ends", option: "release"),
        .init("knee", .effect(.compressor), 0...18, default: dB(2.82843), "dB", "the width of the soft knee around the threshold",
              option: "knee", .decibelsToLinear),
        .init("makeup", .effect(.compressor), 0...36, default: 0, "dB", "gain added after compression", option: "makeup",
              .decibelsToLinear),
        .init("ceiling", .effect(.limiter), -24...0, default: 0, "dBFS", "the highest sample level let through",
              option: "limit", .decibelsToLinear),
        .init("attack", .effect(.limiter), 0.1...80, default: 5, "ms", "the look-ahead (compensated: the sound is not delayed)",
              option: "attack", keying: startOnly("alimiter")),
        .init("release", .effect(.limiter), 1...8000, default: 50, "ms", "how fast reduction ends", option: "release",
              keying: startOnly("alimiter")),
        .init("threshold", .effect(.gate), -90...0, default: dB(0.125), "dB", "the level below which gain is reduced",
              option: "threshold", .decibelsToLinear, keying: startOnly("agate")),
        .init("ratio", .effect(.gate), 1...9000, default: 2, "", "the expansion below the threshold", option: "ratio"),
        .init("attack", .effect(.gate), 0.01...9000, default: 20, "ms", "how fast the gate opens", option: "attack",
              keying: startOnly("agate")),
        .init("release", .effect(.gate), 0.01...9000, default: 250, "ms", "how fast the gate closes", option: "release",
              keying: startOnly("agate")),
        .init("amount", .effect(.deesser), 0...1, default: 0, "", "the de-essing intensity (0 does nothing)", option: "i",
              keying: deesserFixed),
        .init("frequency", .effect(.deesser), 0...1, default: 0.5, "",
              "how much of the original high frequencies to keep (libavfilter's deesser has no frequency in Hz)", option: "f",
              keying: deesserFixed),
        .init("amount", .denoise(.fft), 0.01...97, default: 12, "dB", "the noise reduction", option: "nr"),
        .init("floor", .denoise(.fft), -80...(-20), default: -50, "dB", "the noise floor", option: "nf"),
        .init("strength", .denoise(.nlm), 0.00001...10000, default: 0.00001, "", "the denoising strength", option: "s"),
        .init("mix", .denoise(.rnn), -1...1, default: 1, "", "how much of the denoised sound to keep (1: all)", option: "mix",
              keying: .fixed("no rnnoise model is at hand to check that arnndn keeps its state across a runtime command; split the effect with start and duration")),
        .init("gain", .effect(.gain), -96...48, default: 0, "dB", "the gain", option: "volume", keying: .samples),
        .init("position", .effect(.pan), -1...1, default: 0, "",
              "the balance: −1 left only, 0 unchanged, 1 right only (stereo mixes; a mono mix is unchanged)", option: nil,
              keying: .samples),
    ]

    private static let slopeFixed = AudioParameterKeying.fixed("the slope picks how many filters run (12: one, 24: two in series); write 12 or 24")
    private static let deesserFixed = AudioParameterKeying.fixed("libavfilter's deesser takes no runtime commands (FFmpeg 5.1); split the effect with start and duration")

    /// A parameter `filter` reads only when it starts: FFmpeg 5.1 accepts the runtime command but does not recompute
    /// what it derived from the option (measured: the command at 0 s does not give the option's sound).
    private static func startOnly(_ filter: String) -> AudioParameterKeying {
        .fixed("\(filter) reads it only when it starts: FFmpeg 5.1 takes the runtime command but does not recompute what it derived from it; split the effect with start and duration")
    }

    /// The keys an effect object may have besides `type`, `preset`, `start` and `duration`, per owner: its numeric
    /// parameters and the non-numeric ones (`bands`, `model`, `modelFile`).
    public static func keys(of type: AudioEffectType, model: DenoiseModel? = nil) -> [String] {
        switch type {
        case .eq: return ["bands"]
        case .denoise:
            let extra = switch model ?? .fft {
            case .fft: ["learnFrom"]
            case .nlm: [String]()
            case .rnn: ["modelFile"]
            }
            return ["model"] + rows(.denoise(model ?? .fft)).map(\.key) + extra
        default: return rows(.effect(type)).map(\.key)
        }
    }
}

/// `"preset"` on an audio effect: a named chain that expands to effects of the table.
public enum AudioEffectPreset: String, Sendable, Hashable, CaseIterable {
    /// The spoken-word chain (docs/effects.md, "The voice preset").
    case voice

    /// The chain, owner by owner with the values it sets (the rest at their defaults).
    public var chain: [(owner: AudioParameterOwner, values: [String: Double])] {
        switch self {
        case .voice:
            [
                (.effect(.highpass), ["frequency": 80, "slope": 12]),
                (.denoise(.fft), ["amount": 10, "floor": -50]),
                (.effect(.compressor), ["threshold": -20, "ratio": 3, "attack": 10, "release": 200, "knee": 6, "makeup": 3]),
                (.effect(.deesser), ["amount": 0.5, "frequency": 0.5]),
                (.effect(.limiter), ["ceiling": -1, "attack": 5, "release": 50]),
            ]
        }
    }
}
