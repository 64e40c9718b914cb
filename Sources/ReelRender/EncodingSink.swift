import ReelMedia
import ReelModel
import ReelTime

/// `ExportSession`'s sink: encodes each frame, pulls the audio stage up to that frame's end and encodes the
/// samples, and muxes both streams into one file or pipe.
final class EncodingSink: MediaSink {
    private let muxer: Muxer
    private let videoEncoder: VideoEncoder
    private let audioEncoder: AudioEncoder?
    private let audio: AudioStage?
    /// Converts the yuv420p canvas when the encoder takes another pixel format (ProRes: yuv422p10le); nil when
    /// frames go to the encoder as they are.
    private let conversion: (scaler: Scaler, format: PixelFormat, width: Int, height: Int)?
    /// Soft subtitle streams, written as the frames reach their events.
    private let subtitles: [SubtitleWriter]
    private let frameDuration: Time
    /// Called after each frame and its audio are encoded, with the frame's index.
    var onFrameEncoded: ((Int64) -> Void)?

    /// Opens the muxer for `destination` with the encoders `settings` describe and starts the file; `audio`
    /// (present exactly when `settings` has audio) supplies the samples.
    /// `subtitles` adds soft subtitle streams after the video and audio, its events timed on a grid of
    /// `frameDuration`.
    init(destination: MuxerDestination, settings: EncodingSettings, output: OutputSettings, audio: AudioStage?,
         subtitles: (plans: [SubtitleTrackPlan], frameDuration: Time)? = nil) throws(RenderError)
    {
        do {
            let muxer = try Muxer(
                destination: destination, formatName: settings.container,
                metadata: output.metadata.map { ($0.key, $0.value) }, faststart: output.faststart)
            videoEncoder = try muxer.addVideo(settings.video)
            audioEncoder = try settings.audio.map { settings throws(MediaError) in try muxer.addAudio(settings) }
            self.subtitles = try (subtitles?.plans ?? []).map { plan throws(MediaError) in try SubtitleWriter(plan: plan, muxer: muxer) }
            try muxer.start()
            self.muxer = muxer
        } catch {
            throw RenderError(media: error)
        }
        self.audio = audio
        frameDuration = subtitles?.frameDuration ?? Time(seconds: 1)
        let video = settings.video
        conversion = video.pixelFormat == .yuv420p ? nil : (Scaler(), video.pixelFormat, video.width, video.height)
    }

    func consume(_ frame: ComposedFrame) throws(RenderError) {
        do {
            var picture = frame.frame
            if let conversion {
                picture = try conversion.scaler.converted(
                    picture, width: conversion.width, height: conversion.height, format: conversion.format)
            }
            try videoEncoder.encode(picture, index: frame.frameIndex)
        } catch {
            throw RenderError(media: error)
        }
        if let audio, let audioEncoder {
            try audio.pull(throughFrame: frame.frameIndex) { planes, sampleCount throws(RenderError) in
                do throws(MediaError) {
                    try audioEncoder.encode(planes, count: sampleCount)
                } catch {
                    throw RenderError(media: error)
                }
            }
        }
        if !subtitles.isEmpty {
            let next = (try? Time.frames(frame.frameIndex + 1, frameDuration: frameDuration)) ?? .zero
            let milliseconds = (try? next.count(atRate: 1000, rounding: .nearest)) ?? .max
            do {
                for writer in subtitles { try writer.write(before: milliseconds) }
            } catch {
                throw RenderError(media: error)
            }
        }
        onFrameEncoded?(frame.frameIndex)
    }

    /// Flushes the encoders and writes the container's trailer.
    func finish() throws(RenderError) {
        do {
            for writer in subtitles { try writer.finish() }
            try muxer.finish()
        } catch {
            throw RenderError(media: error)
        }
    }
}
