import ReelMedia
import ReelTime

/// Decoded pictures of one video stream, answered sample-and-hold (the seam between the render core and
/// ReelMedia's `VideoReader`; tests put numbered fake pictures behind it).
protocol VideoSourceReader: AnyObject {
    /// The picture with the greatest presentation time ≤ `sourceTime` (seconds from the media's start); the same
    /// object again while the answer does not change. Requests come in non-decreasing time except after a seek.
    func frame(at sourceTime: Time) throws(MediaError) -> VideoFrame
}

/// Decoded sound of one audio stream on the output's sample grid (the seam in front of ReelMedia's
/// `AudioReader`).
protocol AudioSourceReader: AnyObject {
    /// Writes source samples [firstSample, firstSample + sampleCount) at the output rate into `channels`, one
    /// planar float buffer per output channel; silence outside the stream.
    func read(from firstSample: Int64, count sampleCount: Int, into channels: [UnsafeMutablePointer<Float>])
        throws(MediaError)
    /// The sample index just past the stream's last sample, once a read has decoded to its end; nil before (and
    /// for readers that cannot tell).
    var endSample: Int64? { get }
}

extension AudioSourceReader {
    var endSample: Int64? { nil }
}

/// Opens readers for the files a `SourceCatalog` names.
protocol SourceOpener {
    /// A reader of video stream `stream` of the file at `path`.
    func openVideo(path: String, stream: Int) throws(MediaError) -> any VideoSourceReader
    /// A reader of video stream `stream` of the file at `path` for a reversed segment: its `frame(at: s)` is the
    /// picture with the greatest presentation time < s, decoded backwards in bounded windows.
    func openReversedVideo(path: String, stream: Int) throws(MediaError) -> any VideoSourceReader
    /// A reader of audio stream `stream` of the file at `path`, resampled to `sampleRate` Hz and `channels`.
    func openAudio(path: String, stream: Int, sampleRate: Int, channels: Int) throws(MediaError)
        -> any AudioSourceReader
    /// The compressed packets of the file at `path`, undecoded (smart render's index and copies, a join's parts,
    /// an audio part).
    func openPackets(path: String) throws(MediaError) -> any PacketSource
    /// What the file at `path` holds (`ProbedMedia` and `ProbeCache` probe through here, so a test can put media
    /// facts behind the seam as it puts pictures and packets).
    func probe(path: String) throws(MediaError) -> MediaInfo
}

/// The compressed packets of one media file in container order, read without decoding (the seam in front of
/// ReelMedia's `PacketReader`; tests put packet streams with a chosen keyframe grid behind it).
protocol PacketSource: AnyObject {
    /// The file's streams: the index packets carry (`Packet.streamIndex`) and the kind of each, in the file's order.
    var streams: [(index: Int, type: MediaType)] { get }
    /// The container's metadata tags, in the container's order.
    var metadata: [(key: String, value: String)] { get }
    /// The coding parameters of video stream `streamIndex`; nil when there is no such stream.
    func codedParameters(ofStream streamIndex: Int) -> CodedVideoParameters?
    /// The coding parameters of audio stream `streamIndex`; nil when there is no such stream or it is not audio.
    func codedAudioParameters(ofStream streamIndex: Int) -> CodedAudioParameters?
    /// `timestamp` (ticks of stream `streamIndex`'s time base) as seconds from the media's start; nil when it
    /// cannot be represented.
    func relativeTime(_ timestamp: Int64, stream streamIndex: Int) -> Time?
    /// Moves reading to the last keyframe of stream `streamIndex` at or before `timestamp` (its time base).
    func seek(stream streamIndex: Int, toTimestamp timestamp: Int64) throws(MediaError)
    /// Reads the next packet of any stream into `packet`; false at the end.
    func read(into packet: Packet) throws(MediaError) -> Bool
    /// The FFmpeg reader behind the packets, whose stream parameters a muxer copies when the packets are written;
    /// nil for a source that is no file (a test's fake), which can be planned and checked but not written.
    var fileReader: PacketReader? { get }
}

extension PacketSource {
    /// The FFmpeg reader behind the packets, or `.internal` naming `path` when there is none to write from.
    func requireFileReader(_ path: String) throws(RenderError) -> PacketReader {
        guard let fileReader else {
            throw RenderError(.internal, "\(path) is not a file whose packets can be written")
        }
        return fileReader
    }
}

/// Opens files through FFmpeg under a media policy: the opener every real render uses.
struct MediaFileOpener: SourceOpener {
    /// Which files and protocols may be opened, and how decoding errors are treated.
    let policy: MediaPolicy

    func openVideo(path: String, stream: Int) throws(MediaError) -> any VideoSourceReader {
        try VideoReader(path: path, streamIndex: stream, policy: policy)
    }

    func openReversedVideo(path: String, stream: Int) throws(MediaError) -> any VideoSourceReader {
        ReversedVideoSource(try ReversedVideoReader(path: path, streamIndex: stream, policy: policy))
    }

    func openAudio(path: String, stream: Int, sampleRate: Int, channels: Int) throws(MediaError)
        -> any AudioSourceReader
    {
        try AudioReader(path: path, streamIndex: stream, policy: policy, sampleRate: sampleRate, channels: channels)
    }

    func openPackets(path: String) throws(MediaError) -> any PacketSource {
        try PacketReader(path: path, policy: policy)
    }

    func probe(path: String) throws(MediaError) -> MediaInfo {
        try MediaProbe.probe(path: path, policy: policy)
    }
}

extension SourceOpener {
    /// Openers without backwards decoding (test fakes) refuse reversed segments.
    func openReversedVideo(path: String, stream: Int) throws(MediaError) -> any VideoSourceReader {
        throw MediaError(.unsupported, "this source opener cannot play video backwards", path: path)
    }

    /// Openers without probing (test fakes of pictures and packets) refuse to describe files.
    func probe(path: String) throws(MediaError) -> MediaInfo {
        throw MediaError(.unsupported, "this source opener cannot probe files", path: path)
    }

    /// Openers without packet access (test fakes of decoded pictures) refuse smart renders and joins.
    func openPackets(path: String) throws(MediaError) -> any PacketSource {
        throw MediaError(.unsupported, "this source opener cannot read packets", path: path)
    }
}

extension VideoReader: VideoSourceReader {}
extension AudioReader: AudioSourceReader {}

extension PacketReader: PacketSource {
    var streams: [(index: Int, type: MediaType)] { info.streams.map { ($0.index, $0.type) } }
    var fileReader: PacketReader? { self }
}
