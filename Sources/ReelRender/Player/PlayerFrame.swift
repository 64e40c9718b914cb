import ReelMedia
import ReelTime

/// One composited picture of a player item, as its video output hands it to the host (the pixel buffer
/// AVPlayerItemVideoOutput's `copyPixelBuffer(forItemTime:)` returns).
public struct PlayerFrame: @unchecked Sendable {
    /// The frame's index on the item's frame grid (the export's output frame number).
    public let frameIndex: Int64
    /// The composition time the frame shows from, seconds.
    public let itemTime: Time
    /// The picture: yuv420p at the item's presentation size, after post-processing (titles). Shared with the
    /// render core and possibly a decoder, so read it, never draw into it.
    public let picture: VideoFrame
}
