internal import CEBUR128
import Foundation

/// A loudness measurement as ITU-R BS.1770-4 and EBU R128 (Tech 3341, 3342) define it.
public struct LoudnessMeasurement: Sendable, Equatable {
    /// Integrated (gated programme) loudness, LUFS; nil when no 400 ms block passed the −70 LUFS absolute gate
    /// (silence, near-silence, or a programme shorter than one block).
    public var integrated: Double?
    /// Loudness range (LRA), LU; 0 when too few 3 s blocks passed the gates.
    public var range: Double
    /// The highest true peak over all channels, dBTP (4× oversampled below 96 kHz); nil for digital silence.
    public var truePeak: Double?
    /// Samples per channel measured.
    public var sampleCount: Int64

    /// Creates a measurement.
    public init(integrated: Double?, range: Double, truePeak: Double?, sampleCount: Int64) {
        self.integrated = integrated
        self.range = range
        self.truePeak = truePeak
        self.sampleCount = sampleCount
    }

    /// Whether nothing passed the absolute gate: the programme is silent or near-silent for BS.1770.
    public var isBelowGate: Bool { integrated == nil }
}

/// Measures integrated loudness, loudness range and true peak through libebur128.
///
/// Feed planar float samples (nominally −1 … 1) in order with `add`; `measurement` may be read at any point and
/// covers everything added so far. Channels are weighted as BS.1770 says for their position: mono and stereo
/// channels 1.0, and in 5.1 (FFmpeg's order FL FR FC LFE SL SR) the LFE is left out and the surrounds weigh 1.41.
/// Not thread-safe; deterministic: the same samples always give the same numbers.
public final class LoudnessMeter {
    private var state: UnsafeMutablePointer<ebur128_state>
    /// Channels measured.
    public let channels: Int
    /// Sample rate, Hz.
    public let sampleRate: Int
    private var interleaved: [Float] = []
    private var sampleCount: Int64 = 0

    /// A meter for `channels` channels (1 … 64) at `sampleRate` Hz. With `integratedOnly`, it measures the
    /// integrated loudness alone (about half the work: no oversampled true peak, no loudness range); the
    /// measurement's `range` is then 0 and `truePeak` nil.
    public init(channels: Int, sampleRate: Int, integratedOnly: Bool = false) throws(MediaError) {
        guard (1...64).contains(channels), (8000...768_000).contains(sampleRate) else {
            throw MediaError(.internal, "cannot measure loudness of \(channels) channels at \(sampleRate) Hz")
        }
        let mode = integratedOnly ? EBUR128_MODE_I.rawValue
            : EBUR128_MODE_I.rawValue | EBUR128_MODE_LRA.rawValue | EBUR128_MODE_TRUE_PEAK.rawValue
        guard let state = ebur128_init(UInt32(channels), UInt(sampleRate), Int32(mode)) else {
            throw MediaError(.internal, "libebur128 cannot measure \(channels) channels at \(sampleRate) Hz")
        }
        self.state = state
        self.channels = channels
        self.sampleRate = sampleRate
        if channels == 6 {
            let layout = [EBUR128_LEFT, EBUR128_RIGHT, EBUR128_CENTER, EBUR128_UNUSED, EBUR128_LEFT_SURROUND,
                          EBUR128_RIGHT_SURROUND]
            for (index, channel) in layout.enumerated() {
                _ = ebur128_set_channel(state, UInt32(index), Int32(channel.rawValue))
            }
        }
    }

    deinit {
        var owned: UnsafeMutablePointer<ebur128_state>? = state
        ebur128_destroy(&owned)
    }

    /// Adds `count` samples per channel from the planar buffers `planes` (one per channel).
    public func add(_ planes: [UnsafePointer<Float>], count: Int) throws(MediaError) {
        guard planes.count == channels, count >= 0 else {
            throw MediaError(.internal, "the loudness meter needs \(channels) channel buffers")
        }
        guard count > 0 else { return }
        if interleaved.count < count * channels { interleaved = [Float](repeating: 0, count: count * channels) }
        let result = interleaved.withUnsafeMutableBufferPointer { buffer -> Int32 in
            for c in 0..<channels {
                let plane = planes[c]
                for k in 0..<count { buffer[k * channels + c] = plane[k] }
            }
            return ebur128_add_frames_float(state, buffer.baseAddress, count)
        }
        guard result == EBUR128_SUCCESS.rawValue else {
            throw MediaError(.internal, "libebur128 cannot take more samples (error \(result))")
        }
        sampleCount += Int64(count)
    }

    /// The momentary loudness (the last 400 ms), LUFS; nil below −70 LUFS or before 400 ms were added, or when
    /// the meter measures the integrated loudness alone.
    public var momentary: Double? {
        var value = -Double.infinity
        guard ebur128_loudness_momentary(state, &value) == EBUR128_SUCCESS.rawValue else { return nil }
        return value.isFinite && value >= -70 ? value : nil
    }

    /// The short-term loudness (the last 3 s), LUFS; nil below −70 LUFS or when the meter measures the integrated
    /// loudness alone.
    public var shortTerm: Double? {
        var value = -Double.infinity
        guard ebur128_loudness_shortterm(state, &value) == EBUR128_SUCCESS.rawValue else { return nil }
        return value.isFinite && value >= -70 ? value : nil
    }

    /// What the samples added so far measure.
    public var measurement: LoudnessMeasurement {
        var integrated = -Double.infinity
        _ = ebur128_loudness_global(state, &integrated)
        var range = 0.0
        _ = ebur128_loudness_range(state, &range)
        var peak = 0.0
        for channel in 0..<channels {
            var value = 0.0
            if ebur128_true_peak(state, UInt32(channel), &value) == EBUR128_SUCCESS.rawValue { peak = max(peak, value) }
        }
        return LoudnessMeasurement(
            integrated: integrated.isFinite ? integrated : nil, range: range.isFinite ? range : 0,
            truePeak: peak > 0 ? 20 * log10(peak) : nil, sampleCount: sampleCount)
    }
}

extension LoudnessMeter {
    /// Measures the whole of audio stream `streamIndex` of the media file at `path` (decoded, at its own rate; more
    /// than two channels other than 5.1 are mixed down to stereo first).
    public static func measure(path: String, streamIndex: Int, policy: MediaPolicy,
                               isCancelled: () -> Bool = { false }) throws(MediaError) -> LoudnessMeasurement {
        var measured: LoudnessMeter?
        try read(path: path, streamIndex: streamIndex, policy: policy, chunk: 16384, isCancelled: isCancelled) {
            (meter, _, _) throws(MediaError) in measured = meter
        }
        guard let measured else { throw MediaError(.internal, "no loudness meter", path: path) }
        return measured.measurement
    }

    /// Decodes audio stream `streamIndex` of `path` alone, from its start to its end, in blocks of `chunk` samples
    /// per channel at the stream's own rate: each block is added to one meter, then handed to `body` with its
    /// planes and length (the last block may be shorter).
    static func read(path: String, streamIndex: Int, policy: MediaPolicy, chunk: Int, isCancelled: () -> Bool,
                     _ body: (LoudnessMeter, [UnsafePointer<Float>], Int) throws(MediaError) -> Void)
        throws(MediaError)
    {
        let info = try MediaProbe.probe(path: path, policy: policy)
        guard let stream = info.streams.first(where: { $0.index == streamIndex }), stream.type == .audio else {
            throw MediaError(.noSuchStream, "has no audio stream \(streamIndex)", path: path)
        }
        let channels = stream.channels == 6 || stream.channels <= 2 ? max(1, stream.channels) : 2
        let rate = stream.sampleRate > 0 ? stream.sampleRate : 48000
        let reader = try AudioReader(path: path, streamIndex: streamIndex, policy: policy,
                                     sampleRate: rate, channels: channels)
        let meter = try LoudnessMeter(channels: channels, sampleRate: rate)
        let planes = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: chunk) }
        defer { for plane in planes { plane.deallocate() } }
        let readable = planes.map { UnsafePointer($0) }
        var position: Int64 = 0
        while true {
            if isCancelled() { throw MediaError(.internal, "interrupted", path: path) }
            try reader.read(from: position, count: chunk, into: planes)
            var count = chunk
            if let end = reader.endSample { count = Int(max(0, min(Int64(chunk), end - position))) }
            try meter.add(readable, count: count)
            try body(meter, readable, count)
            position += Int64(count)
            if count < chunk || reader.endSample.map({ position >= $0 }) == true { break }
        }
    }
}

/// The sound of a media file as a review page draws it: the EBU R128 measurement, the momentary and short-term
/// loudness every 100 ms, and the waveform's peaks, from one decode of its audio stream alone.
public struct LoudnessCurve: Sendable {
    /// Integrated loudness, LRA and true peak of the whole stream.
    public var measurement: LoudnessMeasurement
    /// Seconds between two points of `momentary` and `shortTerm` (0.1).
    public var step: Double
    /// Momentary loudness (400 ms window) at the end of each step, LUFS; nil below −70 LUFS.
    public var momentary: [Double?]
    /// Short-term loudness (3 s window) at the end of each step, LUFS; nil below −70 LUFS.
    public var shortTerm: [Double?]
    /// The lowest and highest sample of any channel in each of the waveform's equal spans (−1 … 1 nominally).
    public var waveform: [(low: Float, high: Float)]
    /// Seconds each waveform span covers.
    public var waveformSpan: Double
    /// The stream's sample rate, Hz.
    public var sampleRate: Int

    /// Measures audio stream `streamIndex` of `path`, decoding that stream alone; the waveform gets about
    /// `waveformPoints` spans.
    public static func measure(path: String, streamIndex: Int, policy: MediaPolicy, waveformPoints: Int = 1200,
                               isCancelled: () -> Bool = { false }) throws(MediaError) -> LoudnessCurve {
        let info = try MediaProbe.probe(path: path, policy: policy)
        let stream = info.streams.first { $0.index == streamIndex }
        let rate = stream.map { $0.sampleRate > 0 ? $0.sampleRate : 48000 } ?? 48000
        let step = rate / 10
        let seconds = (stream?.duration ?? info.duration)?.seconds ?? 60
        let spanSamples = max(1, Int((seconds * Double(rate) / Double(max(1, waveformPoints))).rounded(.up)))
        var curve = LoudnessCurve(
            measurement: LoudnessMeasurement(integrated: nil, range: 0, truePeak: nil, sampleCount: 0), step: 0.1,
            momentary: [], shortTerm: [], waveform: [], waveformSpan: Double(spanSamples) / Double(rate),
            sampleRate: rate)
        var low: Float = 0, high: Float = 0, filled = 0
        var last: LoudnessMeter?
        try LoudnessMeter.read(path: path, streamIndex: streamIndex, policy: policy, chunk: step,
                               isCancelled: isCancelled) { (meter, planes, count) throws(MediaError) in
            last = meter
            if count == step {
                curve.momentary.append(meter.momentary)
                curve.shortTerm.append(meter.shortTerm)
            }
            for index in 0..<count {
                for plane in planes {
                    low = min(low, plane[index])
                    high = max(high, plane[index])
                }
                filled += 1
                if filled == spanSamples {
                    curve.waveform.append((low, high))
                    low = 0
                    high = 0
                    filled = 0
                }
            }
        }
        if filled > 0 { curve.waveform.append((low, high)) }
        if let last { curve.measurement = last.measurement }
        return curve
    }
}
