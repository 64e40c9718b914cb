internal import CFFmpeg
import ReelTime

/// How to encode the re-encoded stretches of a smart render so that they splice with copied H.264 pictures.
public struct SpliceEncoderSettings: Sendable {
    /// Picture size in pixels (the copied stream's).
    public var width: Int, height: Int
    /// Frames per second; frame n has pts n in 1/frameRate.
    public var frameRate: Rational
    /// The copied stream's profile: 66 baseline, 77 main or 100 high.
    public var profile: Int
    /// The copied stream's level (level × 10).
    public var level: Int
    /// The id given to the encoder's sequence and picture parameter sets, one the copied stream does not use.
    public var parameterSetID: Int
    /// The copied stream's reorder depth (pictures decoded ahead of presentation); the encoder's is 0 when this
    /// is 0, 1 (one B-frame, no pyramid) when 1, and 2 (B-pyramid) from 2 up, never deeper.
    public var reorderDepth: Int
    /// Rate factor and speed, as for a full render.
    public var crf: Int?
    public var encoderPreset: String?
    public var quality: EncodingQuality?
    /// Encoder threads; 0 lets FFmpeg choose.
    public var threads: Int

    /// Makes settings.
    public init(width: Int, height: Int, frameRate: Rational, profile: Int, level: Int, parameterSetID: Int,
                reorderDepth: Int, crf: Int?, encoderPreset: String?, quality: EncodingQuality?, threads: Int) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.profile = profile
        self.level = level
        self.parameterSetID = parameterSetID
        self.reorderDepth = reorderDepth
        self.crf = crf
        self.encoderPreset = encoderPreset
        self.quality = quality
        self.threads = threads
    }

    /// libx264's name for an H.264 profile it can match, or nil.
    public static func x264Profile(_ profile: Int) -> String? {
        switch profile {
        case 66, 578: "baseline"  // 578: constrained baseline (66 | FF_PROFILE_H264_CONSTRAINED)
        case 77: "main"
        case 100: "high"
        default: nil
        }
    }
}

/// A libx264 encoder matched to a copied H.264 stream, for one re-encoded stretch of a smart render.
///
/// It starts with an IDR picture (a fresh encoder always does), uses B-frames only as deep as the copied stream
/// reorders (the same depth up to 2, so a decoder sizes its reorder buffer once, from whichever parameter set it
/// meets first, and Matroska readers guess the same decoding times throughout), keeps its GOPs closed, and names its parameter sets with an id the copied
/// stream does not use. Its headers are out of band (`parameterSets`), to be joined with the copied stream's in
/// one avcC record; packets come out as Annex B byte streams with pts in frames. Not thread-safe.
public final class SpliceEncoder {
    private let encoder: Encoder
    /// The encoder's sequence and picture parameter sets (NAL units without start codes).
    public let sequenceParameterSets: [[UInt8]]
    public let pictureParameterSets: [[UInt8]]

    /// Opens libx264 with `settings`; `.unsupported` when libx264 is missing or refuses them.
    public init(_ settings: SpliceEncoderSettings) throws(MediaError) {
        guard let profile = SpliceEncoderSettings.x264Profile(settings.profile) else {
            throw MediaError(.unsupported, "libx264 cannot match H.264 profile \(settings.profile)")
        }
        // Configured as a full render's encoder is (tags, rate, tuning), then matched to the copied stream.
        let video = VideoEncoderSettings(
            codec: .h264, width: settings.width, height: settings.height, frameRate: settings.frameRate,
            crf: settings.crf, encoderPreset: settings.encoderPreset, quality: settings.quality,
            threads: settings.threads)
        encoder = try Encoder(names: ["libx264"], label: "h264", path: nil) { (codec, name) throws(MediaError) in
            try configureVideo(codec, encoder: name, settings: video, path: nil)
            codec.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER | Int32(bitPattern: AV_CODEC_FLAG_CLOSED_GOP)
            let bFrames = settings.profile == 66 || settings.profile == 578 ? "bframes=0"
                : [0: "bframes=0", 1: "bframes=1:b-pyramid=none"][settings.reorderDepth] ?? "bframes=3:b-pyramid=normal"
            codec.pointee.max_b_frames = settings.reorderDepth == 0 ? 0 : (settings.reorderDepth == 1 ? 1 : 3)
            if settings.level > 0 { codec.pointee.level = Int32(settings.level) }
            try setOption(codec, "profile", profile, encoder: name, path: nil)
            try setOption(codec, "x264-params", "sps-id=\(settings.parameterSetID):open-gop=0:\(bFrames)",
                          encoder: name, path: nil)
        }
        let codec = encoder.codec
        var header: [UInt8] = []
        if let bytes = codec.pointee.extradata, codec.pointee.extradata_size > 0 {
            header = Array(UnsafeBufferPointer(start: bytes, count: Int(codec.pointee.extradata_size)))
        }
        let units = H264Bitstream.units(ofAnnexB: header)
        sequenceParameterSets = units.filter { H264Bitstream.type(of: $0) == H264Bitstream.NALType.sps }.map(Array.init)
        pictureParameterSets = units.filter { H264Bitstream.type(of: $0) == H264Bitstream.NALType.pps }.map(Array.init)
        guard !sequenceParameterSets.isEmpty, !pictureParameterSets.isEmpty else {
            throw MediaError(.internal, "libx264 gave no parameter sets")
        }
    }

    /// Encodes `frame` (yuv420p at the encoder's size) as frame `index` of this stretch, handing every packet the
    /// encoder has ready to `deliver` (pts in frames, Annex B payload). The frame is not modified.
    public func encode(_ frame: VideoFrame, index: Int64,
                       deliver: (Packet) throws(MediaError) -> Void) throws(MediaError) {
        try encoder.send(picture: frame, index: index, to: deliver)
    }

    /// Drains the encoder, handing the remaining packets to `deliver`.
    public func flush(deliver: (Packet) throws(MediaError) -> Void) throws(MediaError) {
        try encoder.send(nil, to: deliver)
    }
}
