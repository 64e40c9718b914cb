import ReelMedia

/// The last stage of the render core: where finished frames go.
///
/// `ExportSession`'s sink encodes and muxes them (pulling the audio stage as it goes), `ImageGenerator`'s keeps
/// the one picture asked for; a player's would show them. Frames arrive on the rendering thread, in output order,
/// each exactly once.
protocol MediaSink: AnyObject {
    /// Takes the next output frame. Its picture is shared (possibly a decoded source): read it, never draw into it.
    func consume(_ frame: ComposedFrame) throws(RenderError)
    /// Called once after the last frame of a render that was neither cancelled nor failed.
    func finish() throws(RenderError)
}

/// The sink that keeps the one picture asked for (`ImageGenerator`, a composition asset's reader).
final class PictureSink: MediaSink {
    /// The last picture consumed.
    var picture: VideoFrame?
    func consume(_ frame: ComposedFrame) throws(RenderError) { picture = frame.frame }
    func finish() throws(RenderError) {}
}
