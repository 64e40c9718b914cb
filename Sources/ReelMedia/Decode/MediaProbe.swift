internal import CFFmpeg
import ReelTime

/// The kind of data a stream carries.
public enum MediaType: String, Sendable {
    case video, audio, subtitle, data, attachment, unknown

    init(_ type: AVMediaType) {
        switch type {
        case AVMEDIA_TYPE_VIDEO: self = .video
        case AVMEDIA_TYPE_AUDIO: self = .audio
        case AVMEDIA_TYPE_SUBTITLE: self = .subtitle
        case AVMEDIA_TYPE_DATA: self = .data
        case AVMEDIA_TYPE_ATTACHMENT: self = .attachment
        default: self = .unknown
        }
    }
}

/// What the container says about one stream.
///
/// Times are seconds relative to the media's start (the earliest start of its audio and video
/// streams), so the first frame of an ordinary file is at 0 and MPEG-TS start offsets vanish.
public struct StreamInfo: Sendable {
    /// Index of the stream in the container (`AVStream.index`).
    public let index: Int
    /// Video, audio, ….
    public let type: MediaType
    /// FFmpeg's codec name (`h264`, `aac`, `pcm_s16le`, …).
    public let codec: String
    /// The stream's time base in seconds per tick.
    public let timeBase: Rational
    /// Start of the stream in seconds from the media's start; nil when unknown.
    public let start: Time?
    /// Duration of the stream in seconds; nil when the container does not say.
    public let duration: Time?
    /// Stored picture width in pixels (0 for non-video).
    public let width: Int
    /// Stored picture height in pixels (0 for non-video).
    public let height: Int
    /// Stored pixel format name (`yuv420p`), nil when unknown or not video.
    public let pixelFormat: String?
    /// Display rotation in degrees counter-clockwise, in quarter turns: one of 0, 90, 180, 270.
    public let rotation: Int
    /// The display matrix's rotation as ffprobe reports it: degrees counter-clockwise in [−180, 180], whole
    /// degrees towards zero (ffprobe's -90 is `rotation` 270); 0 without a display matrix.
    public let reportedRotation: Int
    /// The shape of one stored pixel, width over height (`sample_aspect_ratio`, as ffprobe guesses it from the
    /// container and the codec); 1 when the file does not say. Anamorphic video has another value: PAL 4:3 MPEG-2 at
    /// 352×288 has 12/11, so its pictures show 384 pixels wide.
    public let sampleAspectRatio: Rational
    /// Width after the sample aspect ratio and rotation, in square pixels (see `squarePixelWidth`).
    public let displayWidth: Int
    /// Height after the sample aspect ratio and rotation, in square pixels.
    public let displayHeight: Int

    /// The width in square pixels of a stored picture `width` pixels wide: `width` × `sampleAspectRatio`, rounded
    /// to the nearest even number (4:2:0 pictures have even sides), at least 2; `width` itself for square pixels.
    public static func squarePixelWidth(_ width: Int, sampleAspectRatio: Rational) -> Int {
        guard sampleAspectRatio != Rational(1), sampleAspectRatio.numerator > 0, width > 0 else { return width }
        let exact = Double(width) * Double(sampleAspectRatio.numerator) / Double(sampleAspectRatio.denominator)
        return max(2, Int((exact / 2).rounded()) * 2)
    }
    /// The stream's real base frame rate (`r_frame_rate`) in frames per second; nil when 0/0.
    public let frameRate: Rational?
    /// The average frame rate (`avg_frame_rate`) in frames per second; nil when 0/0.
    public let averageFrameRate: Rational?
    /// True for cover art stored as a video stream (`AV_DISPOSITION_ATTACHED_PIC`).
    public let isAttachedPicture: Bool
    /// Samples per second per channel (0 for non-audio).
    public let sampleRate: Int
    /// Number of audio channels (0 for non-audio).
    public let channels: Int
    /// Channel layout description (`stereo`, `5.1`), nil when unknown or not audio.
    public let channelLayout: String?
    /// The `language` tag, when present.
    public let language: String?
    /// Number of frames (`nb_frames`) when the container knows it.
    public let frameCount: Int64?
}

/// What the container says about a media file.
public struct MediaInfo: Sendable {
    /// The path as given to `MediaProbe.probe`.
    public let path: String
    /// The demuxer's name (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, …).
    public let formatName: String
    /// Absolute start of the media in the container's own clock, in seconds (MPEG-TS offsets show
    /// here); every other time in this API is relative to it.
    public let startTime: Time
    /// Duration of the whole media in seconds; nil when unknown.
    public let duration: Time?
    /// Every stream, in container order.
    public let streams: [StreamInfo]
    let bestVideoIndex: Int?
    let bestAudioIndex: Int?

    /// The stream `av_find_best_stream` picks for video (never an attached picture); nil if none.
    public var bestVideoStream: StreamInfo? { bestVideoIndex.flatMap { i in streams.first { $0.index == i } } }
    /// The stream `av_find_best_stream` picks for audio; nil if none.
    public var bestAudioStream: StreamInfo? { bestAudioIndex.flatMap { i in streams.first { $0.index == i } } }
}

/// Reads container and stream information without decoding.
public enum MediaProbe {
    /// Opens `path` under `policy` and describes it.
    ///
    /// Throws `.missing`, `.unreadable`, `.notRegularFile`, `.refusedProtocol` or `.notMedia`.
    public static func probe(path: String, policy: MediaPolicy) throws(MediaError) -> MediaInfo {
        let input = try InputFile(path: path, policy: policy)
        return describe(input)
    }

    static func describe(_ input: InputFile) -> MediaInfo {
        let context = input.context
        var streams: [StreamInfo] = []
        for index in 0..<input.streamCount {
            if let stream = input.stream(index) { streams.append(describe(stream, in: input)) }
        }
        let formatName = context.pointee.iformat.map { String(cString: $0.pointee.name) } ?? "unknown"
        let duration = context.pointee.duration
        return MediaInfo(
            path: input.path,
            formatName: formatName,
            startTime: input.startTime,
            duration: duration == cff_nopts_value() || duration < 0
                ? nil : Time(value: duration, timescale: Int64(AV_TIME_BASE)),
            streams: streams,
            bestVideoIndex: bestStream(context, AVMEDIA_TYPE_VIDEO),
            bestAudioIndex: bestStream(context, AVMEDIA_TYPE_AUDIO))
    }

    /// `av_find_best_stream`'s choice, except that attached pictures (cover art) never count as video.
    private static func bestStream(_ context: UnsafeMutablePointer<AVFormatContext>, _ type: AVMediaType) -> Int? {
        var candidates: [UnsafeMutablePointer<AVStream>] = []
        for index in 0..<Int(context.pointee.nb_streams) {
            guard let stream = context.pointee.streams[index], let parameters = stream.pointee.codecpar,
                  parameters.pointee.codec_type == type,
                  stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0 else { continue }
            candidates.append(stream)
        }
        // A negative answer (AVERROR_STREAM_NOT_FOUND) is a result, not a failure: fall back below.
        let chosen = av_find_best_stream(context, type, -1, -1, nil, 0)
        if chosen >= 0, candidates.contains(where: { $0.pointee.index == chosen }) { return Int(chosen) }
        // Same preference order as av_find_best_stream: default disposition first, then the most frames.
        let best = candidates.max { a, b in
            let defaultA = a.pointee.disposition & AV_DISPOSITION_DEFAULT != 0
            let defaultB = b.pointee.disposition & AV_DISPOSITION_DEFAULT != 0
            if defaultA != defaultB { return !defaultA }
            if a.pointee.nb_frames != b.pointee.nb_frames { return a.pointee.nb_frames < b.pointee.nb_frames }
            return a.pointee.index > b.pointee.index
        }
        return best.map { Int($0.pointee.index) }
    }

    static func describe(_ stream: UnsafeMutablePointer<AVStream>, in input: InputFile) -> StreamInfo {
        let parameters = stream.pointee.codecpar.pointee
        let type = MediaType(parameters.codec_type)
        let timeBase = stream.pointee.time_base
        let isVideo = type == .video
        let isAudio = type == .audio
        let matrixDegrees = isVideo ? displayMatrixDegrees(stream) : nil
        let rotation = matrixDegrees.map(quarterTurns) ?? 0
        let width = isVideo ? Int(max(parameters.width, 0)) : 0
        let height = isVideo ? Int(max(parameters.height, 0)) : 0
        let guessed = isVideo ? av_guess_sample_aspect_ratio(input.context, stream, nil) : AVRational(num: 0, den: 1)
        let sampleAspect = rational(guessed) ?? Rational(1)
        let squareWidth = StreamInfo.squarePixelWidth(width, sampleAspectRatio: sampleAspect)
        var layout: String?
        var channels = 0
        if isAudio {
            channels = Int(max(parameters.ch_layout.nb_channels, 0))
            var copy = parameters.ch_layout
            layout = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { buffer in
                guard let base = buffer.baseAddress,
                      parameters.ch_layout.order != AV_CHANNEL_ORDER_UNSPEC,
                      av_channel_layout_describe(&copy, base, 128) > 0 else { return nil }
                return String(cString: base)
            }
        }
        var pixelFormat: String?
        if isVideo, let name = av_get_pix_fmt_name(AVPixelFormat(rawValue: parameters.format)) {
            pixelFormat = String(cString: name)
        }
        var language: String?
        if let entry = av_dict_get(stream.pointee.metadata, "language", nil, 0), let value = entry.pointee.value {
            language = String(cString: value)
        }
        let duration = stream.pointee.duration
        return StreamInfo(
            index: Int(stream.pointee.index),
            type: type,
            codec: String(cString: avcodec_get_name(parameters.codec_id)),
            timeBase: timeBase.den > 0 ? Rational(Int64(timeBase.num), Int64(timeBase.den)) : Rational(0),
            start: input.relativeTime(stream.pointee.start_time, timeBase),
            duration: duration == cff_nopts_value() || duration < 0 ? nil : exactTime(duration, timeBase),
            width: width,
            height: height,
            pixelFormat: pixelFormat,
            rotation: rotation,
            reportedRotation: matrixDegrees.map { Int($0) } ?? 0,
            sampleAspectRatio: sampleAspect,
            displayWidth: rotation % 180 == 0 ? squareWidth : height,
            displayHeight: rotation % 180 == 0 ? height : squareWidth,
            frameRate: rational(stream.pointee.r_frame_rate),
            averageFrameRate: rational(stream.pointee.avg_frame_rate),
            isAttachedPicture: stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0,
            sampleRate: isAudio ? Int(max(parameters.sample_rate, 0)) : 0,
            channels: channels,
            channelLayout: layout,
            language: language,
            frameCount: stream.pointee.nb_frames > 0 ? stream.pointee.nb_frames : nil)
    }

    private static func rational(_ value: AVRational) -> Rational? {
        guard value.num > 0, value.den > 0 else { return nil }
        return Rational(Int64(value.num), Int64(value.den))
    }

    /// Counter-clockwise rotation from the display matrix, rounded to a multiple of 90 in 0..<360.
    /// The display matrix's counter-clockwise rotation in degrees, [−180, 180]; nil without a usable matrix.
    private static func displayMatrixDegrees(_ stream: UnsafeMutablePointer<AVStream>) -> Double? {
        var size = 0
        guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size),
              size >= 9 * MemoryLayout<Int32>.size else { return nil }
        let degrees = av_display_rotation_get(UnsafeRawPointer(data).assumingMemoryBound(to: Int32.self))
        return degrees.isFinite ? degrees : nil
    }

    /// `degrees` rounded to the nearest quarter turn, as 0, 90, 180 or 270.
    private static func quarterTurns(_ degrees: Double) -> Int {
        let turns = Int((degrees / 90).rounded())
        return ((turns % 4) + 4) % 4 * 90
    }
}
