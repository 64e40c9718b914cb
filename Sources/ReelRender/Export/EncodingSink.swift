/// The render core's last stage in an export: each composed picture into the output writer, which encodes it and
/// brings the sound up to it.
final class EncodingSink: MediaSink {
    private let writer: OutputWriter

    init(_ writer: OutputWriter) {
        self.writer = writer
    }

    func consume(_ frame: ComposedFrame) throws(RenderError) {
        try writer.encode(frame.frame, index: frame.frameIndex)
    }

    /// Completes the file: the remaining sound, the encoders drained, the trailer.
    func finish() throws(RenderError) {
        try writer.finish()
    }
}
