import Foundation
import ReelMedia
import ReelTime

/// Finds the silent stretches of one audio stream, decoded once from start to end at its own rate and channel count.
///
/// A sample instant is silent when no channel reaches the threshold (its level is the peak over the channels: the
/// window is one instant of the mixed channels); a silence is a maximal run of silent instants. That is the test of
/// ffmpeg's `silencedetect` (with `mono=0` an instant is silent only when every channel is below `noise`), so the
/// stretches agree with it to the sample. A peak, not an RMS over a longer window: one loud sample in a quiet
/// stretch is sound, as a click is to a listener, and boundaries stay sample-exact (docs/decisions.md, "reel cut").
/// Zero crossings of loud sound are silent instants too, but runs of a few samples; `--min-silence` (at least
/// 10 ms) leaves them out.
struct SilenceDetector {
    /// The threshold in dBFS: an instant whose peak over the channels is below it is silent.
    let thresholdDecibels: Double
    /// Runs shorter than this are not reported (`--min-silence`), so zero crossings never become candidates.
    let minimumLength: Time
    /// `--channel`: the one channel (1 = the first) whose peak decides; nil for the peak over all channels.
    var channel: Int? = nil

    /// Reads `reader` from sample 0 to the stream's end and returns every silent stretch (in source seconds,
    /// sample-exact) with its highest peak in dBFS, and the number of samples read. `expectedSamples` (the
    /// probed duration) bounds the read when the reader cannot tell its end.
    func silences(reading reader: any AudioSourceReader, of input: String, sampleRate: Int, channels: Int,
                  expectedSamples: Int64?, cancellation: CancellationFlag?) throws(RenderError) -> (silences: [CutCandidate], sampleCount: Int64)
    {
        let threshold = Float(pow(10, thresholdDecibels / 20))
        let peaks = UnsafeMutablePointer<Float>.allocate(capacity: Self.block)
        defer { peaks.deallocate() }
        var result: [CutCandidate] = []
        var runStart: Int64?
        var runPeak: Float = 0
        let rate = Int64(sampleRate)
        let minimumSamples = max(1, (try? minimumLength.count(atRate: rate, rounding: .up)) ?? 1)
        func close(at end: Int64) throws(RenderError) {
            defer {
                runStart = nil
                runPeak = 0
            }
            guard let start = runStart, end - start >= minimumSamples else { return }
            do {
                let range = try TimeRange(start: Time(value: start, timescale: rate), end: Time(value: end, timescale: rate))
                result.append(CutCandidate(range: range, reason: .silence, level: decibels(runPeak)))
            } catch {
                throw RenderError(.internal, "silence at sample \(start): \(error)")
            }
        }
        let count = try Self.readBlocks(of: reader, input: input, sampleRate: sampleRate, channels: channels, channel: channel,
                                        expectedSamples: expectedSamples, cancellation: cancellation) { measured, position, valid throws(RenderError) in
            // The peak over the channels of each instant, one channel at a time (a loop the compiler vectorises).
            for k in 0..<valid { peaks[k] = abs(measured[0][k]) }
            for buffer in measured.dropFirst() {
                for k in 0..<valid { peaks[k] = max(peaks[k], abs(buffer[k])) }
            }
            for k in 0..<valid {
                let peak = peaks[k]
                if peak < threshold {
                    if runStart == nil { runStart = position + Int64(k) }
                    runPeak = max(runPeak, peak)
                } else if runStart != nil {
                    try close(at: position + Int64(k))
                }
            }
        }
        try close(at: count)
        return (result, count)
    }

    /// The integrated loudness (LUFS, BS.1770) of `reader`'s whole sound, or of its channel `channel` (1 = the
    /// first) alone; nil when nothing passes the −70 LUFS gate.
    static func integratedLoudness(reading reader: any AudioSourceReader, of input: String, sampleRate: Int, channels: Int,
                                   channel: Int?, expectedSamples: Int64?,
                                   cancellation: CancellationFlag?) throws(RenderError) -> Double? {
        let meter: LoudnessMeter
        do {
            meter = try LoudnessMeter(channels: channel == nil ? channels : 1, sampleRate: sampleRate, integratedOnly: true)
        } catch {
            throw RenderError(media: error)
        }
        _ = try readBlocks(of: reader, input: input, sampleRate: sampleRate, channels: channels, channel: channel,
                           expectedSamples: expectedSamples, cancellation: cancellation) { measured, _, valid throws(RenderError) in
            do throws(MediaError) {
                try meter.add(measured.map { UnsafePointer($0) }, count: valid)
            } catch {
                throw RenderError(media: error)
            }
        }
        return meter.measurement.integrated
    }

    /// Samples read per block.
    private static let block = 65536

    /// Reads `reader` from sample 0 to the stream's end in blocks and hands `body` each block: the measured
    /// channels' buffers (all, or `channel` alone), the block's first sample and its number of samples. Returns the
    /// number of samples read. `expectedSamples` bounds the read when the reader cannot tell its end.
    private static func readBlocks(of reader: any AudioSourceReader, input: String, sampleRate: Int, channels: Int,
                                   channel: Int?, expectedSamples: Int64?, cancellation: CancellationFlag?,
                                   _ body: ([UnsafeMutablePointer<Float>], Int64, Int) throws(RenderError) -> Void) throws(RenderError) -> Int64 {
        let buffers = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: block) }
        defer { for buffer in buffers { buffer.deallocate() } }
        let measured = channel.map { [buffers[$0 - 1]] } ?? buffers
        // Past the expected end by a minute with no end known: the reader cannot tell it, the probe's length holds.
        let readLimit = (expectedSamples ?? Int64(sampleRate) * 86_400) + Int64(sampleRate) * 60
        var position: Int64 = 0
        while true {
            if cancellation?.isCancelled == true { throw RenderError(.cancelled, "interrupted") }
            do {
                try reader.read(from: position, count: block, into: buffers)
            } catch {
                let failure = RenderError(media: error)
                let time = Time(value: position, timescale: Int64(sampleRate))
                throw RenderError(failure.kind, "\(input) at \(time) s: \(failure.message)")
            }
            let end = reader.endSample ?? (position >= readLimit ? position : nil)
            let valid = end.map { Int(max(0, min(Int64(block), $0 - position))) } ?? block
            try body(measured, position, valid)
            position += Int64(valid)
            if let end, position >= end { return position }
        }
    }
}

/// A peak amplitude in dBFS (−∞ for 0).
func decibels(_ amplitude: Float) -> Double {
    amplitude > 0 ? 20 * log10(Double(amplitude)) : -Double.infinity
}
