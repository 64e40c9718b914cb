import ReelMedia
import ReelModel
import ReelTime

/// The container and encoder settings an export uses, resolved from `output` and its `preset`.
///
/// The preset picks an `EncodingQuality`; ReelMedia's `EncoderTuning` turns it into each encoder's own rate factor
/// and speed settings (docs/encoders.md has the table). Explicit `video.crf`, `video.encoderPreset`,
/// `video.bitrate`, `video.gop` and `audio.bitrate` override them. Audio bitrates by preset: high 256 kb/s,
/// medium 192 kb/s, low 128 kb/s, draft 96 kb/s.
struct EncodingSettings {
    /// libavformat muxer name.
    let container: String
    var video: VideoEncoderSettings
    var audio: AudioEncoderSettings?

    /// libavformat's muxer name for each container of SPEC §2.1.
    static func muxerName(for container: ContainerFormat) -> String {
        switch container {
        case .mp4: "mp4"
        case .mov: "mov"
        case .mkv: "matroska"
        case .webm: "webm"
        case .nut: "nut"
        case .ts: "mpegts"
        }
    }

    init(project: CompiledProject, threads: Int = 0) throws(RenderError) {
        let output = project.output
        guard let format = output.format else {
            throw RenderError(.invalid, "cannot tell the container from the output path; set output.format")
        }
        // MP4 and MOV stream as fragmented MP4 (the muxer turns fragmentation on for a pipe).
        container = Self.muxerName(for: format)

        let (quality, audioBitrate): (EncodingQuality, Int) = switch output.preset {
        case .high: (.high, 256_000)
        case .medium: (.medium, 192_000)
        case .low: (.low, 128_000)
        case .draft: (.draft, 96_000)
        }
        guard let videoCodec = VideoCodec(rawValue: output.video.codec.rawValue) else {
            throw RenderError(.unsupported, "video codec \(output.video.codec.rawValue) is not supported")
        }
        let pixelFormatName = output.video.effectivePixelFormat
        guard let pixelFormat = PixelFormat(name: pixelFormatName) else {
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

        if let settings = output.audio {
            guard let codec = AudioCodec(rawValue: settings.codec.rawValue) else {
                throw RenderError(.unsupported, "audio codec \(settings.codec.rawValue) is not supported")
            }
            audio = AudioEncoderSettings(
                codec: codec, sampleRate: settings.sampleRate, channels: settings.channels,
                bitrate: codec == .pcm ? nil : (settings.bitrate ?? audioBitrate))
        } else {
            audio = nil
        }
        guard Muxer.canHold(formatName: container, video: videoCodec, audio: audio?.codec) else {
            throw RenderError(
                .invalid, "the \(container) container cannot hold \(videoCodec.rawValue)"
                    + (audio.map { " with \($0.codec.rawValue) audio" } ?? ""))
        }
    }
}
