import ReelCodecs

/// Which codecs each container can hold, in order of preference: the one table every "can this container hold
/// this codec" question reads — the reader's checks of `output` and `outputs`, the CLI's `-o` and `--format`, and
/// the render's encoder settings.
///
/// `builtIn` is reel's offer (`ContainerFormat.videoCodecs` and `audioCodecs`), so that ReelModel answers without
/// FFmpeg (the fuzz harness, a program that only reads projects). ReelRender asks libavformat once which of those
/// pairs its muxers can write (`keeping(video:audio:)`) and hands that table to the reader; a test checks that the
/// two agree on every pair reel offers, so they cannot drift apart (docs/decisions.md, "One capability table").
public struct ContainerCapabilities: Sendable, Equatable {
    private var video: [ContainerFormat: [VideoCodec]]
    private var audio: [ContainerFormat: [AudioCodec]]

    /// reel's own table, needing no FFmpeg: every container with the codecs reel offers in it.
    public static let builtIn = ContainerCapabilities(
        video: Dictionary(uniqueKeysWithValues: ContainerFormat.allCases.map { ($0, $0.videoCodecs) }),
        audio: Dictionary(uniqueKeysWithValues: ContainerFormat.allCases.map { ($0, $0.audioCodecs) }))

    private init(video: [ContainerFormat: [VideoCodec]], audio: [ContainerFormat: [AudioCodec]]) {
        self.video = video
        self.audio = audio
    }

    /// The video codecs `container` holds, in order of preference; none for the audio-only containers.
    public func videoCodecs(in container: ContainerFormat) -> [VideoCodec] { video[container] ?? [] }

    /// The audio codecs `container` holds, in order of preference; none for the picture containers.
    public func audioCodecs(in container: ContainerFormat) -> [AudioCodec] { audio[container] ?? [] }

    /// Whether `container` can hold `codec` video.
    public func canHold(_ container: ContainerFormat, video codec: VideoCodec) -> Bool {
        videoCodecs(in: container).contains(codec)
    }

    /// Whether `container` can hold `codec` audio.
    public func canHold(_ container: ContainerFormat, audio codec: AudioCodec) -> Bool {
        audioCodecs(in: container).contains(codec)
    }

    /// This table without the pairs a muxer cannot write: `holdsVideo` and `holdsAudio` are asked once per pair
    /// (container, codec) the table lists; the order of preference stays.
    public func keeping(video holdsVideo: (ContainerFormat, VideoCodec) -> Bool,
                        audio holdsAudio: (ContainerFormat, AudioCodec) -> Bool) -> ContainerCapabilities {
        var kept = self
        for (container, codecs) in video { kept.video[container] = codecs.filter { holdsVideo(container, $0) } }
        for (container, codecs) in audio { kept.audio[container] = codecs.filter { holdsAudio(container, $0) } }
        return kept
    }
}
