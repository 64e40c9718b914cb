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
}

extension SourceOpener {
    /// Openers without backwards decoding (test fakes) refuse reversed segments.
    func openReversedVideo(path: String, stream: Int) throws(MediaError) -> any VideoSourceReader {
        throw MediaError(.unsupported, "this source opener cannot play video backwards", path: path)
    }
}

extension VideoReader: VideoSourceReader {}
extension AudioReader: AudioSourceReader {}
