internal import CFFmpeg
import ReelTime

/// The codec of a spliced stream: what the copied pictures are, and so what the re-encoded ones must be.
public enum SpliceCodec: String, Sendable {
    case h264, hevc
}

/// How to encode the re-encoded stretches of a smart render so that they splice with copied H.264 or HEVC pictures.
public struct SpliceEncoderSettings: Sendable {
    /// The copied stream's codec: libx264 for H.264, libx265 for HEVC.
    public var codec: SpliceCodec
    /// Picture size in pixels (the copied stream's).
    public var width: Int, height: Int
    /// Frames per second; frame n has pts n in 1/frameRate.
    public var frameRate: Rational
    /// The pictures' format: the copied stream's (yuv420p; yuv420p10le for HEVC Main 10).
    public var pixelFormat: PixelFormat
    /// The copied stream's profile: H.264 66 baseline, 77 main or 100 high; HEVC 1 Main or 2 Main 10.
    public var profile: Int
    /// The copied stream's level (H.264: level × 10; HEVC: `general_level_idc`, level × 30).
    public var level: Int
    /// HEVC: whether the copied stream is of the High tier.
    public var isHighTier: Bool
    /// H.264: the id given to the encoder's sequence and picture parameter sets, one the copied stream does not use.
    public var parameterSetID: Int
    /// HEVC: the ids the encoder's parameter sets and slices are renamed to, ones the copied stream does not use.
    public var renaming: HEVCBitstream.Renaming?
    /// The copied stream's reorder depth (pictures decoded ahead of presentation); the encoder's is 0 when this
    /// is 0, 1 (one B-frame, no pyramid) when 1, and 2 (B-pyramid) from 2 up, never deeper.
    public var reorderDepth: Int
    /// Rate factor and speed, as for a full render.
    public var crf: Int?
    public var encoderPreset: String?
    public var quality: EncodingQuality?
    /// Encoder threads; 0 lets FFmpeg choose.
    public var threads: Int

    /// Makes settings for H.264.
    public init(width: Int, height: Int, frameRate: Rational, profile: Int, level: Int, parameterSetID: Int,
                reorderDepth: Int, crf: Int?, encoderPreset: String?, quality: EncodingQuality?, threads: Int) {
        self.codec = .h264
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.pixelFormat = .yuv420p
        self.profile = profile
        self.level = level
        self.isHighTier = false
        self.parameterSetID = parameterSetID
        self.renaming = nil
        self.reorderDepth = reorderDepth
        self.crf = crf
        self.encoderPreset = encoderPreset
        self.quality = quality
        self.threads = threads
    }

    /// Makes settings for HEVC.
    public init(hevcWidth width: Int, height: Int, frameRate: Rational, pixelFormat: PixelFormat, profile: Int,
                level: Int, isHighTier: Bool, renaming: HEVCBitstream.Renaming, reorderDepth: Int, crf: Int?,
                encoderPreset: String?, quality: EncodingQuality?, threads: Int) {
        self.codec = .hevc
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.pixelFormat = pixelFormat
        self.profile = profile
        self.level = level
        self.isHighTier = isHighTier
        self.parameterSetID = 0
        self.renaming = renaming
        self.reorderDepth = reorderDepth
        self.crf = crf
        self.encoderPreset = encoderPreset
        self.quality = quality
        self.threads = threads
    }

    /// libx265's name for an HEVC profile it can match with `pixelFormat`, or nil.
    public static func x265Profile(_ profile: Int, pixelFormat: String) -> String? {
        switch (profile, pixelFormat) {
        case (1, "yuv420p"): "main"  // FF_PROFILE_HEVC_MAIN
        case (2, "yuv420p10le"): "main10"  // FF_PROFILE_HEVC_MAIN_10
        default: nil
        }
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

/// A libx264 or libx265 encoder matched to a copied H.264 or HEVC stream, for the re-encoded stretches of a smart
/// render.
///
/// Each stretch starts with an IDR picture (`encode(_:index:startsStretch:deliver:)`), uses B-frames only as deep as the copied stream
/// reorders (the same depth up to 2, so a decoder sizes its reorder buffer once, from whichever parameter set it
/// meets first, and Matroska readers guess the same decoding times throughout), keeps its GOPs closed, and names its
/// parameter sets with ids the copied stream does not use: x264's `sps-id`; for x265, which always writes id 0,
/// its VPS, SPS, PPS and every slice are renamed (`HEVCBitstream.Renaming`). Its headers are out of band
/// (`parameterSets`), to be joined with the copied stream's in one avcC or hvcC record; packets come out as Annex B
/// byte streams with pts in frames and no parameter sets. Not thread-safe.
public final class SpliceEncoder {
    private let encoder: Encoder
    private let renaming: HEVCBitstream.Renaming?
    /// H.264: the encoder's sequence and picture parameter sets (NAL units without start codes).
    public let sequenceParameterSets: [[UInt8]]
    public let pictureParameterSets: [[UInt8]]
    /// Every parameter set of the encoder, renamed for HEVC (VPS, SPS, PPS), without start codes.
    public let parameterSets: [[UInt8]]

    /// Opens libx264 or libx265 with `settings`; `.unsupported` when the encoder is missing or refuses them.
    public init(_ settings: SpliceEncoderSettings) throws(MediaError) {
        switch settings.codec {
        case .h264: encoder = try Self.openX264(settings)
        case .hevc: encoder = try Self.openX265(settings)
        }
        renaming = settings.renaming
        let codec = encoder.codec
        var header: [UInt8] = []
        if let bytes = codec.pointee.extradata, codec.pointee.extradata_size > 0 {
            header = Array(UnsafeBufferPointer(start: bytes, count: Int(codec.pointee.extradata_size)))
        }
        let units = H264Bitstream.units(ofAnnexB: header)
        switch settings.codec {
        case .h264:
            sequenceParameterSets = units.filter { H264Bitstream.type(of: $0) == H264Bitstream.NALType.sps }.map(Array.init)
            pictureParameterSets = units.filter { H264Bitstream.type(of: $0) == H264Bitstream.NALType.pps }.map(Array.init)
            parameterSets = sequenceParameterSets + pictureParameterSets
            guard !sequenceParameterSets.isEmpty, !pictureParameterSets.isEmpty else {
                throw MediaError(.internal, "libx264 gave no parameter sets")
            }
        case .hevc:
            sequenceParameterSets = []
            pictureParameterSets = []
            var sets: [[UInt8]] = []
            for unit in units where HEVCBitstream.isParameterSet(HEVCBitstream.type(of: unit)) {
                guard let renamed = settings.renaming?.apply(to: unit) else {
                    throw MediaError(.internal, "cannot rename the parameter sets of libx265")
                }
                sets.append(renamed)
            }
            parameterSets = sets
            guard Set(sets.map { HEVCBitstream.type(of: $0[...]) }).count == 3 else {
                throw MediaError(.internal, "libx265 gave no VPS, SPS and PPS")
            }
        }
    }

    private static func openX264(_ settings: SpliceEncoderSettings) throws(MediaError) -> Encoder {
        guard let profile = SpliceEncoderSettings.x264Profile(settings.profile) else {
            throw MediaError(.unsupported, "libx264 cannot match H.264 profile \(settings.profile)")
        }
        // Configured as a full render's encoder is (tags, rate, tuning), then matched to the copied stream.
        let video = VideoEncoderSettings(
            codec: .h264, width: settings.width, height: settings.height, frameRate: settings.frameRate,
            crf: settings.crf, encoderPreset: settings.encoderPreset, quality: settings.quality,
            threads: settings.threads)
        return try Encoder(names: ["libx264"], label: "h264", path: nil) { (codec, name) throws(MediaError) in
            try configureVideo(codec, encoder: name, settings: video, path: nil)
            codec.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER | Int32(bitPattern: AV_CODEC_FLAG_CLOSED_GOP)
            let bFrames = settings.profile == 66 || settings.profile == 578 ? "bframes=0"
                : [0: "bframes=0", 1: "bframes=1:b-pyramid=none"][settings.reorderDepth] ?? "bframes=3:b-pyramid=normal"
            codec.pointee.max_b_frames = settings.reorderDepth == 0 ? 0 : (settings.reorderDepth == 1 ? 1 : 3)
            if settings.level > 0 { codec.pointee.level = Int32(settings.level) }
            try setOption(codec, "profile", profile, encoder: name, path: nil)
            // A stretch's first picture, forced to start a GOP, must be an IDR picture (not a plain I picture).
            try setOption(codec, "forced-idr", "1", encoder: name, path: nil)
            // These parameters replace configureVideo's, so cpu-independent is repeated (same bytes on any CPU).
            try setOption(codec, "x264-params",
                          "cpu-independent=1:sps-id=\(settings.parameterSetID):open-gop=0:\(bFrames)",
                          encoder: name, path: nil)
        }
    }

    private static func openX265(_ settings: SpliceEncoderSettings) throws(MediaError) -> Encoder {
        guard let profile = SpliceEncoderSettings.x265Profile(settings.profile, pixelFormat: settings.pixelFormat.name)
        else {
            throw MediaError(.unsupported, "libx265 cannot match HEVC profile \(settings.profile) in \(settings.pixelFormat.name)")
        }
        let video = VideoEncoderSettings(
            codec: .hevc, width: settings.width, height: settings.height, frameRate: settings.frameRate,
            pixelFormat: settings.pixelFormat, crf: settings.crf, encoderPreset: settings.encoderPreset,
            quality: settings.quality, threads: settings.threads)
        return try Encoder(names: ["libx265"], label: "hevc", path: nil) { (codec, name) throws(MediaError) in
            try configureVideo(codec, encoder: name, settings: video, path: nil)
            codec.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
            codec.pointee.max_b_frames = Int32(min(settings.reorderDepth, 2) == 2 ? 3 : settings.reorderDepth)
            try setOption(codec, "profile", profile, encoder: name, path: nil)
            // Without it libx265 makes a forced keyframe a plain I picture, which later pictures may refer across.
            try setOption(codec, "forced-idr", "1", encoder: name, path: nil)
            let bFrames = [0: "bframes=0", 1: "bframes=1:b-pyramid=0"][settings.reorderDepth] ?? "bframes=3:b-pyramid=1"
            var parameters = ["log-level=\(x265LogLevel())", "open-gop=0", "repeat-headers=0", "info=0", bFrames]
            if let threads = video.threading(forEncoder: name).x265Parameters { parameters.append(threads) }
            // The copied stream's level and tier (general_level_idc is level × 30; x265 takes level × 10).
            if settings.level > 0, settings.level % 3 == 0 { parameters.append("level-idc=\(settings.level / 3)") }
            parameters.append("high-tier=\(settings.isHighTier ? 1 : 0)")
            // These parameters replace configureVideo's (log level and frame threads are repeated).
            try setOption(codec, "x265-params", parameters.joined(separator: ":"), encoder: name, path: nil)
        }
    }

    /// Encodes `frame` (at the encoder's size and pixel format) as picture `index` of the encoder's stream, handing
    /// every packet the encoder has ready to `deliver` (pts in pictures, Annex B payload without parameter sets). The
    /// frame is not modified. `startsStretch` makes the picture an IDR picture: nothing before it in decode order
    /// comes after it, and nothing after it refers to anything before it, so one encoder can make many stretches.
    public func encode(_ frame: VideoFrame, index: Int64, startsStretch: Bool = false,
                       deliver: (Packet) throws(MediaError) -> Void) throws(MediaError) {
        try encoder.send(picture: frame, index: index, keyframe: startsStretch) { (packet) throws(MediaError) in
            try rename(packet)
            try deliver(packet)
        }
    }

    /// Drains the encoder, handing the remaining packets to `deliver`.
    public func flush(deliver: (Packet) throws(MediaError) -> Void) throws(MediaError) {
        try encoder.send(nil) { (packet) throws(MediaError) in
            try rename(packet)
            try deliver(packet)
        }
    }

    /// HEVC: the packet's slices renamed onto the renamed parameter sets, and any parameter set left out.
    private func rename(_ packet: Packet) throws(MediaError) {
        guard let renaming else { return }
        var bytes: [UInt8] = []
        for unit in H264Bitstream.units(ofAnnexB: packet.data) where !HEVCBitstream.isParameterSet(HEVCBitstream.type(of: unit)) {
            guard let renamed = renaming.apply(to: unit) else {
                throw MediaError(.internal, "cannot rename a slice of libx265 to PPS \(renaming.pps)")
            }
            bytes += [0, 0, 0, 1] + renamed
        }
        try packet.replaceData(with: bytes)
    }
}
