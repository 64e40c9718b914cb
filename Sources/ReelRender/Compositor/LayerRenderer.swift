import ReelMedia
import ReelModel

/// Draws composition requests as SPEC §4 describes, in 8-bit yuv420p; one instance per compositor thread.
///
/// Layers are drawn bottom to top over the background. Each layer's source is turned upright (its display
/// rotation), masked by its crop, mapped by its transform and blended by its opacity. The renderer picks the
/// cheapest exact way for each layer:
/// - passthrough: the topmost layer is opaque, upright, untransformed, uncropped and exactly the canvas, so the
///   source itself is the answer (no copy, no canvas);
/// - whole-pixel translation (identity included): row copies, or one blending pass, without resampling;
/// - axis-aligned scale: libswscale through `Scaler` (bicubic), as a whole picture;
/// - anything else (rotation, skew, mirror, fractional offsets): bilinear inverse mapping over the layer's
///   bounding box, luma at full resolution and chroma at half;
/// - an opaque layer covering the whole canvas hides the background and everything below it, which are skipped;
/// - a dissolve (a translucent full-canvas layer over an opaque one) is one pass: out = a·top + (1 − a)·bottom.
///
/// A yuva420p layer (a keyed layer, an image or video with alpha) blends each pixel with its own alpha times the
/// layer's opacity, on every path (chroma with the mean alpha of the four luma pixels it covers); such a layer
/// never counts as opaque, so it is never a passthrough and never hides what is below.
///
/// Not thread-safe: it owns a `Scaler` and caches of upright and scaled pictures per track, which keep their
/// source frames alive so that a held (repeated) source is not rotated or scaled again.
final class LayerRenderer {
    private struct Rotated {
        let source: VideoFrame
        let turns: Int
        let result: VideoFrame
        var lastUse: Int
    }

    private struct Scaled {
        let source: VideoFrame
        let turns: Int
        let width: Int
        let height: Int
        let result: VideoFrame
        var lastUse: Int
    }

    private enum Placement {
        /// Whole-pixel offset: source pixel (x, y) lands on canvas pixel (x + dx, y + dy).
        case translate(dx: Int, dy: Int)
        /// libswscale scales the whole upright source to `full`; `visible` is the part inside crop and canvas.
        case scale(full: EvenRect, visible: EvenRect)
        /// Bilinear inverse mapping.
        case warp
    }

    /// One layer ready to draw.
    private struct Plan {
        let layer: LayerSource
        let turns: Int
        /// Upright source size.
        let width: Int
        let height: Int
        let geometry: LayerGeometry
        /// Opacity as an 8-bit blend weight, 1…256.
        let alpha: Int
        let placement: Placement
        /// Opaque and covering every canvas pixel.
        let coversCanvas: Bool
        /// The picture is yuva420p: every pixel carries its own alpha (plane 3).
        let masked: Bool
    }

    /// A layer's alpha on the 4:2:0 chroma grid, made from its full-resolution alpha plane.
    private final class ChromaMask {
        private(set) var source: VideoFrame
        let base: UnsafeMutablePointer<UInt8>
        let stride: Int
        private let rows: Int
        var lastUse: Int

        init(_ picture: VideoFrame, use: Int) {
            source = picture
            let width = (picture.width + 1) / 2, height = (picture.height + 1) / 2
            stride = width
            rows = height
            base = .allocate(capacity: max(1, width * height))
            lastUse = use
            halve()
        }

        /// Whether `picture`'s mask fits this one's buffer.
        func fits(_ picture: VideoFrame) -> Bool {
            (picture.width + 1) / 2 == stride && (picture.height + 1) / 2 == rows
        }

        /// Holds `picture`'s mask from now on, in the same buffer (a track's next picture of the same size).
        func reuse(for picture: VideoFrame, use: Int) {
            source = picture
            lastUse = use
            halve()
        }

        private func halve() {
            PlaneOps.halveMask(source.plane(3), stride: source.stride(3), width: source.width,
                               height: source.height, into: base, targetStride: stride)
        }

        deinit { base.deallocate() }
    }

    private let fastPaths: Bool
    private let scaler = Scaler()
    private var rotated: [Int: Rotated] = [:]
    private var scaled: [Int: Scaled] = [:]
    private var chromaMasks: [Int: ChromaMask] = [:]
    private var requestNumber = 0
    /// Canvases this renderer finished, kept so that a later request draws into pages already in memory rather than
    /// a new allocation the kernel must fault in and clear (about as costly as filling it); one is taken again only
    /// when nothing else holds it.
    private var canvases: [VideoFrame] = []
    /// Canvases kept at most: the encoder's queue and the compositor's pipeline hold the last few.
    private static let keptCanvases = 4
    /// The hidden fraction of each track matte drawn for the current request (a layer's picture and its backdrop
    /// share one), by the matte's identity.
    private var mattes: [ObjectIdentifier: MatteHide] = [:]
    /// Cache entries unused for this many requests are dropped.
    private static let cacheLifetime = 8

    /// Makes a renderer; `fastPaths: false` draws every layer with the general bilinear path over a filled
    /// background (for tests that compare the two).
    init(fastPaths: Bool = true) {
        self.fastPaths = fastPaths
    }

    /// Draws `request` into a new canvas of `context`'s size, or returns a layer's picture itself (passthrough).
    ///
    /// Returns nil when `isCancelled` turns true before the picture is complete (checked between layers).
    /// Sources must be yuv420p or yuva420p. Throws `.unsupported` for another output format or an odd canvas size.
    func render(_ request: CompositionRequest, in context: RenderContext,
                isCancelled: () -> Bool = { false }) throws(MediaError) -> SharedFrame? {
        try Self.check(context)
        for layer in request.layers where layer.picture.format != .yuv420p && layer.picture.format != .yuva420p {
            throw MediaError(.internal, "the built-in compositor reads yuv420p and yuva420p sources, track \(layer.track) gave "
                                 + layer.picture.format.name)
        }
        requestNumber += 1
        defer { dropStaleCaches() }
        let width = context.size.width, height = context.size.height
        let plans = request.layers.reversed().compactMap { plan($0, canvasWidth: width, canvasHeight: height) }

        if fastPaths, let top = plans.last, isPassthrough(top, width: width, height: height) {
            return top.layer.picture
        }
        if isCancelled() { return nil }

        let canvas = try freshCanvas(width: width, height: height)
        let first = fastPaths ? plans.lastIndex(where: \.coversCanvas) : nil
        if first == nil {
            let background = YUVColor(request.background)
            canvas.fill(y: background.y, u: background.u, v: background.v)
        }
        var index = first ?? 0
        // Titles, overlays and shapes are drawn last, over the video layers (the dissolve's pass included).
        let overlays = plans.reversed().prefix { $0.layer.premultiplied }.count
        if let first, plans.count - overlays - first == 2,
            let bottom = try fullCanvasOffset(plans[first], width: width, height: height),
            let top = try fullCanvasOffset(plans[first + 1], width: width, height: height) {
            dissolve(top: top, over: bottom, alpha: plans[first + 1].alpha, into: canvas)
            index = first + 2
        }
        mattes.removeAll()
        while index < plans.count {
            if isCancelled() { return nil }
            let plan = plans[index]
            if fastPaths, plan.layer.matte == nil, case .warp = plan.placement,
               let hidden = hiddenRows(below: index, of: plans, width: width) {
                try warp(try upright(plan), plan, planes: 0...2, into: canvas, skipping: hidden)
            } else {
                try drawMatted(plan, into: canvas)
            }
            index += 1
        }
        mattes.removeAll()
        return SharedFrame(canvas)
    }

    /// A yuv420p canvas to draw a whole request into: a kept one that nobody else holds (no `SharedFrame` made of it,
    /// no encoder's reference) when there is one, else a new one, kept from now on in place of the oldest.
    private func freshCanvas(width: Int, height: Int) throws(MediaError) -> VideoFrame {
        for index in canvases.indices where isKnownUniquelyReferenced(&canvases[index]) {
            let kept = canvases[index]
            if kept.width == width, kept.height == height, kept.isWritable { return kept }
        }
        let made = try VideoFrame(width: width, height: height, format: .yuv420p)
        if canvases.count >= Self.keptCanvases { canvases.removeFirst() }
        canvases.append(made)
        return made
    }

    /// The canvas rows (even bounds) that a layer above `plans[index]` overwrites across the whole canvas width —
    /// an opaque, unmasked layer that libswscale scales into its rectangle (the contained picture of a blurred
    /// fill) — so that nothing drawn below shows there; nil when none does.
    private func hiddenRows(below index: Int, of plans: [Plan], width: Int) -> Range<Int>? {
        var hidden: Range<Int>?
        for plan in plans[(index + 1)...] where plan.alpha >= 256 && !plan.masked && plan.layer.matte == nil {
            guard case .scale(let full, let visible) = plan.placement, visible == full, full.x == 0,
                  full.width == width, full.height > (hidden?.count ?? 0) else { continue }
            hidden = full.y..<(full.y + full.height)
        }
        return hidden
    }

    /// Draws `layers` (top first) over `canvas` as `render` draws a request's layers above its background (the
    /// track-map compositor's titles and overlays).
    func draw(_ layers: [LayerSource], onto canvas: VideoFrame) throws(MediaError) {
        requestNumber += 1
        defer { dropStaleCaches() }
        for layer in layers.reversed() {
            guard let plan = plan(layer, canvasWidth: canvas.width, canvasHeight: canvas.height) else { continue }
            try drawMatted(plan, into: canvas)
        }
        mattes.removeAll()
    }

    /// Throws unless `context` is a yuv420p canvas of positive even size.
    static func check(_ context: RenderContext) throws(MediaError) {
        guard context.pixelFormat == .yuv420p else {
            throw MediaError(.unsupported, "the built-in compositor renders yuv420p only, not \(context.pixelFormat.name)")
        }
        let size = context.size
        guard size.width >= 2, size.height >= 2, size.width <= 16384, size.height <= 16384,
            size.width % 2 == 0, size.height % 2 == 0
        else {
            throw MediaError(.unsupported, "the built-in compositor needs an even canvas size, not \(size)")
        }
    }

    // MARK: Planning

    private func plan(_ layer: LayerSource, canvasWidth: Int, canvasHeight: Int) -> Plan? {
        guard !layer.opacity.isNaN else { return nil }
        let alpha = Int((max(0, min(1, layer.opacity)) * 256).rounded())
        guard alpha > 0 else { return nil }
        let turns = layer.quarterTurns
        let width = turns % 2 == 0 ? layer.picture.width : layer.picture.height
        let height = turns % 2 == 0 ? layer.picture.height : layer.picture.width
        guard let geometry = LayerGeometry(
            transform: layer.transform, crop: layer.crop, sourceWidth: width, sourceHeight: height)
        else { return nil }
        let masked = layer.picture.format == .yuva420p
        func make(_ placement: Placement, covers: Bool) -> Plan {
            Plan(layer: layer, turns: turns, width: width, height: height, geometry: geometry, alpha: alpha,
                 placement: placement, coversCanvas: alpha == 256 && covers && !masked && layer.matte == nil,
                 masked: masked)
        }
        let canvas = PixelRect(x0: 0, y0: 0, x1: canvasWidth, y1: canvasHeight)
        if fastPaths, let offset = geometry.integerTranslation {
            let placed = geometry.crop.offsetBy(x: offset.x, y: offset.y)
            guard !placed.intersection(canvas).isEmpty else { return nil }
            return make(.translate(dx: offset.x, dy: offset.y), covers: placed.contains(canvas))
        }
        let t = layer.transform
        // A pure fractional translation stays on the bilinear path: libswscale would snap it to whole pixels.
        // So does a zooming layer: snapped edges would step by whole pixels from frame to frame.
        // A premultiplied picture (a title) too: libswscale's bicubic taps would overshoot its alpha.
        if fastPaths, !layer.isZooming, !layer.premultiplied, t.b == 0, t.c == 0, t.a > 0, t.d > 0, t.a != 1 || t.d != 1 {
            let full = EvenRect(x0: t.tx, y0: t.ty, x1: t.tx + t.a * Double(width), y1: t.ty + t.d * Double(height))
            // Beyond twice the canvas a whole scaled picture costs more than resampling the visible part.
            if full.width >= 2, full.height >= 2, full.width <= 2 * canvasWidth, full.height <= 2 * canvasHeight {
                let crop = geometry.crop
                let cropped = EvenRect(
                    x0: t.tx + t.a * Double(crop.x0), y0: t.ty + t.d * Double(crop.y0),
                    x1: t.tx + t.a * Double(crop.x1), y1: t.ty + t.d * Double(crop.y1))
                let whole = EvenRect(x: 0, y: 0, width: canvasWidth, height: canvasHeight)
                let visible = full.intersection(cropped).intersection(whole)
                guard visible.width > 0, visible.height > 0 else { return nil }
                return make(.scale(full: full, visible: visible), covers: visible == whole)
            }
        }
        return make(.warp, covers: geometry.coversCanvas(width: canvasWidth, height: canvasHeight))
    }

    private func isPassthrough(_ plan: Plan, width: Int, height: Int) -> Bool {
        guard plan.alpha == 256, !plan.masked, plan.layer.matte == nil, plan.turns == 0, case .translate(0, 0) = plan.placement
        else { return false }
        return plan.width == width && plan.height == height
            && plan.geometry.crop == PixelRect(x0: 0, y0: 0, x1: width, y1: height)
    }

    /// The upright picture and its offset when `plan` is a whole-pixel translation by even amounts that covers
    /// the canvas (the shape the one-pass dissolve handles).
    private func fullCanvasOffset(_ plan: Plan, width: Int, height: Int) throws(MediaError)
        -> (picture: VideoFrame, dx: Int, dy: Int)? {
        guard !plan.masked, plan.layer.matte == nil, case .translate(let dx, let dy) = plan.placement, dx % 2 == 0, dy % 2 == 0,
            plan.geometry.crop.offsetBy(x: dx, y: dy).contains(PixelRect(x0: 0, y0: 0, x1: width, y1: height))
        else { return nil }
        return (try upright(plan), dx, dy)
    }

    // MARK: Track mattes

    /// Where a track matte hides its layer: 255 − coverage on the luma grid and, averaged, on the chroma grid.
    private struct MatteHide {
        let luma: [UInt8]
        let chroma: [UInt8]
    }

    /// Draws `plan`, through its track matte when it has one (docs/format.md, "Track mattes"): with c the matte's
    /// coverage on the canvas, out = c·drawn + (1 − c)·before, which is the layer blended with its alpha times c.
    private func drawMatted(_ plan: Plan, into canvas: VideoFrame) throws(MediaError) {
        guard let matte = plan.layer.matte else { return try draw(plan, into: canvas) }
        if matte.layers.isEmpty {
            // No matte picture: the coverage is 0 everywhere, 1 when inverted.
            if matte.invert { try draw(plan, into: canvas) }
            return
        }
        let hide = try matteHide(matte, width: canvas.width, height: canvas.height)
        let before = try PlaneOps.copied(canvas)
        try draw(plan, into: canvas)
        hide.luma.withUnsafeBufferPointer { luma in
            hide.chroma.withUnsafeBufferPointer { chroma in
                guard let luma = luma.baseAddress, let chroma = chroma.baseAddress else { return }
                for plane in 0..<3 {
                    let width = plane == 0 ? canvas.width : canvas.width / 2
                    let height = plane == 0 ? canvas.height : canvas.height / 2
                    PlaneOps.blendMasked(from: before.plane(plane), sourceStride: before.stride(plane),
                                         mask: plane == 0 ? luma : chroma, maskStride: width,
                                         onto: canvas.plane(plane), targetStride: canvas.stride(plane),
                                         width: width, height: height, alpha: 256)
                }
            }
        }
    }

    /// `matte`'s hidden fraction on a `width`×`height` canvas: its layers drawn alone (through their own mattes) over
    /// black for luma — Y′ in video range, (Y′ − 16) / 219 clamped — or over black and over white for alpha, whose
    /// difference is the transparency; then feathered (Gaussian of σ `sigma`, beyond the canvas counted as hidden)
    /// and inverted as the matte says.
    private func matteHide(_ matte: MatteSource, width: Int, height: Int) throws(MediaError) -> MatteHide {
        let key = ObjectIdentifier(matte)
        if let cached = mattes[key] { return cached }
        func drawn(over luma: UInt8) throws(MediaError) -> VideoFrame {
            let frame = try VideoFrame(width: width, height: height, format: .yuv420p)
            frame.fill(y: luma, u: 128, v: 128)
            for layer in matte.layers.reversed() {
                guard let planned = self.plan(layer, canvasWidth: width, canvasHeight: height) else { continue }
                try drawMatted(planned, into: frame)
            }
            return frame
        }
        var coverage = [UInt8](repeating: 0, count: width * height)
        switch matte.channel {
        case .luma:
            let frame = try drawn(over: 16)
            for y in 0..<height {
                let row = frame.plane(0) + y * frame.stride(0)
                for x in 0..<width {
                    let value = (Int(row[x]) - 16) * 255
                    coverage[y * width + x] = UInt8(max(0, min(255, (value + 109) / 219)))
                }
            }
        case .alpha:
            let black = try drawn(over: 0), white = try drawn(over: 255)
            for y in 0..<height {
                let over0 = black.plane(0) + y * black.stride(0), over255 = white.plane(0) + y * white.stride(0)
                for x in 0..<width {
                    coverage[y * width + x] = UInt8(max(0, min(255, 255 - (Int(over255[x]) - Int(over0[x])))))
                }
            }
        }
        if matte.sigma > 0 {
            coverage.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                MaskRasterizer.gaussianBlur(base, stride: width, width: width, height: height, sigma: matte.sigma)
            }
        }
        // Hidden = 1 − coverage, or the coverage itself when inverted.
        let luma = matte.invert ? coverage : coverage.map { 255 - $0 }
        var chroma = [UInt8](repeating: 0, count: (width / 2) * (height / 2))
        luma.withUnsafeBufferPointer { luma in
            chroma.withUnsafeMutableBufferPointer { chroma in
                guard let luma = luma.baseAddress, let target = chroma.baseAddress else { return }
                PlaneOps.halveMask(luma, stride: width, width: width, height: height, into: target, targetStride: width / 2)
            }
        }
        let hide = MatteHide(luma: luma, chroma: chroma)
        mattes[key] = hide
        return hide
    }

    // MARK: Drawing

    private func dissolve(top: (picture: VideoFrame, dx: Int, dy: Int), over bottom: (picture: VideoFrame, dx: Int, dy: Int),
                          alpha: Int, into canvas: VideoFrame) {
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            let width = canvas.width >> shift, height = canvas.height >> shift
            let upper = top.picture.plane(plane) - (top.dy >> shift) * top.picture.stride(plane) - (top.dx >> shift)
            let lower = bottom.picture.plane(plane) - (bottom.dy >> shift) * bottom.picture.stride(plane)
                - (bottom.dx >> shift)
            PlaneOps.mix(top: upper, topStride: top.picture.stride(plane),
                         bottom: lower, bottomStride: bottom.picture.stride(plane),
                         into: canvas.plane(plane), targetStride: canvas.stride(plane),
                         width: width, height: height, alpha: alpha)
        }
    }

    private func draw(_ plan: Plan, into canvas: VideoFrame) throws(MediaError) {
        switch plan.placement {
        case .translate(let dx, let dy):
            let source = try upright(plan)
            let canvasRect = PixelRect(x0: 0, y0: 0, x1: canvas.width, y1: canvas.height)
            let luma = plan.geometry.crop.offsetBy(x: dx, y: dy).intersection(canvasRect)
            blend(source, plane: 0, at: luma, dx: dx, dy: dy, alpha: plan.alpha, mask: lumaMask(plan, source),
                  premultiplied: plan.layer.premultiplied, into: canvas)
            if dx % 2 == 0 && dy % 2 == 0 {
                // Chroma pixel i stands for luma centre 2i + 1, so it is covered when 2i + 1 − dx is inside the crop.
                let crop = plan.geometry.crop
                func firstCovered(_ edge: Int) -> Int { (edge + 1) >> 1 }
                let chroma = PixelRect(
                    x0: firstCovered(crop.x0 + dx - 1), y0: firstCovered(crop.y0 + dy - 1),
                    x1: firstCovered(crop.x1 + dx - 1), y1: firstCovered(crop.y1 + dy - 1)
                ).intersection(PixelRect(x0: 0, y0: 0, x1: canvas.width / 2, y1: canvas.height / 2))
                let mask = try chromaMask(plan, source)
                for plane in 1...2 {
                    blend(source, plane: plane, at: chroma, dx: dx / 2, dy: dy / 2, alpha: plan.alpha, mask: mask,
                          premultiplied: plan.layer.premultiplied, into: canvas)
                }
            } else {
                // An odd offset puts chroma samples half-way between source samples: resample them.
                try warp(source, plan, planes: 1...2, into: canvas)
            }
        case .scale(let full, let visible):
            let source = try upright(plan)
            if plan.alpha >= 256 && visible == full && !plan.masked {
                try scaler.draw(source, into: canvas, x: full.x, y: full.y, width: full.width, height: full.height)
                return
            }
            let picture = try scaledPicture(plan, source, width: full.width, height: full.height)
            let chroma = try chromaMask(plan, picture)
            for plane in 0..<3 {
                let shift = plane == 0 ? 0 : 1
                let rect = PixelRect(x0: visible.x >> shift, y0: visible.y >> shift,
                                     x1: (visible.x + visible.width) >> shift, y1: (visible.y + visible.height) >> shift)
                blend(picture, plane: plane, at: rect, dx: full.x >> shift, dy: full.y >> shift,
                      alpha: plan.alpha, mask: plane == 0 ? lumaMask(plan, picture) : chroma, into: canvas)
            }
        case .warp:
            try warp(try upright(plan), plan, planes: 0...2, into: canvas)
        }
    }

    /// Blends the samples of `source` plane `plane` that land on `rect` (source sample (x, y) lands on
    /// (x + dx, y + dy)); `rect` must lie inside both pictures. `mask`: per-sample alpha laid out like the plane.
    private func blend(_ source: VideoFrame, plane: Int, at rect: PixelRect, dx: Int, dy: Int, alpha: Int,
                       mask: (base: UnsafePointer<UInt8>, stride: Int)? = nil, premultiplied: Bool = false,
                       into canvas: VideoFrame) {
        guard !rect.isEmpty else { return }
        let sourceStride = source.stride(plane), canvasStride = canvas.stride(plane)
        let from = source.plane(plane) + (rect.y0 - dy) * sourceStride + (rect.x0 - dx)
        let to = canvas.plane(plane) + rect.y0 * canvasStride + rect.x0
        if let mask {
            PlaneOps.blendMasked(from: from, sourceStride: sourceStride,
                                 mask: mask.base + (rect.y0 - dy) * mask.stride + (rect.x0 - dx), maskStride: mask.stride,
                                 onto: to, targetStride: canvasStride, width: rect.width, height: rect.height,
                                 alpha: alpha, premultiplied: premultiplied)
            return
        }
        PlaneOps.blend(from: from, sourceStride: sourceStride, onto: to, targetStride: canvasStride,
                       width: rect.width, height: rect.height, alpha: alpha)
    }

    /// The alpha plane of `picture` (full resolution) when `plan`'s layer has per-pixel alpha.
    private func lumaMask(_ plan: Plan, _ picture: VideoFrame) -> (base: UnsafePointer<UInt8>, stride: Int)? {
        guard plan.masked else { return nil }
        return (UnsafePointer(picture.plane(3)), picture.stride(3))
    }

    /// `picture`'s alpha on the chroma grid when `plan`'s layer has per-pixel alpha: the one the layer brings when
    /// `picture` is its own picture, else halved here and cached per track while the same picture repeats.
    private func chromaMask(_ plan: Plan, _ picture: VideoFrame) throws(MediaError)
        -> (base: UnsafePointer<UInt8>, stride: Int)? {
        guard plan.masked else { return nil }
        if let made = plan.layer.chromaAlpha, picture === plan.layer.picture.frame {
            return (UnsafePointer(made.base), made.stride)
        }
        let track = plan.layer.track
        if let entry = chromaMasks[track], entry.source === picture {
            entry.lastUse = requestNumber
            return (UnsafePointer(entry.base), entry.stride)
        }
        if let entry = chromaMasks[track], entry.fits(picture) {
            entry.reuse(for: picture, use: requestNumber)
            return (UnsafePointer(entry.base), entry.stride)
        }
        let entry = ChromaMask(picture, use: requestNumber)
        chromaMasks[track] = entry
        return (UnsafePointer(entry.base), entry.stride)
    }

    /// Draws `planes` of `source` by bilinear inverse mapping, except the canvas rows `skipping` (even bounds, in
    /// luma rows), which a layer above overwrites.
    private func warp(_ source: VideoFrame, _ plan: Plan, planes: ClosedRange<Int>, into canvas: VideoFrame,
                      skipping: Range<Int> = 0..<0) throws(MediaError) {
        let geometry = plan.geometry
        let chroma = try chromaMask(plan, source)
        for plane in planes {
            let shift = plane == 0 ? 0 : 1
            let planeWidth = plane == 0 ? plan.width : (plan.width + 1) / 2
            let planeHeight = plane == 0 ? plan.height : (plan.height + 1) / 2
            let sourcePlane = SourcePlane(base: UnsafePointer(source.plane(plane)), stride: source.stride(plane),
                                          width: planeWidth, height: planeHeight)
            let crop = geometry.crop
            let round = (1 << shift) - 1
            let minX = min(crop.x0 >> shift, planeWidth - 1), minY = min(crop.y0 >> shift, planeHeight - 1)
            let taps = TapBounds(
                minX: minX, maxX: max(minX, min(planeWidth, (crop.x1 + round) >> shift) - 1),
                minY: minY, maxY: max(minY, min(planeHeight, (crop.y1 + round) >> shift) - 1))
            let target = canvas.plane(plane), stride = canvas.stride(plane)
            let mask = plane == 0 ? lumaMask(plan, source) : chroma
            let maskPlane = mask.map { SourcePlane(base: $0.base, stride: $0.stride, width: planeWidth, height: planeHeight) }
            let skipped = (skipping.lowerBound >> shift)..<(skipping.upperBound >> shift)
            geometry.forEachSpan(shift: shift, width: canvas.width >> shift, height: canvas.height >> shift) {
                row, start, end, sampleX, sampleY in
                if skipped.contains(row) { return }
                if let maskPlane {
                    PlaneOps.warpRowMasked(from: sourcePlane, mask: maskPlane, taps: taps, sampleX: sampleX,
                                           sampleY: sampleY, stepX: geometry.inverse.a, stepY: geometry.inverse.b,
                                           into: target + row * stride + start, count: end - start, alpha: plan.alpha,
                                           premultiplied: plan.layer.premultiplied)
                } else {
                    PlaneOps.warpRow(from: sourcePlane, taps: taps, sampleX: sampleX, sampleY: sampleY,
                                     stepX: geometry.inverse.a, stepY: geometry.inverse.b,
                                     into: target + row * stride + start, count: end - start, alpha: plan.alpha)
                }
            }
        }
    }

    // MARK: Pictures and caches

    /// The layer's picture turned upright; cached per track while the same source frame repeats.
    private func upright(_ plan: Plan) throws(MediaError) -> VideoFrame {
        let source = plan.layer.picture.frame
        guard plan.turns != 0 else { return source }
        let track = plan.layer.track
        if var entry = rotated[track], entry.source === source, entry.turns == plan.turns {
            entry.lastUse = requestNumber
            rotated[track] = entry
            return entry.result
        }
        // The previous upright picture of this track is private to this renderer: reuse its buffer.
        let result: VideoFrame
        if let old = rotated[track]?.result, old.width == plan.width, old.height == plan.height,
            old.format == plan.layer.picture.format {
            result = old
        } else {
            result = try VideoFrame(width: plan.width, height: plan.height, format: plan.layer.picture.format)
        }
        Self.rotate(plan.layer.picture, quarterTurns: plan.turns, into: result)
        rotated[track] = Rotated(source: source, turns: plan.turns, result: result, lastUse: requestNumber)
        return result
    }

    private func scaledPicture(_ plan: Plan, _ upright: VideoFrame, width: Int, height: Int) throws(MediaError)
        -> VideoFrame {
        let source = plan.layer.picture.frame
        let track = plan.layer.track
        if var entry = scaled[track], entry.source === source, entry.turns == plan.turns,
            entry.width == width, entry.height == height {
            entry.lastUse = requestNumber
            scaled[track] = entry
            return entry.result
        }
        let result = try scaler.converted(upright, width: width, height: height,
                                          format: plan.masked ? .yuva420p : .yuv420p)
        scaled[track] = Scaled(source: source, turns: plan.turns, width: width, height: height, result: result,
                               lastUse: requestNumber)
        return result
    }

    private func dropStaleCaches() {
        let oldest = requestNumber - Self.cacheLifetime
        rotated = rotated.filter { $0.value.lastUse >= oldest }
        scaled = scaled.filter { $0.value.lastUse >= oldest }
        chromaMasks = chromaMasks.filter { $0.value.lastUse >= oldest }
    }

    /// Turns a yuv420p (or yuva420p) picture by `quarterTurns` × 90° counter-clockwise (ffprobe's rotation sense)
    /// into `result`, which must have the turned size and the same format.
    static func rotate(_ frame: SharedFrame, quarterTurns turns: Int, into result: VideoFrame) {
        let width = frame.width, height = frame.height
        let quarter = turns % 2 == 1
        for plane in 0..<min(frame.planeCount, result.planeCount) {
            let full = plane == 0 || plane == 3
            let w = full ? width : (width + 1) / 2
            let h = full ? height : (height + 1) / 2
            let src = frame.pixels(plane), srcStride = frame.stride(plane)
            let dst = result.plane(plane), dstStride = result.stride(plane)
            let outWidth = quarter ? h : w, outHeight = quarter ? w : h
            for y in 0..<outHeight {
                let row = dst + y * dstStride
                switch turns {
                case 1:  // display (x, y) shows stored (w − 1 − y, x)
                    let column = src + (w - 1 - y)
                    for x in 0..<outWidth { row[x] = column[x * srcStride] }
                case 2:
                    let sourceRow = src + (h - 1 - y) * srcStride
                    for x in 0..<outWidth { row[x] = sourceRow[w - 1 - x] }
                default:  // 270: display (x, y) shows stored (y, h − 1 − x)
                    let column = src + y
                    for x in 0..<outWidth { row[x] = column[(h - 1 - x) * srcStride] }
                }
            }
        }
    }
}
