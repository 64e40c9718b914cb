import Foundation

/// The audio track of generated test media.
public enum AudioSpec: Sendable, Hashable {
    /// A signal whose sample k is a known function of k: the exact `AudioSignal.counter`
    /// for `"pcm_s16le"`, else (`"aac"`, …) `AudioSignal.noise`, which survives lossy coding
    /// well enough for `AudioSignal.locate` to find offsets. Every channel carries the same signal.
    case counter(sampleRate: Int, channels: Int, codec: String)

    /// Samples per second.
    public var sampleRate: Int {
        switch self { case .counter(let sampleRate, _, _): sampleRate }
    }

    /// Number of channels.
    public var channels: Int {
        switch self { case .counter(_, let channels, _): channels }
    }

    /// The ffmpeg audio encoder name.
    public var codec: String {
        switch self { case .counter(_, _, let codec): codec }
    }

    /// The signal written: `.counter` for PCM codecs, `.noise` for lossy ones.
    public var signal: AudioSignal {
        codec.hasPrefix("pcm_") ? .counter : .noise
    }
}

/// A test signal defined sample by sample, so any stretch of it can be located in a render.
public enum AudioSignal: Sendable, Hashable {
    /// A sawtooth: sample k is the s16 value (k mod 4000) × 16 − 32000, which identifies
    /// k mod 4000 exactly when it survives unchanged (PCM).
    case counter
    /// Deterministic pseudo-random noise in [−0.5, 0.5): a sharp cross-correlation peak
    /// even after AAC coding.
    case noise

    /// The counter's period in samples.
    public static let counterPeriod = 4000

    /// Source sample k (any integer, also negative) as signed 16-bit.
    public func expectedS16(_ k: Int) -> Int16 {
        switch self {
        case .counter:
            let phase = ((k % Self.counterPeriod) + Self.counterPeriod) % Self.counterPeriod
            return Int16(phase * 16 - 32000)
        case .noise:
            let bits = splitMix64(UInt64(bitPattern: Int64(k)))
            // 16 random bits scaled to ±16384, i.e. ±0.5 of full scale.
            return Int16(Int(bits >> 48) / 2 - 16384)
        }
    }

    /// Source sample k as a float, exactly as ffmpeg converts the s16 value (s / 32768).
    public func expectedSample(_ k: Int) -> Float {
        Float(expectedS16(k)) / 32768
    }

    /// For `.counter`: k mod 4000 of the sample whose s16 value is `value`, or nil when
    /// `value` is not on the counter's grid (so not an unaltered counter sample).
    public func counterPhase(of value: Int16) -> Int? {
        let shifted = Int(value) + 32000
        guard self == .counter, shifted >= 0, shifted % 16 == 0, shifted / 16 < Self.counterPeriod else {
            return nil
        }
        return shifted / 16
    }

    /// The source offset o in `candidates` where `expectedSample(o + i)` best matches
    /// `samples[i]` for i in the first `window` samples, by normalised cross-correlation
    /// (so a changed gain does not matter).
    /// - Returns: nil when `samples` is empty or silent over the window, or `candidates` is empty;
    ///   otherwise the best offset and its score: 1 for a perfect match, about 0.85 after
    ///   192 kb/s AAC (its low-pass drops the top of the noise), near 0 at wrong offsets.
    public func locate(samples: [Float], in candidates: Range<Int>, window: Int = 2048) -> AudioMatch? {
        let length = min(window, samples.count)
        guard length > 0, !candidates.isEmpty else { return nil }
        let reference = (candidates.lowerBound..<candidates.upperBound + length - 1).map(expectedSample)
        var probeEnergy = 0.0
        for i in 0..<length {
            probeEnergy += Double(samples[i]) * Double(samples[i])
        }
        guard probeEnergy > 0 else { return nil }

        var best: AudioMatch?
        samples.withUnsafeBufferPointer { probe in
            reference.withUnsafeBufferPointer { signal in
                var energy = 0.0
                for i in 0..<length - 1 {
                    energy += Double(signal[i]) * Double(signal[i])
                }
                for shift in 0..<candidates.count {
                    let entering = Double(signal[shift + length - 1])
                    energy += entering * entering
                    var dot: Float = 0
                    for i in 0..<length {
                        dot += probe[i] * signal[shift + i]
                    }
                    let score = energy > 0 ? Double(dot) / (probeEnergy * energy).squareRoot() : 0
                    if best.map({ score > $0.score }) ?? true {
                        best = AudioMatch(offset: candidates.lowerBound + shift, score: score)
                    }
                    let leaving = Double(signal[shift])
                    energy -= leaving * leaving
                }
            }
        }
        return best
    }

    /// `count` samples per channel starting at sample 0, interleaved s16le bytes.
    func interleavedS16(count: Int, channels: Int) -> Data {
        var bytes = [UInt8]()
        bytes.reserveCapacity(count * channels * 2)
        for k in 0..<count {
            let value = UInt16(bitPattern: expectedS16(k))
            for _ in 0..<channels {
                bytes.append(UInt8(truncatingIfNeeded: value))
                bytes.append(UInt8(truncatingIfNeeded: value >> 8))
            }
        }
        return Data(bytes)
    }
}

/// Where a stretch of samples was found in a test signal.
public struct AudioMatch: Sendable, Hashable {
    /// Source sample index matching the stretch's first sample.
    public let offset: Int
    /// Normalised cross-correlation in [−1, 1].
    public let score: Double
}

/// Decodes the first audio stream of `url` as 32-bit float samples, one array per channel,
/// converted by ffmpeg to `sampleRate` and `channels` (a no-op when they already match).
public func readAudioSamples(of url: URL, sampleRate: Int, channels: Int) throws -> [[Float]] {
    let data = try decodeAudio(url, format: "f32le", sampleRate: sampleRate, channels: channels)
    guard data.count % (4 * channels) == 0 else {
        throw SupportError("decoded \(data.count) bytes, not whole \(channels)-channel f32 frames")
    }
    let count = data.count / (4 * channels)
    var planes = [[Float]](repeating: [], count: channels)
    for channel in 0..<channels {
        planes[channel].reserveCapacity(count)
    }
    data.withUnsafeBytes { raw in
        for frame in 0..<count {
            for channel in 0..<channels {
                let bits = raw.loadUnaligned(fromByteOffset: (frame * channels + channel) * 4, as: UInt32.self)
                planes[channel].append(Float(bitPattern: UInt32(littleEndian: bits)))
            }
        }
    }
    return planes
}

/// Decodes the first audio stream of `url` as signed 16-bit samples, one array per channel,
/// for exact comparisons with PCM sources (no conversion happens when rate and layout match).
public func readAudioSamplesS16(of url: URL, sampleRate: Int, channels: Int) throws -> [[Int16]] {
    let data = try decodeAudio(url, format: "s16le", sampleRate: sampleRate, channels: channels)
    guard data.count % (2 * channels) == 0 else {
        throw SupportError("decoded \(data.count) bytes, not whole \(channels)-channel s16 frames")
    }
    let count = data.count / (2 * channels)
    var planes = [[Int16]](repeating: [], count: channels)
    data.withUnsafeBytes { raw in
        for frame in 0..<count {
            for channel in 0..<channels {
                let bits = raw.loadUnaligned(fromByteOffset: (frame * channels + channel) * 2, as: UInt16.self)
                planes[channel].append(Int16(bitPattern: UInt16(littleEndian: bits)))
            }
        }
    }
    return planes
}

private func decodeAudio(_ url: URL, format: String, sampleRate: Int, channels: Int) throws -> Data {
    guard channels > 0, sampleRate > 0 else {
        throw SupportError("channels and sampleRate must be positive")
    }
    return try runChecked("ffmpeg", [
        "-v", "error", "-nostdin", "-i", url.path, "-map", "0:a:0",
        "-ac", String(channels), "-ar", String(sampleRate), "-f", format, "-",
    ])
}

/// SplitMix64's output function: a well-mixed 64-bit hash of `x`.
private func splitMix64(_ x: UInt64) -> UInt64 {
    var z = x &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
}
