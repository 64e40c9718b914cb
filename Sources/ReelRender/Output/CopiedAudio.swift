import ReelMedia
import ReelTime

/// An audio part's packets (`AudioPart`) on their way into a joined file, each written once the pictures have
/// reached its time, so the two streams reach the muxer interleaved as in a one-process render.
final class CopiedAudio {
    /// An audio part, checked against the project (`ChunkJoiner`).
    struct Source {
        /// The part's file.
        let path: String
        /// Samples per channel it says it holds (`reel_samples`).
        let samples: Int64
        /// Its stream's codec header, which must equal what the output's encoder writes.
        let extradata: [UInt8]
        /// The output's audio settings, which the part was encoded with.
        let settings: AudioEncoderSettings
        /// How the part is opened.
        let opener: any SourceOpener
    }

    private let source: Source
    private let reader: any PacketSource
    private let stream: MuxerStream
    private let packet: Packet
    /// Whether `packet` holds the next packet to write.
    private var pending: Bool
    private let sampleRate: Int64
    private let frameRate: Rational
    /// The end of the last packet written, in samples.
    private var end: Int64 = 0

    /// Opens the part and adds its stream to `muxer` (before the header), described as the output's encoder
    /// describes it.
    init(_ source: Source, muxer: Muxer, frameRate: Rational) throws(RenderError) {
        self.source = source
        sampleRate = Int64(source.settings.sampleRate)
        self.frameRate = frameRate
        do {
            reader = try source.opener.openPackets(path: source.path)
            guard let first = reader.streams.first else {
                throw RenderError(.invalid, "\(source.path) has no stream")
            }
            let added = try muxer.addCopiedAudio(source.settings, copying: first.index,
                                                 of: try reader.requireFileReader(source.path))
            guard added.header == source.extradata else {
                throw RenderError(.invalid, "\(source.path) was encoded with other \(source.settings.codec.rawValue) "
                                  + "settings than the project's output; render the audio part again")
            }
            stream = added.stream
            packet = try Packet()
            pending = try reader.read(into: packet)
        } catch {
            throw RenderError(anyError: error)
        }
    }

    /// Writes every packet that starts before the end of output frame `frame`.
    func copy(through frame: Int64, into muxer: Muxer) throws(RenderError) {
        // pts / sampleRate < (frame + 1) · den / num, in integers.
        let limit = Int128(frame + 1) * Int128(frameRate.denominator) * Int128(sampleRate)
        while pending {
            guard let pts = packet.presentationTimestamp else {
                throw RenderError(.invalid, "\(source.path) has a packet without a timestamp")
            }
            if Int128(pts) * Int128(frameRate.numerator) >= limit { return }
            try writePending(into: muxer)
        }
    }

    /// Writes what is left and checks that the part held exactly its samples.
    func finish(into muxer: Muxer) throws(RenderError) {
        while pending { try writePending(into: muxer) }
        guard end == source.samples else {
            throw RenderError(.invalid, "\(source.path) holds \(end) samples per channel, not the \(source.samples) "
                              + "its tag names; render the audio part again")
        }
    }

    private func writePending(into muxer: Muxer) throws(RenderError) {
        do {
            guard let pts = packet.presentationTimestamp else {
                throw RenderError(.invalid, "\(source.path) has a packet without a timestamp")
            }
            end = max(end, pts + packet.duration)
            // The MP4 demuxer marks the priming packet with side data and a discard flag the encoder never set.
            packet.removeDemuxerAdditions()
            try muxer.write(packet, to: stream)
            pending = try reader.read(into: packet)
        } catch {
            throw RenderError(anyError: error)
        }
    }
}
