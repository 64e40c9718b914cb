import Foundation
@testable import ReelMedia
import ReelCodecs
import ReelTime
import Testing

/// The encoders' way out is the `StreamSink` seam (issue 34 point 7): an encoder is told of no container, only of a
/// sink it describes its stream to once and hands packets to. These tests give the encoders a sink that collects the
/// packets in memory, no muxer anywhere, and check what arrives.
@Suite struct EncoderSinkTests {
    /// Collects what an encoder describes and sends.
    final class CollectingSink: StreamSink {
        struct Received {
            let pts: Int64?
            let dts: Int64?
            let duration: Int64
            let isKeyframe: Bool
        }

        let path: String? = nil
        let wantsGlobalHeader: Bool
        /// The codecs asked about, in order.
        private(set) var asked: [String] = []
        /// The streams opened: encoder name and time base.
        private(set) var opened: [(encoder: String, timeBase: (numerator: Int, denominator: Int))] = []
        private(set) var packets: [Received] = []

        init(wantsGlobalHeader: Bool = false) {
            self.wantsGlobalHeader = wantsGlobalHeader
        }

        func requireHolds(_ codec: StreamCodec) throws(MediaError) {
            asked.append(codec.label)
        }

        func open(_ stream: EncodedStream) throws(MediaError) -> PacketSink {
            opened.append((stream.encoderName, stream.timeBase))
            return { [self] (packet: Packet) throws(MediaError) in
                packets.append(Received(pts: packet.presentationTimestamp, dts: packet.decodingTimestamp,
                                        duration: packet.duration, isKeyframe: packet.isKeyframe))
            }
        }
    }

    /// A picture whose luma ramps with `index`, so that the encoder has motion to code.
    static func picture(_ index: Int, width: Int, height: Int) throws -> VideoFrame {
        let frame = try VideoFrame(width: width, height: height, format: .yuv420p)
        for row in 0..<height {
            for x in 0..<width { frame.plane(0)[row * frame.stride(0) + x] = UInt8(truncatingIfNeeded: x * 3 + row + index * 7) }
        }
        for plane in 1...2 {
            for row in 0..<(height + 1) / 2 {
                for x in 0..<(width + 1) / 2 { frame.plane(plane)[row * frame.stride(plane) + x] = 128 }
            }
        }
        return frame
    }

    /// H.264 with B-frames into the collecting sink: one stream opened in 1/25, as many packets as pictures, the
    /// first a keyframe, decoding timestamps rising, presentation timestamps exactly the picture numbers, every
    /// packet's duration one picture (the encoder's own mend of libx264's zero durations).
    @Test func videoPacketsReachTheSink() throws {
        let sink = CollectingSink()
        let count = 30
        let settings = VideoEncoderSettings(codec: .h264, width: 64, height: 48, frameRate: Rational(25, 1),
                                            encoderPreset: "veryfast", gop: 12, threads: 1)
        let encoder = try VideoEncoder(settings, sink: sink)
        #expect(sink.asked == ["h264"])
        #expect(sink.opened.count == 1)
        #expect(sink.opened.first?.encoder == "libx264")
        #expect(sink.opened.first.map { $0.timeBase == (1, 25) } == true)
        for index in 0..<count {
            try encoder.encode(try Self.picture(index, width: 64, height: 48), index: Int64(index))
        }
        try encoder.flush()
        let packets = sink.packets
        #expect(packets.count == count)
        #expect(packets.first?.isKeyframe == true)
        #expect(packets.filter(\.isKeyframe).count >= 2, "a keyframe every 12 pictures")
        let dts = packets.compactMap(\.dts)
        #expect(dts.count == count)
        let rising = zip(dts, dts.dropFirst()).allSatisfy { $0 < $1 }
        #expect(rising, "decoding timestamps rise: \(dts)")
        #expect(packets.compactMap(\.pts).sorted() == (0..<Int64(count)).map { $0 })
        #expect(packets.contains { $0.pts != $0.dts }, "B-frames reorder the pictures")
        let durations = Set(packets.map(\.duration))
        #expect(durations == [1])
    }

    /// AAC into the collecting sink: the stream in 1/48000, the pts of each packet the sum of the durations before
    /// it, every packet a keyframe, and the durations adding up to the samples given plus the encoder's priming and
    /// padding to whole frames of 1024.
    @Test func audioPacketsReachTheSink() throws {
        let sink = CollectingSink(wantsGlobalHeader: true)
        let encoder = try AudioEncoder(AudioEncoderSettings(codec: .aac, sampleRate: 48000, channels: 2), sink: sink)
        #expect(sink.asked == ["aac"])
        #expect(sink.opened.first.map { $0.timeBase == (1, 48000) } == true)
        let samples = 10_000
        let left = (0..<samples).map { Float(sin(Double($0) * 0.05)) * 0.5 }
        let right = left.map { -$0 }
        try left.withUnsafeBufferPointer { l in
            try right.withUnsafeBufferPointer { r in
                // In three uneven spans, so the queue cuts frames across calls.
                var start = 0
                for span in [1000, 4321, samples - 5321] {
                    try encoder.encode([l.baseAddress! + start, r.baseAddress! + start], count: span)
                    start += span
                }
            }
        }
        try encoder.flush()
        let packets = sink.packets
        #expect(!packets.isEmpty)
        #expect(packets.filter { !$0.isKeyframe }.isEmpty)
        var expected: Int64? = packets.first?.pts
        for packet in packets {
            #expect(packet.pts == expected)
            expected = packet.pts.map { $0 + packet.duration }
        }
        let total = packets.reduce(Int64(0)) { $0 + $1.duration }
        // 10 000 samples are 9 frames of 1024 and a short last one; AAC adds 1024 samples of priming.
        #expect(packets.count == 11)
        #expect(total == Int64(samples) + 1024)
    }
}
