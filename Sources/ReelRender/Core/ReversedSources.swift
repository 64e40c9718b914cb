import ReelMedia
import ReelTime

/// The video seam for a reversed segment: `VideoSources` passes the mirrored source time of `TimeMapping` and gets
/// the picture just *before* it (`ReversedVideoReader.frame(before:)`), the mirror image of sample and hold.
final class ReversedVideoSource: VideoSourceReader {
    private let reader: ReversedVideoReader

    init(_ reader: ReversedVideoReader) {
        self.reader = reader
    }

    /// The picture with the greatest presentation time < `sourceTime` (see `ReversedVideoReader`).
    func frame(at sourceTime: Time) throws(MediaError) -> VideoFrame {
        try reader.frame(before: sourceTime)
    }
}

/// The sound of a reversed segment seen as a forward stream, so that the mixer's sample-exact and stretched paths
/// read it like any other: sample j of this reader is source sample `mirror − j`, where `mirror` is the sum of the
/// segment's first and last source samples (source range [A, B) at the output rate gives mirror = A + B − 1, so
/// sample A reads B − 1 and sample B − 1 reads A).
///
/// The source is read in blocks of at most `blockLength` samples (one second at the output rate, or the request
/// when larger), walking backwards: memory holds one block per reversed segment playing, whatever its length.
final class ReversedAudioSource: AudioSourceReader {
    private let reader: any AudioSourceReader
    private let mirror: Int64
    private let block: SampleBuffers
    /// Source samples [blockStart, blockStart + blockCount) are in `block`.
    private var blockStart: Int64 = 0
    private var blockCount = 0

    /// Reads `reader` backwards about `mirror`, in blocks of `blockLength` samples of `channels` channels.
    init(_ reader: any AudioSourceReader, mirror: Int64, channels: Int, blockLength: Int) {
        self.reader = reader
        self.mirror = mirror
        block = SampleBuffers(channels: channels, capacity: max(blockLength, AudioMixer.maximumChunk))
    }

    func read(from firstSample: Int64, count sampleCount: Int, into channels: [UnsafeMutablePointer<Float>])
        throws(MediaError) {
        guard sampleCount > 0 else { return }
        // Source samples [low, high) hold the request, last one first.
        let high = mirror - firstSample + 1
        let low = high - Int64(sampleCount)
        if low < blockStart || high > blockStart + Int64(blockCount) {
            let start = max(0, high - Int64(block.capacity))
            let count = Int(max(0, high - start))
            if count > 0 { try reader.read(from: start, count: count, into: block.planes) }
            blockStart = start
            blockCount = count
        }
        for (channel, destination) in channels.enumerated() {
            let plane = block.planes[channel]
            for k in 0..<sampleCount {
                let source = high - 1 - Int64(k)
                destination[k] = source >= blockStart && source < blockStart + Int64(blockCount)
                    ? plane[Int(source - blockStart)] : 0
            }
        }
    }
}
