import ReelCodecs
import ReelMedia
import ReelModel
import ReelTime

/// The container and encoder settings an export uses, resolved from `output` and its `preset`.
///
/// The preset picks an `EncodingQuality`; ReelMedia's `EncoderTuning` turns it into each encoder's own rate factor
/// and speed settings (docs/encoders.md has the table). Explicit `video.crf`, `video.encoderPreset`,
/// `video.bitrate`, `video.gop` and `audio.bitrate` override them. Audio bitrates by preset: high 256 kb/s,
/// medium 192 kb/s, low 128 kb/s, draft 96 kb/s.
struct OutputEncoding {
    /// libavformat muxer name.
    let container: String
    var video: VideoEncoderSettings
    var audio: AudioEncoderSettings?

    /// libavformat's muxer name for each container of SPEC §2.1.
    static func muxerName(for container: ContainerFormat, imageSequence: Bool = false) -> String {
        if imageSequence { return "image2" }
        return switch container {
        case .mp4: "mp4"
        case .mov: "mov"
        case .mkv: "matroska"
        case .webm: "webm"
        case .nut: "nut"
        case .ts: "mpegts"
        case .m4a: "ipod"
        case .mp3: "mp3"
        case .opus: "opus"
        case .ogg: "ogg"
        case .flac: "flac"
        case .wav: "wav"
        case .gif: "gif"
        case .webp: "webp"
        case .apng: "apng"
        case .m3u8: "hls"
        case .mpd: "dash"
        // Without a frame number there is no sequence; validation refuses it before a render.
        case .png, .jpg: "image2"
        }
    }

    /// The audio encoder settings of `output`, nil for `"audio": false`: its codec, rate and channels, and its bit
    /// rate, or the preset's.
    static func audio(of output: OutputSettings) -> AudioEncoderSettings? {
        guard let settings = output.audio else { return nil }
        let presetBitrate = switch output.preset {
        case .high: 256_000
        case .medium: 192_000
        case .low: 128_000
        case .draft: 96_000
        }
        let codec = settings.codec
        return AudioEncoderSettings(codec: codec, sampleRate: settings.sampleRate, channels: settings.channels,
                                    bitrate: codec.isLossless ? nil : (settings.bitrate ?? presetBitrate))
    }

    /// Whether the output holds audio alone: nothing of the video composition is rendered (docs/outputs.md).
    let isAudioOnly: Bool
    /// Whether the output is pictures alone (an animation or an image sequence): no audio is mixed or written.
    let isPictureOnly: Bool

    /// An HLS or DASH output's segment length in frames: `segmentDuration` (6 s by default) on the frame grid,
    /// rounded to the nearest frame, at least one.
    static func segmentFrameCount(_ output: OutputSettings) -> Int {
        let duration = output.segmentDuration ?? OutputSettings.defaultSegmentDuration
        guard let rate = output.frameRate else { return 1 }
        let frames = (duration.seconds * Double(rate.numerator) / Double(rate.denominator)).rounded()
        return max(1, Int(frames))
    }

    init(project: CompiledProject, threads: Int = 0) throws(RenderError) {
        let output = project.output
        guard let format = output.format else {
            throw RenderError(.invalid, "cannot tell the container from the output path; set output.format")
        }
        // MP4 and MOV stream as fragmented MP4 (the muxer turns fragmentation on for a pipe).
        container = Self.muxerName(for: format, imageSequence: output.isImageSequence)
        isAudioOnly = format.isAudioOnly
        isPictureOnly = format.isPictureOnly

        let quality: EncodingQuality = switch output.preset {
        case .high: .high
        case .medium: .medium
        case .low: .low
        case .draft: .draft
        }
        let videoCodec = output.video.codec
        let pixelFormatName = output.video.effectivePixelFormat
        guard let pixelFormat = videoCodec.picturePixelFormat ?? PixelFormat(name: pixelFormatName) else {
            throw RenderError(.unsupported, "output pixel format \(pixelFormatName) is not known to FFmpeg")
        }
        guard let frameRate = output.frameRate else {
            throw RenderError(.internal, "the compiled project has no frame rate")
        }
        video = VideoEncoderSettings(
            codec: videoCodec, width: project.encodedSize.width, height: project.encodedSize.height,
            frameRate: frameRate, pixelFormat: pixelFormat,
            crf: output.video.crf, bitrate: output.video.bitrate, encoderPreset: output.video.encoderPreset,
            quality: quality,
            gop: output.video.gop, threads: threads)
        // WebP: one still per frame, or one animated file.
        video.imageSequence = output.isImageSequence

        if format.isSegmented {
            // A keyframe opens every segment: one every segment's length, and none between (no scene-cut keyframes).
            let frames = Self.segmentFrameCount(output)
            video.gop = frames
            video.x264Parameters = "scenecut=0"
        }
        audio = isPictureOnly ? nil : Self.audio(of: output)
        if isAudioOnly, audio == nil {
            throw RenderError(.invalid, "a .\(format.rawValue) output holds audio only, but output.audio is false")
        }
        let capabilities = ContainerCapabilities.ffmpeg
        guard isAudioOnly || capabilities.canHold(format, video: videoCodec),
              audio.map({ capabilities.canHold(format, audio: $0.codec) }) ?? true else {
            throw RenderError(
                .invalid, "the \(container) container cannot hold \(videoCodec.rawValue)"
                    + (audio.map { " with \($0.codec.rawValue) audio" } ?? ""))
        }
    }
}

extension ContainerCapabilities {
    /// The table this FFmpeg gives: of the pairs reel offers (`builtIn`), those whose muxer can write the codec
    /// (`Muxer.canHold`, asked once per pair, the first time the table is read). Renders and the project loader
    /// read it; the reader's checks and the render's settings therefore give one answer.
    static let ffmpeg = ContainerCapabilities.builtIn.keeping(
        video: { container, codec in
            Muxer.canHold(formatName: OutputEncoding.muxerName(for: container), video: codec, audio: nil)
        },
        audio: { container, codec in
            Muxer.canHold(formatName: OutputEncoding.muxerName(for: container), video: nil, audio: codec)
        })
}
