import ReelMedia
import ReelModel
import ReelTime

/// The export of an audio-only output (`.m4a .mp3 .opus .ogg .flac .wav`): the audio stage into one audio
/// encoder and its muxer, with no video encoder and nothing of the video composition rendered or decoded, so it
/// costs what the mix costs.
///
/// The file holds exactly the export range on the sample grid: round(end × rate) − round(start × rate) samples per
/// channel, not padded to the frame grid. Encoders that prime (AAC 1024 samples, MP3 1105, Opus 312) have their
/// delay and end padding written where players find them: an MP4 edit list counted in samples (the movie's clock
/// runs at the sample rate), MP3's LAME header, Ogg Opus's pre-skip and last granule position; so a decoder gives
/// back exactly that many samples (docs/outputs.md).
enum AudioOnlyExport {
    /// Mixes and encodes `project`'s audio into `destination` in the container `settings` name; `onFrame` is
    /// called with each output frame index the audio has been written through (the progress clock). Returns the
    /// loudness report when `output.audio.loudness` asked for normalisation.
    static func render(project: CompiledProject, catalog: SourceCatalog, opener: MediaFileOpener,
                       settings: EncodingSettings, output: OutputSettings, into destination: MuxerDestination,
                       cancellation: CancellationFlag, onFrame: (Int64) -> Void) throws(RenderError) -> LoudnessReport?
    {
        guard let audioSettings = settings.audio else {
            throw RenderError(.invalid, "an audio-only output needs output.audio")
        }
        let stage = try AudioStage(project: project, catalog: catalog, opener: opener,
                                   sampleRate: audioSettings.sampleRate, channels: audioSettings.channels,
                                   cancellation: cancellation)
        let total = try AudioStage.sampleCount(of: project, sampleRate: audioSettings.sampleRate)
        do {
            let muxer = try Muxer(destination: destination, formatName: settings.container,
                                  metadata: output.metadata.map { ($0.key, $0.value) }, faststart: output.faststart)
            // MP4's edit list, which trims AAC's priming and padding, counted in samples rather than milliseconds.
            muxer.movieTimescale = audioSettings.sampleRate
            let encoder = try muxer.addAudio(audioSettings)
            try muxer.start()
            func deliver(_ planes: [UnsafePointer<Float>], _ count: Int) throws(RenderError) {
                do throws(MediaError) { try encoder.encode(planes, count: count) } catch { throw RenderError(media: error) }
            }
            // The stage stops at the output's exact length, whatever the last frame's end.
            for frame in 0..<project.frameCount {
                if cancellation.isCancelled { throw RenderError(.cancelled, "interrupted") }
                try stage.pull(throughFrame: frame, into: deliver)
                onFrame(frame)
            }
            try stage.pull(throughSample: total, into: deliver)
            if cancellation.isCancelled { throw RenderError(.cancelled, "interrupted") }
            try muxer.finish()
        } catch {
            throw RenderError(anyError: error)
        }
        return stage.loudnessReport
    }
}
