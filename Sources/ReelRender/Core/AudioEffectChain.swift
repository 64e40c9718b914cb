import Foundation
import ReelMedia
import ReelModel
import ReelTime

/// Audio effects (docs/effects.md, "Audio effects") run on one stream of sound — a track's, or the whole mix — on the
/// mix's sample grid: each effect is a libavfilter graph (`AudioFilterGraph`) fed exactly the samples of its time
/// range, in order, so that it changes nothing before its first sample and nothing after its last.
///
/// Every graph gives back as many samples as it was given, each aligned with the input sample it came from: filters
/// that delay their output (`afftdn`, `anlmdn`, `arnndn`) are wrapped in `apad=pad_len=L,…,atrim=start_sample=L` with
/// their latency L, and `alimiter` compensates its own look-ahead (`latency=1`). A stage therefore reads its input ahead
/// of its output by the filter's hold-back, and the chain hands out sample K of the effected stream when asked for
/// sample K.
///
/// The chain is read in order. A read that does not continue the last one (the first read of a `--range` render, of
/// a chunk, or a seek) rebuilds it and runs it from up to `prerollSeconds` earlier (from the start of any effect
/// that began within that stretch), discarding that sound, so that effects with memory (compressor, gate, limiter,
/// denoise) start with the state a render from the beginning would have: exactly when the effect began within the
/// pre-roll, otherwise with state built from the last `prerollSeconds` of sound.
final class AudioEffectChain {
    /// How far before a read that starts mid-stream the chain begins running: state older than this is not kept.
    static let prerollSeconds = 30

    /// Fills `count` samples from composition sample `from` into the buffers' first samples: the stream the chain
    /// changes, read in order.
    typealias Source = (_ from: Int64, _ count: Int, _ into: SampleBuffers) throws(RenderError) -> Void

    private let effects: [AudioEffect]
    private let sampleRate: Int
    private let channels: Int
    private let baseDirectory: String
    private let source: Source
    /// The last stage, and the composition sample it hands out next.
    private var last: (any SoundStage)?
    private var position: Int64 = -1
    /// Noise profiles learned, by effect index (`learnFrom`).
    private var learnedProfiles: [Int: [Double]] = [:]

    /// A chain of `effects` (in composition time) over `source`, at `sampleRate` Hz in `channels` channels; relative
    /// model files are found from `baseDirectory`.
    init(effects: [AudioEffect], sampleRate: Int, channels: Int, baseDirectory: String, source: @escaping Source) {
        self.effects = effects
        self.sampleRate = sampleRate
        self.channels = channels
        self.baseDirectory = baseDirectory
        self.source = source
    }

    /// Writes the effected composition samples [from, from + count) into `output`'s first `count` samples.
    func read(from: Int64, count: Int, into output: SampleBuffers) throws(RenderError) {
        if last == nil || from != position { try rebuild(at: from) }
        guard let last else { return }
        try last.read(count: count, into: output.planes)
        position += Int64(count)
    }

    /// Makes the stages afresh to hand out sample `start` next, running them over the pre-roll first.
    private func rebuild(at start: Int64) throws(RenderError) {
        let rate = Int64(sampleRate)
        let ranges = try effects.map { effect throws(RenderError) in try sampleRange(effect) }
        let begun = ranges.filter { $0.lowerBound < start && $0.upperBound > start }.map(\.lowerBound)
        let first = begun.isEmpty ? start : max(0, start - Int64(Self.prerollSeconds) * rate, begun.min() ?? start)
        var stage: any SoundStage = SourceStage(position: first, channels: channels, source: source)
        for (index, (effect, range)) in zip(effects, ranges).enumerated() {
            let cut = max(range.lowerBound, first)..<max(range.upperBound, max(range.lowerBound, first))
            guard !cut.isEmpty else { continue }
            if let gains = Self.sampleGains(effect, channels: channels) {
                stage = SampleKeysStage(upstream: stage, position: first, range: cut, sampleRate: sampleRate, gains: gains)
                continue
            }
            let (filters, latency) = try Self.filters(effect, sampleRate: sampleRate, channels: channels, baseDirectory: baseDirectory,
                                                      noiseProfile: try learnedProfile(ofEffectAt: index))
            guard !filters.isEmpty else { continue }
            // The compensation wrapper puts apad before the effect's own filters.
            let keyed = Self.keyedOptions(effect).map { option in
                var moved = option
                moved.filters = option.filters.map { $0 + (latency > 0 ? 1 : 0) }
                return moved
            }
            let schedule = try KeySchedule(options: keyed, anchor: range.lowerBound, sampleRate: sampleRate, path: effect.path)
            stage = FilterStage(upstream: stage, position: first, range: cut, channels: channels, schedule: schedule) { () throws(RenderError) in
                do throws(MediaError) {
                    return try AudioFilterGraph(filters: Self.compensated(filters, latency: latency),
                                                sampleRate: self.sampleRate, channels: self.channels)
                } catch {
                    throw RenderError(.invalid, "\(effect.path): \(error.message)")
                }
            }
        }
        last = stage
        position = start
        let discard = SampleBuffers(channels: channels, capacity: AudioMixer.maximumChunk)
        var remaining = start - first
        while remaining > 0 {
            let count = Int(min(remaining, Int64(AudioMixer.maximumChunk)))
            try stage.read(count: count, into: discard.planes)
            remaining -= Int64(count)
        }
    }

    /// The noise profile a denoise with `learnFrom` learned (nil for any other effect): afftdn's sampling of the
    /// stretch as the effects before it in the chain hand it out (their keys in force), learned once per chain. The
    /// sampler runs at the denoise's own first values of a keyed `amount`/`floor`: afftdn learns its input's bands
    /// before reducing anything, so the profile is the same at any `nr` and `nf` (docs/effects.md, "A noise profile
    /// learned from the recording").
    private func learnedProfile(ofEffectAt index: Int) throws(RenderError) -> [Double]? {
        if let known = learnedProfiles[index] { return known }
        let effect = effects[index]
        guard let stretch = effect.learnFrom, effect.owner == .denoise(.fft) else { return nil }
        let rate = Int64(sampleRate)
        let first: Int64, end: Int64
        do {
            first = try stretch.start.count(atRate: rate, rounding: .nearest)
            end = try stretch.end.count(atRate: rate, rounding: .nearest)
        } catch {
            throw RenderError(.invalid, "\(effect.path.key("learnFrom")): the stretch cannot be placed on the \(sampleRate) Hz sample grid")
        }
        let upstream = AudioEffectChain(effects: Array(effects[..<index]), sampleRate: sampleRate, channels: channels,
                                        baseDirectory: baseDirectory, source: source)
        let buffers = SampleBuffers(channels: channels, capacity: AudioMixer.maximumChunk)
        func learning<T>(_ step: () throws(MediaError) -> T) throws(RenderError) -> T {
            do { return try step() } catch { throw RenderError(.invalid, "\(effect.path.key("learnFrom")): \(error.message)") }
        }
        let sampler = try learning { () throws(MediaError) in
            try NoiseSampler(options: Self.options(effect.owner, effect.value), sampleRate: sampleRate, channels: channels,
                             sampleCount: Int(end - first))
        }
        var position = first
        while position < end {
            let count = Int(min(Int64(AudioMixer.maximumChunk), end - position))
            try upstream.read(from: position, count: count, into: buffers)
            try learning { () throws(MediaError) in try sampler.push(buffers.readOnly, count: count) }
            position += Int64(count)
        }
        let profile = try learning { () throws(MediaError) in try sampler.profile() }
        learnedProfiles[index] = profile
        return profile
    }

    /// The composition samples [first, end) an effect covers: its range with both ends rounded to the nearest
    /// sample, or everything.
    private func sampleRange(_ effect: AudioEffect) throws(RenderError) -> Range<Int64> {
        guard let range = effect.timeRange else { return 0..<Int64.max }
        do {
            let rate = Int64(sampleRate)
            let first = try range.start.count(atRate: rate, rounding: .nearest)
            let end = range.duration >= Compiler.maximumDuration
                ? Int64.max : try range.end.count(atRate: rate, rounding: .nearest)
            return first..<max(first, end)
        } catch {
            throw RenderError(.invalid, "\(effect.path): the effect's time range cannot be placed on the \(sampleRate) Hz sample grid")
        }
    }

    /// `filters` made count-preserving and aligned when they delay their output by `latency` samples.
    static func compensated(_ filters: [(name: String, arguments: String)], latency: Int) -> [(name: String, arguments: String)] {
        guard latency > 0 else { return filters }
        return [("apad", "pad_len=\(latency)")] + filters + [("atrim", "start_sample=\(latency)")]
    }

    /// The keyed parameters of `effect` its filters take as runtime commands (docs/effects.md, "Keyed audio
    /// parameters"): for each, the indices in `filters(effect, …)` of the filters it goes to (both filters of a 24 dB
    /// slope, the band's filter of an eq) and their option.
    static func keyedOptions(_ effect: AudioEffect) -> [KeyedOption] {
        func options(_ owner: AudioParameterOwner, _ keys: [String: KeyList<Double>], _ values: (String) -> Double,
                     filters: [Int]) -> [KeyedOption] {
            AudioEffectParameter.rows(owner).compactMap { row in
                guard row.keying == .commands, let option = row.option, let list = keys[row.key] else { return nil }
                return KeyedOption(filters: filters, option: option, keys: list, initial: values(row.key), conversion: row.conversion)
            }
        }
        switch effect.owner {
        case .effect(.eq):
            return effect.bands.enumerated().flatMap { index, band in
                options(.band(band.type), band.keys, { band.values[$0] ?? 0 }, filters: [index])
            }
        case .effect(.highpass), .effect(.lowpass):
            return options(effect.owner, effect.keys, effect.value, filters: effect.value("slope") == 24 ? [0, 1] : [0])
        default:
            return options(effect.owner, effect.keys, effect.value, filters: [0])
        }
    }

    /// The per-channel gain at a sample's composition time of a keyed `gain` or `pan` (applied by reel to every
    /// sample, docs/effects.md, "Keyed audio parameters"); nil for any other effect, or one not keyed (run by its
    /// filter), or a pan on a mix that is not stereo (unchanged).
    static func sampleGains(_ effect: AudioEffect, channels: Int) -> ((Time, inout [Float]) -> Void)? {
        switch effect.owner {
        case .effect(.gain):
            guard let keys = effect.keys["gain"] else { return nil }
            let initial = effect.value("gain")
            return { time, gains in
                let factor = Float(pow(10, keys.value(at: time, default: initial) / 20))
                for channel in gains.indices { gains[channel] = factor }
            }
        case .effect(.pan):
            guard let keys = effect.keys["position"], channels == 2 else { return nil }
            let initial = effect.value("position")
            return { time, gains in
                let position = keys.value(at: time, default: initial)
                gains[0] = Float(min(1, 1 - position))
                gains[1] = Float(min(1, 1 + position))
            }
        default:
            return nil
        }
    }

    /// The samples (at 48 kHz, the only rate it runs at) by which arnndn's output lags its input: one 480-sample frame.
    static let rnnoiseLatency = 480

    /// The libavfilter filters one effect runs (docs/effects.md, "Audio effects"), with the delay in samples they
    /// put on their output (0 when none or when the filter compensates it itself). Empty: nothing to run (a pan on
    /// a mono mix).
    static func filters(_ effect: AudioEffect, sampleRate: Int, channels: Int, baseDirectory: String,
                        noiseProfile: [Double]? = nil) throws(RenderError) -> (filters: [(name: String, arguments: String)], latency: Int) {
        let own = options(effect.owner, effect.value)
        switch effect.owner {
        case .effect(.highpass), .effect(.lowpass):
            let name = effect.type.rawValue
            return (Array(repeating: (name, own), count: effect.value("slope") == 24 ? 2 : 1), 0)
        case .effect(.eq):
            return (effect.bands.map { band in
                let name = switch band.type {
                case .peak: "equalizer"
                case .lowShelf: "bass"
                case .highShelf: "treble"
                }
                return (name, options(.band(band.type)) { band.values[$0] ?? AudioEffectParameter.row(.band(band.type), $0)?.defaultValue ?? 0 })
            }, 0)
        case .effect(.compressor): return ([("acompressor", own)], 0)
        case .effect(.limiter): return ([("alimiter", own + ":level=0:latency=1")], 0)
        case .effect(.gate): return ([("agate", own)], 0)
        case .effect(.deesser): return ([("deesser", own)], 0)
        case .effect(.gain): return ([("volume", "volume=\(number(effect.value("gain")))dB:precision=float")], 0)
        case .effect(.pan):
            guard channels == 2 else { return ([], 0) }
            let position = effect.value("position")
            return ([("pan", "stereo|c0=\(number(min(1, 1 - position)))*c0|c1=\(number(min(1, 1 + position)))*c1")], 0)
        case .denoise(.fft):
            // afftdn's output lags by two quarters of its window. A learned profile is its custom noise type.
            let learned = noiseProfile.map { ":nt=custom:bn=" + $0.map { String(format: "%.6f", $0) }.joined(separator: "|") } ?? ""
            return ([("afftdn", own + learned)], NoiseSampler.window(sampleRate: sampleRate) / 4 * 2)
        case .denoise(.nlm):
            // anlmdn lags by its patch (2 ms) and research (6 ms) radii, each rounded to samples.
            let latency = Int((Double(sampleRate) * 0.002).rounded()) + Int((Double(sampleRate) * 0.006).rounded())
            return ([("anlmdn", own)], latency)
        case .denoise(.rnn):
            guard let file = effect.modelFile else { return ([], 0) }
            let path = file.hasPrefix("/") ? file : URL(fileURLWithPath: baseDirectory).appendingPathComponent(file).path
            let escaped = path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ":", with: "\\:")
                .replacingOccurrences(of: "'", with: "\\'")
            // arnndn runs at 48 kHz only, in 480-sample frames, and hands each frame out one frame late: its output
            // lags by 480 samples at 48 kHz (10 ms; measured with a click, docs/effects.md). The lag is compensated
            // at 48 kHz, where it is whole, between explicit resamplers at other rates (which themselves add none).
            let filters = compensated([("arnndn", "m=\(escaped):" + own)], latency: Self.rnnoiseLatency)
            let rnnoiseRate = 48000
            guard sampleRate != rnnoiseRate else { return (filters, 0) }
            return ([("aresample", "\(rnnoiseRate)")] + filters + [("aresample", "\(sampleRate)")], 0)
        case .effect(.denoise), .band:
            return ([], 0)
        }
    }

    /// The libavfilter options of `owner`'s parameters, converted from reel's units: `nr=12:nf=-50`.
    private static func options(_ owner: AudioParameterOwner, _ values: (String) -> Double) -> String {
        AudioEffectParameter.rows(owner).compactMap { row in
            row.option.map { "\($0)=\(number(row.conversion.apply(values(row.key))))" }
        }.joined(separator: ":")
    }

    /// A number as libavfilter reads it back exactly (the shortest text that round-trips).
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}

/// One stage of a chain: hands out its stream's samples in order.
private protocol SoundStage: AnyObject {
    /// Writes the next `count` samples (≤ `AudioMixer.maximumChunk`) into the first samples of `planes`.
    func read(count: Int, into planes: [UnsafeMutablePointer<Float>]) throws(RenderError)
}

/// The sound the chain changes, read from its source.
private final class SourceStage: SoundStage {
    private var position: Int64
    private let buffers: SampleBuffers
    private let source: AudioEffectChain.Source

    init(position: Int64, channels: Int, source: @escaping AudioEffectChain.Source) {
        self.position = position
        self.source = source
        buffers = SampleBuffers(channels: channels, capacity: AudioMixer.maximumChunk)
    }

    func read(count: Int, into planes: [UnsafeMutablePointer<Float>]) throws(RenderError) {
        try source(position, count, buffers)
        for (plane, samples) in zip(planes, buffers.planes) { plane.update(from: samples, count: count) }
        position += Int64(count)
    }
}

/// One effect's filters over composition samples `range`: outside it the upstream sound passes untouched; inside
/// it, the graph (made when the range begins) gets every upstream sample in order and its output replaces them.
private final class FilterStage: SoundStage {
    private let upstream: any SoundStage
    private let range: Range<Int64>
    private let makeGraph: () throws(RenderError) -> AudioFilterGraph
    private var graph: AudioFilterGraph?
    /// The composition sample handed out next, and the next one fed to the graph (ahead of it inside the range).
    private var position: Int64
    private var fed: Int64
    private var inputFinished = false
    /// Graph output not yet handed out, per channel.
    private var pending: [[Float]]
    private let scratch: SampleBuffers
    /// The keyed parameters sent as commands, and what each was sent last (reset with each graph).
    private let schedule: KeySchedule
    private var sent: [Double]

    init(upstream: any SoundStage, position: Int64, range: Range<Int64>, channels: Int, schedule: KeySchedule,
         makeGraph: @escaping () throws(RenderError) -> AudioFilterGraph) {
        self.upstream = upstream
        self.range = range
        self.schedule = schedule
        sent = schedule.options.map(\.initial)
        self.makeGraph = makeGraph
        self.position = position
        fed = max(position, range.lowerBound)
        pending = Array(repeating: [], count: channels)
        scratch = SampleBuffers(channels: channels, capacity: AudioMixer.maximumChunk)
    }

    func read(count: Int, into planes: [UnsafeMutablePointer<Float>]) throws(RenderError) {
        var done = 0
        while done < count {
            let wanted = count - done
            if position < range.lowerBound || position >= range.upperBound {
                let run = position < range.lowerBound ? Int(min(Int64(wanted), range.lowerBound - position)) : wanted
                try upstream.read(count: run, into: planes.map { $0 + done })
                position += Int64(run)
                done += run
                continue
            }
            let run = Int(min(Int64(wanted), range.upperBound - position))
            try fill(run)
            for (plane, samples) in zip(planes, pending.indices) {
                pending[samples].withUnsafeBufferPointer { (plane + done).update(from: $0.baseAddress!, count: run) }
                pending[samples].removeFirst(run)
            }
            position += Int64(run)
            done += run
            if position == range.upperBound { graph = nil }
        }
    }

    /// Feeds the graph until it has given back at least `count` samples not yet handed out.
    private func fill(_ count: Int) throws(RenderError) {
        if graph == nil {
            graph = try makeGraph()
            sent = schedule.options.map(\.initial)
        }
        guard let graph else { return }
        while pending[0].count < count {
            if fed < range.upperBound {
                var run = Int(min(Int64(AudioMixer.maximumChunk), range.upperBound - fed))
                if !schedule.options.isEmpty {
                    // Every sample before `fed` has gone through (pulled below): the values take effect from it.
                    try schedule.send(at: fed, to: graph, last: &sent)
                    run = min(run, Int(schedule.nextBoundary(after: fed) - fed))
                }
                try upstream.read(count: run, into: scratch.planes)
                do { try graph.push(scratch.readOnly, count: run) } catch { throw RenderError(media: error) }
                fed += Int64(run)
            } else if !inputFinished {
                do { try graph.finishInput() } catch { throw RenderError(media: error) }
                inputFinished = true
            }
            var drained = false
            while true {
                let got: Int
                do { got = try graph.pull(into: scratch.planes, maxCount: scratch.capacity) } catch { throw RenderError(media: error) }
                guard got > 0 else { break }
                drained = true
                for c in pending.indices { pending[c].append(contentsOf: UnsafeBufferPointer(start: scratch.planes[c], count: got)) }
            }
            if inputFinished, !drained, pending[0].count < count {
                // A filter that gave back fewer samples than it took: the rest is silence, never a hang.
                for c in pending.indices { pending[c].append(contentsOf: repeatElement(0, count: count - pending[c].count)) }
            }
        }
    }
}

/// A keyed `gain` or `pan`: the upstream sound times each channel's gain at each sample's composition time, inside
/// `range`.
private final class SampleKeysStage: SoundStage {
    private let upstream: any SoundStage
    private var position: Int64
    private let range: Range<Int64>
    private let sampleRate: Int
    private let gains: (Time, inout [Float]) -> Void
    /// Each channel's gain at the sample being read (filled by `gains`, kept so that no sample allocates).
    private var current: [Float] = []

    init(upstream: any SoundStage, position: Int64, range: Range<Int64>, sampleRate: Int, gains: @escaping (Time, inout [Float]) -> Void) {
        self.upstream = upstream
        self.position = position
        self.range = range
        self.sampleRate = sampleRate
        self.gains = gains
    }

    func read(count: Int, into planes: [UnsafeMutablePointer<Float>]) throws(RenderError) {
        try upstream.read(count: count, into: planes)
        let rate = Int64(sampleRate)
        for k in 0..<count where range.contains(position + Int64(k)) {
            if current.count != planes.count { current = Array(repeating: 1, count: planes.count) }
            gains(Time(value: position + Int64(k), timescale: rate), &current)
            for (plane, gain) in zip(planes, current) { plane[k] *= gain }
        }
        position += Int64(count)
    }
}

/// One keyed parameter an effect's filters take as a runtime command.
struct KeyedOption {
    /// The indices of the filters it goes to, in the graph's filter list.
    var filters: [Int]
    /// The filter option (`f`, `threshold`).
    let option: String
    /// Its keys, in reel's units and composition time.
    let keys: KeyList<Double>
    /// The value the graph was made with (the first key's), which holds before the first key.
    let initial: Double
    /// How a value becomes the option's.
    let conversion: AudioOptionConversion
}

/// When an effect's keyed values are sent (docs/effects.md, "Keyed audio parameters"): before every block of
/// `AudioEffectParameter.keyBlock` samples counted from the effect's first sample, and before the first sample at or
/// after each key's start and end, each parameter with its keys' value at that sample, when it changed. The blocks
/// are counted from the effect's start, not from where a render begins, so that a `--range` render, a chunk or a
/// seek sends the same values at the same samples as the whole render.
struct KeySchedule {
    let options: [KeyedOption]
    private let anchor: Int64
    private let sampleRate: Int
    /// The samples at which a key starts or ends, ascending.
    private let edges: [Int64]

    init(options: [KeyedOption], anchor: Int64, sampleRate: Int, path: JSONPath) throws(RenderError) {
        self.options = options
        self.anchor = anchor
        self.sampleRate = sampleRate
        var edges: Set<Int64> = []
        do {
            for option in options {
                for key in option.keys.keys {
                    edges.insert(try key.start.count(atRate: Int64(sampleRate), rounding: .up))
                    edges.insert(try key.end.count(atRate: Int64(sampleRate), rounding: .up))
                }
            }
        } catch {
            throw RenderError(.invalid, "\(path): a key's time cannot be placed on the \(sampleRate) Hz sample grid")
        }
        self.edges = edges.sorted()
    }

    /// The first sample after `sample` at which values are sent: the next block's start or key edge.
    func nextBoundary(after sample: Int64) -> Int64 {
        let block = Int64(AudioEffectParameter.keyBlock)
        let offset = sample - anchor
        let nextBlock = anchor + (offset >= 0 ? (offset / block + 1) * block : 0)
        let nextEdge = edges.first { $0 > sample } ?? Int64.max
        return min(nextBlock, nextEdge)
    }

    /// Sends to `graph` each value at `sample` that differs from what was `last` sent.
    func send(at sample: Int64, to graph: AudioFilterGraph, last: inout [Double]) throws(RenderError) {
        let time = Time(value: sample, timescale: Int64(sampleRate))
        for (index, option) in options.enumerated() {
            let value = option.keys.value(at: time, default: option.initial)
            guard value != last[index] else { continue }
            let argument = AudioEffectChain.number(option.conversion.apply(value))
            do {
                for filter in option.filters { try graph.send(option.option, argument: argument, toFilterAt: filter) }
            } catch {
                throw RenderError(media: error)
            }
            last[index] = value
        }
    }
}
