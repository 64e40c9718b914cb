import ReelMedia

/// A finished output picture, in submission order.
public struct ComposedFrame {
    /// The request's `frameIndex`.
    public let frameIndex: Int64
    /// The picture, in the render context's size and format. Read-only when `isSourceFrame`.
    public let frame: VideoFrame
    /// True when the compositor passed a source picture through untouched: the frame is shared with the
    /// decoder and possibly with later requests, so never draw into it; draw into a copy instead.
    public let isSourceFrame: Bool
    /// The thread that finished the request (for tests).
    let threadID: UInt?
}
