import ReelMedia

/// Drives a `VideoCompositor` for the exporter: starts requests in order, keeps up to `depth` of them being
/// composed at once, and hands the results back in submission order.
///
/// Use it from one thread (the exporter's); compositing happens on the compositor's own threads, overlapping
/// with whatever this thread does between calls (decoding the next sources, encoding the previous result):
///
/// ```swift
/// let queue = try CompositionQueue(compositor: compositor, renderContext: context)
/// for n in 0..<frameCount {
///     if queue.pendingCount >= queue.depth, let done = try queue.next() { encode(done) }
///     try queue.submit(request(for: n))
/// }
/// while let done = try queue.next() { encode(done) }
/// ```
///
/// Sources in a format the compositor does not read are converted here (once per decoded frame and track).
/// Releasing the queue cancels whatever is still pending.
public final class CompositionQueue {
    /// The compositor doing the drawing.
    public let compositor: VideoCompositor
    /// The canvas every request is drawn into.
    public let renderContext: RenderContext
    /// How many requests may be composed at once; `submit` waits while this many are unfinished.
    public let depth: Int

    /// Submitted requests not yet returned by `next()`, oldest first. A returned request is dropped at once: it
    /// holds its source pictures, and keeping it would keep their decoder buffers from being reused.
    private var pending: [AsynchronousCompositionRequest] = []
    private let scaler = Scaler()
    /// The last conversion per track: source frame and converted picture.
    private var converted: [Int: (source: VideoFrame, result: SharedFrame)] = [:]

    /// Announces `renderContext` to `compositor` and prepares to keep up to `depth` (at least 1) requests in flight.
    ///
    /// Throws `.unsupported` when the compositor cannot produce the context's pixel format or rejects the context.
    public init(compositor: VideoCompositor, renderContext: RenderContext, depth: Int = 3) throws(MediaError) {
        guard compositor.outputPixelFormats.contains(renderContext.pixelFormat) else {
            throw MediaError(.unsupported, "the compositor cannot produce \(renderContext.pixelFormat.name) pictures")
        }
        try compositor.renderContextChanged(renderContext)
        self.compositor = compositor
        self.renderContext = renderContext
        self.depth = max(1, depth)
    }

    deinit {
        cancelAll()
    }

    /// Requests submitted and not yet returned by `next()`.
    public var pendingCount: Int { pending.count }

    /// Starts composing `request` after the ones already submitted.
    ///
    /// Waits first while `depth` submitted requests are still being composed (finished results wait for `next()`
    /// and do not count). Throws when a source must be converted and cannot be.
    public func submit(_ request: CompositionRequest) throws(MediaError) {
        let prepared = try convertingSources(of: request)
        var index = 0
        while pending.count - index >= depth, index < pending.count {
            _ = pending[index].waitUntilFinished()
            index += 1
        }
        let asynchronous = AsynchronousCompositionRequest(prepared, renderContext: renderContext)
        pending.append(asynchronous)
        compositor.startRequest(asynchronous)
    }

    /// The oldest submitted request's picture, waiting for it if needed; nil when nothing is pending.
    ///
    /// Throws the compositor's error for that request, or `.internal` if the compositor cancelled it on its own
    /// (after `cancelAll()` nothing is pending, so this returns nil).
    public func next() throws(MediaError) -> ComposedFrame? {
        guard !pending.isEmpty else { return nil }
        // At most `depth` requests are pending, so removing the first is cheap.
        let request = pending.removeFirst()
        switch request.waitUntilFinished() {
        case .composed(let picture, let threadID):
            let isSource = request.request.layers.contains { $0.picture === picture || $0.picture.frame === picture.frame }
            return ComposedFrame(frameIndex: request.request.frameIndex, frame: picture.frame,
                                 isSourceFrame: isSource, threadID: threadID)
        case .failed(let error):
            throw error
        case .cancelled:
            throw MediaError(.internal, "the compositor cancelled frame \(request.request.frameIndex)")
        }
    }

    /// Cancels every pending request and waits until the compositor has finished them all; nothing stays pending.
    public func cancelAll() {
        let outstanding = pending
        guard !outstanding.isEmpty else { return }
        for request in outstanding { request.requestCancellation() }
        compositor.cancelAllPendingRequests()
        for request in outstanding { _ = request.waitUntilFinished() }
        pending.removeAll()
    }

    /// Whether `layer`'s picture must be converted before the compositor may read it: a format it does not
    /// take, full-range samples, or BT.601 coding (the compositor and the encoder work in BT.709 video range).
    private func needsConversion(_ layer: LayerSource, accepted: [PixelFormat]) -> Bool {
        let picture = layer.picture.frame
        return !accepted.contains(layer.picture.format) || picture.isFullRange || picture.colorMatrix == .bt601
    }

    /// `request` with every layer picture (its mattes' too) in a format the compositor reads.
    private func convertingSources(of request: CompositionRequest) throws(MediaError) -> CompositionRequest {
        let accepted = compositor.sourcePixelFormats
        let all = Self.flattened(request.layers)
        if !converted.isEmpty {
            let tracks = Set(all.map(\.track))
            converted = converted.filter { tracks.contains($0.key) }
        }
        guard let target = accepted.first, all.contains(where: { needsConversion($0, accepted: accepted) })
        else { return request }
        return CompositionRequest(frameIndex: request.frameIndex, compositionTime: request.compositionTime,
                                  background: request.background,
                                  layers: try converting(request.layers, accepted: accepted, target: target))
    }

    /// `layers` and, after each, its matte's layers, recursively.
    private static func flattened(_ layers: [LayerSource]) -> [LayerSource] {
        layers.flatMap { [$0] + ($0.matte.map { flattened($0.layers) } ?? []) }
    }

    /// `layers` with their pictures, and their mattes' pictures, converted where the compositor needs it.
    private func converting(_ layers: [LayerSource], accepted: [PixelFormat], target: PixelFormat) throws(MediaError)
        -> [LayerSource] {
        var result: [LayerSource] = []
        result.reserveCapacity(layers.count)
        for layer in layers {
            var drawn = layer
            if needsConversion(layer, accepted: accepted) {
                let source = layer.picture.frame
                let picture: SharedFrame
                if let cached = converted[layer.track], cached.source === source {
                    picture = cached.result
                } else {
                    // A source with alpha keeps it when the compositor reads an alpha format.
                    let format = source.format.hasAlpha ? accepted.first(where: \.hasAlpha) ?? target : target
                    picture = SharedFrame(try scaler.converted(source, width: source.width, height: source.height,
                                                               format: format))
                    converted[layer.track] = (source, picture)
                }
                drawn = LayerSource(track: layer.track, picture: picture, rotation: layer.rotation,
                                    opacity: layer.opacity, transform: layer.transform, crop: layer.crop)
                drawn.isZooming = layer.isZooming
                drawn.matte = layer.matte
                drawn.premultiplied = layer.premultiplied
            }
            if let matte = layer.matte {
                drawn.matte = matte.replacing(layers: try converting(matte.layers, accepted: accepted, target: target))
            }
            result.append(drawn)
        }
        return result
    }
}
