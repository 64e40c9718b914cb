import ReelMedia
import ReelModel
import ReelTime

/// The audio of a chunked render as a part of its own (`reel render --chunk audio`), so that `reel join` copies its
/// packets instead of encoding the whole timeline's audio itself.
///
/// The part holds the export's whole audio mix encoded in one run of the output's audio encoder, pulled frame by
/// frame exactly as a one-process render pulls it, so its packets are the packets a one-process render muxes. It is
/// a QuickTime file: QuickTime keeps every packet's timestamp and duration in samples and the encoder's priming
/// (AAC's 1024 samples) as an edit list, so the packets read back carry the encoder's own timestamps — Matroska
/// rounds them to milliseconds, and NUT shifts them and drops durations (docs/chunks.md). The movie's clock runs at
/// the sample rate: the edit list's length is counted in it, and at the default milliseconds the demuxer would cut
/// the last packet short. Opus is not offered: its
/// encoder marks the last packet's padding in side data that no container keeps as it was given.
///
/// Tags tie the part to the project: `reel_chunk` `audio`, `reel_audio` (the encoder settings), `reel_samples`
/// (samples per channel) and `reel_fingerprint`, which covers what changes the sound and nothing that depends on a
/// chunk count: the compiled project's explicit form without the output's file, container, metadata and picture
/// settings, with the frame count, frame rate, export range and audio encoder settings.
public enum AudioPart {
    /// What `--chunk` names the audio part by, and its `reel_chunk` tag.
    public static let chunkName = "audio"
    /// The part's container.
    public static let container = ContainerFormat.mov

    /// The encoder settings as the `reel_audio` tag spells them: `aac 48000 Hz 2 ch 192000 b/s`.
    static func describe(_ settings: AudioEncoderSettings) -> String {
        "\(settings.codec.rawValue) \(settings.sampleRate) Hz \(settings.channels) ch "
            + (settings.bitrate.map { "\($0) b/s" } ?? "-")
    }

    /// 16 hex digits (FNV-1a, 64 bits) for `project`'s audio encoded with `settings`.
    /// One of `output.audio.effects` as the fingerprint hears it (the output settings are left out of the project
    /// written above, so the whole mix's effects are described here): every parameter in table order, its bands,
    /// model file, keys and range.
    private static func describe(_ effect: AudioEffect) -> String {
        let values = AudioEffectParameter.rows(effect.owner).map { "\($0.key)=\(effect.value($0.key))" }
        let bands = effect.bands.map { band in
            "\(band.type.rawValue)(" + AudioEffectParameter.rows(.band(band.type)).map { row in
                "\(row.key)=\(band.keys[row.key].map { "\($0.keys)" } ?? "\(band.values[row.key] ?? 0)")"
            }.joined(separator: ",") + ")"
        }
        return "effect \(effect.owner.name) " + (values + bands).joined(separator: " ")
            + " model \(effect.modelFile ?? "-") learn \(effect.learnFrom.map { "\($0)" } ?? "-") keys \(effect.keys.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.keys)" })"
            + " range \(effect.timeRange.map { "\($0)" } ?? "-")\n"
    }

    public static func fingerprint(of project: CompiledProject, settings: AudioEncoderSettings) -> String {
        var sound = project
        sound.output.path = nil
        sound.output.format = nil
        sound.output.metadata = []
        sound.output.faststart = true
        sound.output.audio = nil
        sound.output.preset = .medium
        sound.output.video = VideoOutputSettings(codec: .h264)
        sound.output.size = nil
        sound.output.renderScale = Rational(1)
        sound.output.background = .black
        let rate = project.output.frameRate.map { "\($0)" } ?? "-"
        let described = "reel audio part 1\nframes \(project.frameCount)\nrate \(rate)\nrange \(project.exportRange)\n"
            + "audio \(describe(settings))\n"
            + (project.output.audio?.loudness.map { "loudness \($0.integrated) \($0.truePeak)\n" } ?? "")
            + (project.output.audio?.effects ?? []).map(describe).joined()
        return ChunkPlan.fingerprint(ProjectWriter.explicitProject(sound) + described)
    }

    /// The metadata tags of `project`'s audio part encoded with `settings`, checked by `ChunkJoiner`.
    static func tags(project: CompiledProject, settings: AudioEncoderSettings) throws(RenderError)
        -> [(key: String, value: String)]
    {
        [(PartTag.fingerprint, fingerprint(of: project, settings: settings)), (PartTag.chunk, chunkName),
         (PartTag.audio, describe(settings)),
         (PartTag.samples, String(try AudioStage.sampleCount(of: project, sampleRate: settings.sampleRate)))]
    }

    /// Why `project` cannot have an audio part written with `settings`; nil when it can.
    static func refusal(settings: AudioEncoderSettings?) -> String? {
        guard let settings else {
            return "the project writes no audio (output.audio is false): there is no audio part to render"
        }
        if settings.codec == .opus {
            return "an audio part holds aac or pcm audio; for opus output, leave the audio part out and let reel join "
                + "encode the audio"
        }
        return nil
    }

    /// Writes the export's whole audio through `writer` (a QuickTime file with the mix as its one stream), pulling
    /// the mix frame by frame over the export's `frames` frames exactly as a one-process render pulls it.
    static func render(frames: Int64, into writer: OutputWriter, cancellation: CancellationFlag) throws(RenderError) {
        for frame in 0..<frames {
            if cancellation.isCancelled { throw RenderError(.cancelled, "interrupted") }
            try writer.complete(throughFrame: frame)
        }
        if cancellation.isCancelled { throw RenderError(.cancelled, "interrupted") }
        try writer.finish()
    }
}
