import ReelMedia

/// A picture that several threads read at once: a decoded source frame or a finished canvas.
///
/// Compositing requests carry their sources as `SharedFrame`s from the decoding thread to compositor threads,
/// and finished pictures come back the same way. The handle gives read-only pixel access; code in this module
/// reaches the underlying `VideoFrame` (to encode it, or to hand it to `Scaler` as a source) but never writes it.
public final class SharedFrame: @unchecked Sendable {
    // Why `@unchecked Sendable` is sound: once a `VideoFrame` is wrapped here, nobody writes its pixels or its
    // fields again. `VideoReader` recycles a frame object only when nothing else references it (and this handle
    // does), compositors draw into canvases they allocated themselves, and whoever needs different pixels makes a
    // new frame. Reading one unchanging frame from several threads is safe, and Swift reference counting is atomic.
    /// The wrapped picture: read it, encode it, never draw into it.
    let frame: VideoFrame

    /// Wraps `frame`, which from now on nobody may modify (the caller included).
    public init(_ frame: VideoFrame) {
        self.frame = frame
    }

    /// Width in pixels.
    public var width: Int { frame.width }
    /// Height in pixels.
    public var height: Int { frame.height }
    /// The pixel format.
    public var format: PixelFormat { frame.format }
    /// Number of planes (3 for yuv420p).
    public var planeCount: Int { frame.planeCount }

    /// Base pointer of plane `index` (0 ..< planeCount), for reading only; valid while this handle lives.
    public func pixels(_ index: Int) -> UnsafePointer<UInt8> {
        UnsafePointer(frame.plane(index))
    }

    /// Bytes from one row of plane `index` to the next.
    public func stride(_ index: Int) -> Int {
        frame.stride(index)
    }
}
