internal import CFFmpeg
import ReelTime

/// Decodes one audio stream, resampled with libswresample to float planar at a fixed rate and channel count.
///
/// Output sample index k is source time k / sampleRate in seconds from the media's start.
/// Not thread-safe: confine each reader to one thread.
public final class AudioReader {
    /// The stream being decoded.
    public let stream: StreamInfo
    private let decoder: StreamDecoder
    private let sampleRate: Int
    private let channelCount: Int
    private var outputLayout: ChannelLayout
    private let receivedFrame: Frame
    private var resampler: Resampler?
    /// Converted samples not yet consumed: `buffer[c][bufferOffset ..< bufferOffset + bufferCount]`
    /// are output indices `bufferStart ..< bufferStart + bufferCount`.
    private var buffer: [UnsafeMutablePointer<Float>] = []
    private var bufferCapacity = 0
    private var bufferOffset = 0
    private var bufferCount = 0
    private var bufferStart: Int64 = 0
    /// False until the first frame after opening or seeking fixes where the output begins.
    private var positioned = false
    private var atEnd = false
    private var opened = true
    /// Output index of the stream's first sample, once decoded from the start.
    private var firstSample: Int64?
    /// Output index just past the stream's last sample, once decoded to the end.
    private var knownEnd: Int64?
    /// Whether the stream's timestamps count its decoded samples, so that a seek lands on the right sample; nil
    /// until the first seek asks. When they do not, every seek decodes from the start instead.
    private var timestampsCountSamples: Bool?

    /// Opens audio stream `streamIndex` of the file at `path`, to be read at `sampleRate` Hz with `channels` channels.
    ///
    /// Mono, stereo, 5.1 and other layouts are mixed to the default layout for `channels` by
    /// swresample's default matrix. Throws `.noSuchStream` when the stream is missing or not audio.
    public init(path: String, streamIndex: Int, policy: MediaPolicy,
                sampleRate: Int = 48000, channels: Int = 2) throws(MediaError) {
        guard sampleRate > 0, sampleRate <= 768_000, channels > 0, channels <= 64 else {
            throw MediaError(.internal, "invalid output format \(sampleRate) Hz, \(channels) channels")
        }
        decoder = try StreamDecoder(path: path, streamIndex: streamIndex, type: AVMEDIA_TYPE_AUDIO, policy: policy)
        stream = MediaProbe.describe(decoder.stream, in: decoder.input)
        self.sampleRate = sampleRate
        self.channelCount = channels
        receivedFrame = try Frame()
        outputLayout = ChannelLayout(defaultFor: channels)
    }

    deinit {
        for plane in buffer { plane.deallocate() }
    }

    /// The output index just past the stream's last sample, once a read has decoded to the end; nil before.
    public var endSample: Int64? { knownEnd }

    /// The frame the decoder fills; unreferenced between decodes.
    private var received: UnsafeMutablePointer<AVFrame> { receivedFrame.avFrame }

    /// Writes output samples `start ..< start + count` into `channels` (one buffer of at least
    /// `count` floats per output channel).
    ///
    /// At the source's own rate this is sample-exact: index k is source sample k after the codec's
    /// priming samples are dropped. Indices before the first or after the last decoded sample are
    /// silence. A read that starts where the previous one ended continues decoding; any other start
    /// seeks to a bit before it and decodes forward.
    public func read(from start: Int64, count: Int, into channels: [UnsafeMutablePointer<Float>]) throws(MediaError) {
        guard channels.count == channelCount, count >= 0 else {
            throw MediaError(.internal, "read needs \(channelCount) channel buffers and a count ≥ 0")
        }
        guard count > 0 else { return }
        let (end, overflow) = start.addingReportingOverflow(Int64(count))
        guard !overflow else { throw MediaError(.internal, "sample index \(start) + \(count) overflows") }
        let bufferEnd = bufferStart + Int64(bufferCount)
        let threshold = Int64(sampleRate) * 2
        if let streamEnd = knownEnd, start >= streamEnd {
            // Wholly past the end of the stream: silence, without decoding or seeking.
            for destination in channels { destination.update(repeating: 0, count: count) }
            return
        }
        if !positioned {
            if !opened || start > threshold { try seek(to: start) }
        } else if (start < bufferStart && bufferStart != firstSample) || (!atEnd && start > bufferEnd + threshold) {
            try seek(to: start)
        }
        consume(upTo: start)
        while bufferStart + Int64(bufferCount) < end && !atEnd {
            try decodeMore(readingFrom: start)
            consume(upTo: start)
        }
        for (channel, destination) in channels.enumerated() {
            var index = start
            var written = 0
            let available = bufferStart + Int64(bufferCount)
            if index < bufferStart {
                let silence = Int(min(bufferStart, end) - index)
                destination.update(repeating: 0, count: silence)
                written += silence
                index += Int64(silence)
            }
            if index < min(available, end) {
                let run = Int(min(available, end) - index)
                let source = buffer[channel] + bufferOffset + Int(index - bufferStart)
                (destination + written).update(from: source, count: run)
                written += run
            }
            if written < count { (destination + written).update(repeating: 0, count: count - written) }
        }
        consume(upTo: end)
    }

    /// Drops buffered samples before output index `index`.
    private func consume(upTo index: Int64) {
        guard index > bufferStart else { return }
        let drop = Int(min(index - bufferStart, Int64(bufferCount)))
        bufferOffset += drop
        bufferCount -= drop
        bufferStart += Int64(drop)
        if bufferCount == 0 { bufferOffset = 0 }
    }

    /// Repositions so that decoding resumes a little before output index `start`.
    private func seek(to start: Int64) throws(MediaError) {
        if timestampsCountSamples == nil { timestampsCountSamples = decoder.timestampsCountDecodedSamples }
        if timestampsCountSamples == false {
            // Positions then come only from counting decoded samples from the start.
            try decoder.rewind()
            try reset()
            opened = true
            return
        }
        let rate = Int64(sampleRate)
        var target = Time(value: start, timescale: rate)
        if let duration = decoder.duration, duration < target { target = duration }
        var margin = Time(value: 1, timescale: 2)
        while true {
            let seekTime = (try? target - margin) ?? .zero
            if seekTime.isNegative || margin > Time(seconds: 16) || firstSample.map({ start < $0 }) == true {
                try decoder.rewind()
                try reset()
                opened = true
                return
            }
            try decoder.seek(to: seekTime)
            try reset()
            opened = false
            try decodeMore(readingFrom: start)
            if positioned && (bufferStart <= start || atEnd) { return }
            margin = (try? margin + margin) ?? Time(seconds: 32)
        }
    }

    private func reset() throws(MediaError) {
        positioned = false
        atEnd = false
        bufferOffset = 0
        bufferCount = 0
        bufferStart = 0
        if let resampler {
            // Closing and reinitialising drops the samples and delay left from before the seek.
            swr_close(resampler.avContext)
            try check(swr_init(resampler.avContext), .internal, "cannot restart the resampler", function: "swr_init",
                      path: decoder.path)
        }
    }

    /// Decodes one frame and appends its converted samples (or the resampler's tail at the end).
    private func decodeMore(readingFrom start: Int64) throws(MediaError) {
        let rate = Int64(sampleRate)
        let gotFrame = try decoder.receive(into: received) { Time(value: start, timescale: rate) }
        guard gotFrame else {
            if let resampler, positioned {
                let tail = Int(try outputCapacity(resampler, for: 0))
                if tail > 0 { try convert(nil, count: 0, capacity: tail) }
            }
            atEnd = true
            if positioned { knownEnd = bufferStart + Int64(bufferCount) }
            return
        }
        defer { av_frame_unref(received) }
        let resampler = try configureResampler()
        let pts = received.pointee.pts != cff_nopts_value() ? received.pointee.pts : received.pointee.best_effort_timestamp
        // Clamped far inside Int64 so that index arithmetic below cannot overflow on absurd timestamps.
        let limit: Int64 = 1 << 60
        let frameIndex = decoder.input.relativeTime(pts, decoder.timeBase)
            .flatMap { try? $0.count(atRate: rate, rounding: .nearest) }
            .map { min(max($0, -limit), limit) }
        let pending = swr_get_delay(resampler.avContext, rate)
        if !positioned {
            // The first frame fixes where the output begins; later ones follow contiguously.
            bufferStart = (frameIndex ?? 0) - pending
            bufferOffset = 0
            bufferCount = 0
            positioned = true
            if opened { firstSample = bufferStart }
        } else if let frameIndex {
            let expected = bufferStart + Int64(bufferCount) + pending
            let gap = frameIndex - expected
            if gap > rate / 20 && gap < rate * 3600 {
                // A hole in the source's timestamps: keep later audio at its time with silence.
                try reserve(Int(gap))
                for plane in buffer { (plane + bufferOffset + bufferCount).update(repeating: 0, count: Int(gap)) }
                bufferCount += Int(gap)
            }
        }
        let samples = Int(received.pointee.nb_samples)
        let capacity = Int(try outputCapacity(resampler, for: Int32(samples))) + 16
        try convert(received.pointee.extended_data, count: samples, capacity: capacity)
    }

    /// The most samples `swr_convert` may return for `count` more input samples.
    private func outputCapacity(_ resampler: Resampler, for count: Int32) throws(MediaError) -> Int32 {
        try check(swr_get_out_samples(resampler.avContext, count), .internal, "cannot convert audio",
                  function: "swr_get_out_samples", path: decoder.path)
    }

    private func convert(_ input: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, count: Int,
                         capacity: Int) throws(MediaError) {
        guard let resampler = resampler?.avContext else { return }
        try reserve(capacity)
        let converted = withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<UInt8>?.self,
                                                      capacity: channelCount) { outputs in
            for (channel, plane) in buffer.enumerated() {
                outputs[channel] = UnsafeMutableRawPointer(plane + bufferOffset + bufferCount)
                    .assumingMemoryBound(to: UInt8.self)
            }
            guard let input else { return swr_convert(resampler, outputs.baseAddress, Int32(capacity), nil, 0) }
            return input.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { sources in
                swr_convert(resampler, outputs.baseAddress, Int32(capacity), sources, Int32(count))
            }
        }
        try check(converted, .internal, "cannot convert audio", function: "swr_convert", path: decoder.path)
        bufferCount += Int(converted)
    }

    /// Makes room for `extra` more samples after the buffered ones.
    private func reserve(_ extra: Int) throws(MediaError) {
        let needed = bufferCount + extra
        if bufferOffset + needed <= bufferCapacity { return }
        if needed <= bufferCapacity {
            for plane in buffer { plane.update(from: plane + bufferOffset, count: bufferCount) }
            bufferOffset = 0
            return
        }
        let capacity = max(needed, bufferCapacity * 2, 8192)
        var planes: [UnsafeMutablePointer<Float>] = []
        for channel in 0..<channelCount {
            let plane = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
            if channel < buffer.count {
                plane.update(from: buffer[channel] + bufferOffset, count: bufferCount)
                buffer[channel].deallocate()
            }
            planes.append(plane)
        }
        buffer = planes
        bufferCapacity = capacity
        bufferOffset = 0
    }

    /// The resampler for the current frame's format, rebuilt when the source format changes.
    private func configureResampler() throws(MediaError) -> Resampler {
        var layout = ChannelLayout()
        if received.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || received.pointee.ch_layout.nb_channels <= 0 {
            let channels = max(received.pointee.ch_layout.nb_channels, decoder.codec.pointee.ch_layout.nb_channels)
            guard channels > 0 else { throw MediaError(.corrupt, "audio frame without channels", path: decoder.path) }
            layout = ChannelLayout(defaultFor: Int(channels))
        } else {
            try check(av_channel_layout_copy(&layout.avLayout, &received.pointee.ch_layout), .internal,
                      "cannot copy a channel layout", function: "av_channel_layout_copy")
        }
        let format = received.pointee.format
        let rate = received.pointee.sample_rate
        guard rate > 0 else { throw MediaError(.corrupt, "audio frame without a sample rate", path: decoder.path) }
        // A comparison, not a status: 0 means equal; anything else (an error too) rebuilds the resampler.
        if let resampler, resampler.inputFormat == format, resampler.inputRate == rate,
           av_channel_layout_compare(&resampler.inputLayout.avLayout, &layout.avLayout) == 0 {
            return resampler
        }
        resampler = nil
        let failure = { (_: Int32) in
            MediaError(.unsupported, "cannot resample this audio to \(self.sampleRate) Hz", path: self.decoder.path)
        }
        var made: OpaquePointer? = nil
        try check(swr_alloc_set_opts2(&made, &outputLayout.avLayout, AV_SAMPLE_FMT_FLTP, Int32(sampleRate),
                                      &layout.avLayout, AVSampleFormat(rawValue: format), rate, 0, nil),
                  function: "swr_alloc_set_opts2", failure)
        guard let made else { throw failure(0) }
        let configured = Resampler(made: made, format: format, rate: rate, layout: layout)
        try check(swr_init(configured.avContext), function: "swr_init", failure)
        resampler = configured
        return configured
    }
}

/// A libswresample context converting one source format to a reader's output; freed when released.
private final class Resampler {
    /// The context; valid while this object lives.
    let avContext: OpaquePointer
    /// The source sample format (`AVSampleFormat` value), rate and layout it was made for.
    let inputFormat: Int32
    let inputRate: Int32
    var inputLayout: ChannelLayout

    /// Takes over a context `swr_alloc_set_opts2` made for the given source format.
    init(made context: OpaquePointer, format: Int32, rate: Int32, layout: consuming ChannelLayout) {
        avContext = context
        inputFormat = format
        inputRate = rate
        inputLayout = layout
    }

    deinit {
        var owned: OpaquePointer? = avContext
        swr_free(&owned)
    }
}
