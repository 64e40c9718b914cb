import Foundation
import ReelMedia
import ReelModel
import ReelTime

/// The title, overlay, shape and burned-in caption layers of each frame in movie time (SPEC §3.5): layers of the
/// compositor's request, drawn above the video tracks by the same loop and kernel (post-processing as "more layers",
/// as MLT's tractor transitions are; AVVideoCompositionCoreAnimationTool's place in AVFoundation).
///
/// From the bottom: overlays, then titles, each list in document order (`movieLayers`' order), then the captions'
/// bitmaps (`CaptionRenderer`, libass). A frame whose instruction has `postProcessing: false` gets none.
///
/// A layer is rasterised once per look and blended every frame it shows: Pango and Cairo (text), Cairo (shapes) or
/// FFmpeg (images) run when the layer first appears, not per frame (a title showing movie time, `{timecode}` and the like,
/// is the exception: its text changes every frame), and position, scale, rotation and opacity are
/// applied by the compositor to the rasterised picture (`LayerPicture`, premultiplied), placed by the
/// layer's transform like any video layer. The one exception is growth: a picture is drawn at
/// most twice, at scale 1 and at the largest scale its animations reach, and frames scaled above 1 use the
/// large one, so enlarging never magnifies pixels (shrinking resamples the sharp picture). Pictures are
/// dropped when their layer is no longer shown at the frame being drawn. Rasters that do not change from frame to
/// frame come from the render's `RasterCache`, so the cores of a render's compositions, and layers drawn alike,
/// rasterise each look once.
///
/// Every frame depends only on its own time, so a `--range` render, a thumbnail and a full render draw a
/// layer identically at the same instant.
final class MovieLayers {
    private struct PictureKey: Hashable {
        let layer: Int
        /// The raster scale: 1, or the layer's largest scale.
        let level: Double
        /// For a title showing movie time (`{timecode}`, `{frame}`, `{time}`), the frame it shows; else nil.
        var frame: Int64?
        /// For a shape whose size or corner radius is keyed, the time since its start it is drawn at; else nil.
        var local: Time?
    }

    private let layers: [MovieLayer]
    private let canvas: PixelSize
    /// Canvas pixels per render-size pixel (renderScale, measured on the actual canvas).
    private let canvasScale: Double
    private let catalog: SourceCatalog
    private let opener: any SourceOpener
    /// Font files titles name, as written → made absolute against the project's folder.
    private let fontFiles: [String: String]
    private var pictures: [PictureKey: LayerPicture] = [:]
    /// The rasters every core of the render shares.
    private let rasters: RasterCache
    /// The captions burned in, drawn above the titles.
    private let captions: [CompiledCaptions]
    /// libass, started when the first cue shows.
    private var captionRenderer: CaptionRenderer?
    private let renderSize: PixelSize
    private let resolvePath: @Sendable (String) -> String
    /// Decoded overlay images by asset id, at their own size, kept while a layer showing them is drawn.
    private var images: [String: LayerRaster] = [:]
    /// Overlay SVG images by asset id, parsed once, kept as long as `images`.
    private var vectors: [String: SVGImage] = [:]
    private let frameDuration: Time

    /// The layers of `project`'s titles and overlays on a canvas of `canvas` pixels, reading overlay images
    /// through `catalog` and `opener`, sharing rasters through `rasters`.
    init(project: CompiledProject, canvas: PixelSize, catalog: SourceCatalog, opener: any SourceOpener,
         rasters: RasterCache) {
        self.rasters = rasters
        layers = project.videoComposition.movieLayers
        self.canvas = canvas
        canvasScale = Double(canvas.width) / Double(max(1, project.videoComposition.renderSize.width))
        self.catalog = catalog
        self.opener = opener
        var fontFiles: [String: String] = [:]
        for layer in layers {
            if case .text(let style) = layer.content, style.fontIsFile, let file = style.font {
                fontFiles[file] = project.resolvedPath(file)
            }
        }
        self.fontFiles = fontFiles
        captions = project.videoComposition.captions.filter { $0.captions.mode.burns && !$0.cues.isEmpty }
        renderSize = project.videoComposition.renderSize
        resolvePath = { [project] path in project.resolvedPath(path) }
        frameDuration = project.videoComposition.frameDuration
    }

    /// The caption, title, overlay and shape layers shown at `time`, top first (as `CompositionRequest.layers`),
    /// each placed by its transform on the canvas. Titles, overlays and shapes have track −1 − their index in
    /// `movieLayers`, caption bitmaps the numbers below those.
    func layers(at time: Time) throws(RenderError) -> [LayerSource] {
        try captionLayers(at: time) + titleLayers(at: time)
    }

    /// The captions' bitmaps shown at `time`, top first.
    private func captionLayers(at time: Time) throws(RenderError) -> [LayerSource] {
        guard captions.contains(where: { entry in entry.cues.contains { $0.start <= time && time < $0.end } }) else {
            return []
        }
        if captionRenderer == nil {
            captionRenderer = try CaptionRenderer(captions: captions, canvas: canvas, renderSize: renderSize,
                                                  fontFile: resolvePath)
        }
        return try captionRenderer?.layers(at: time, firstTrack: -1 - layers.count) ?? []
    }

    /// The title, overlay and shape layers shown at `time`, top first.
    private func titleLayers(at time: Time) throws(RenderError) -> [LayerSource] {
        guard !layers.isEmpty else { return [] }
        let shown = layers.indices.filter { layers[$0].timeRange.contains(time) }
        dropPictures(keeping: Set(shown))
        var placed: [LayerSource] = []
        for index in shown.reversed() {
            let layer = layers[index]
            let state = layer.state(at: time)
            let grows = max(abs(state.scale.x), abs(state.scale.y)) > 1
            let level = grows ? rasterLevel(layer) : 1
            var key = PictureKey(layer: index, level: level)
            if case .text(let style) = layer.content, style.showsMovieTime {
                // The text changes every frame: one picture per frame, the previous frame's dropped.
                key.frame = (try? time.quotient(dividingBy: frameDuration, rounding: .down)) ?? 0
                pictures = pictures.filter { $0.key.layer != index || $0.key.frame == key.frame }
            }
            if case .shape(let style) = layer.content, style.isAnimated, let local = try? time - layer.timeRange.start {
                // Its geometry changes: drawn again at each frame's values, the previous frame's picture dropped.
                key.local = local
                pictures = pictures.filter { $0.key.layer != index || $0.key.local == local }
            }
            let centre = LayerPoint(x: state.position.x * Double(canvas.width), y: state.position.y * Double(canvas.height))
            // A picture centred millions of pixels away cannot reach the canvas (rasters are at most 16384 pixels
            // and scales at most 100): nothing to draw, and no pixel arithmetic on such numbers.
            guard abs(centre.x) < 1e7, abs(centre.y) < 1e7 else { continue }
            let picture = try self.picture(key)
            var source = LayerSource(
                track: -1 - index, picture: picture.frame, opacity: state.opacity.isNaN ? 0 : state.opacity,
                transform: Self.transform(anchor: picture.anchor, centre: centre,
                                          scale: LayerPoint(x: state.scale.x / level, y: state.scale.y / level),
                                          rotation: state.rotation))
            source.premultiplied = true
            source.chromaAlpha = picture.chromaAlpha
            placed.append(source)
        }
        return placed
    }

    /// The map that puts picture pixel p at centre + M·(p − anchor), M = rotation·scale (degrees clockwise on
    /// screen, y down). A whole turn is none, and a translation within 10⁻⁶ of whole pixels is whole, so that a
    /// resting picture is copied sample for sample.
    static func transform(anchor: LayerPoint, centre: LayerPoint, scale: LayerPoint, rotation: Double)
        -> ReelModel.AffineTransform {
        let radians = rotation.truncatingRemainder(dividingBy: 360) * .pi / 180
        let cosine = cos(radians), sine = sin(radians)
        let a = cosine * scale.x, b = sine * scale.x, c = -sine * scale.y, d = cosine * scale.y
        var tx = centre.x - (a * anchor.x + c * anchor.y), ty = centre.y - (b * anchor.x + d * anchor.y)
        if a == 1, b == 0, c == 0, d == 1, abs(tx - tx.rounded()) < 1e-6, abs(ty - ty.rounded()) < 1e-6 {
            tx = tx.rounded()
            ty = ty.rounded()
        }
        return ReelModel.AffineTransform(a: a, b: b, c: c, d: d, tx: tx, ty: ty)
    }

    /// The picture of layer `index` rasterised at `level` × its size on the canvas, made on first use.
    private func picture(_ key: PictureKey) throws(RenderError) -> LayerPicture {
        if let made = pictures[key] { return made }
        let index = key.layer, level = key.level
        let layer = layers[index]
        // Where the layout box's centre rests on the canvas; the raster is made so that it lands there exactly
        // when placed by whole, even pixels.
        let restX = layer.position.x * Double(canvas.width), restY = layer.position.y * Double(canvas.height)
        func evenFloor(_ value: Double) -> Double { (value / 2).rounded(.down) * 2 }
        let phase = LayerPoint(x: restX - evenFloor(restX), y: restY - evenFloor(restY))
        // What the raster is drawn from, when it is the same every frame: the render's cache holds it.
        var shared: RasterCache.Key.Drawn?
        var resolved: TextStyle?
        switch layer.content {
        case .text(let style):
            var text = key.frame.map { style.showing(frame: $0, frameDuration: frameDuration) } ?? style
            if let file = style.font, let path = fontFiles[file] { text.font = path }
            resolved = text
            if key.frame == nil { shared = .text(text) }
        case .image(let asset, let size):
            if let path = catalog[asset]?.path { shared = .image(path: path, size: size) }
        case .shape(let style):
            if key.local == nil { shared = .shape(style) }
        }
        func draw() throws(RenderError) -> LayerPicture {
            let drawn = try raster(layer, resolved: resolved, key: key, rest: LayerPoint(x: restX, y: restY), phase: phase)
            do {
                return try LayerPicture(drawn)
            } catch {
                throw RenderError(media: error)
            }
        }
        let made: LayerPicture
        if let shared {
            let rest = if case .image = shared { LayerPoint(x: restX, y: restY) } else { phase }
            made = try rasters.picture(RasterCache.Key(drawn: shared, scale: canvasScale * level, rest: rest), make: draw)
        } else {
            made = try draw()
        }
        pictures[key] = made
        return made
    }

    /// Layer `layer` rasterised at `key.level` × its size on the canvas, its layout box's centre resting at `rest`
    /// (canvas pixels; `phase` its offset from the even pixel below); `resolved`: a title's style with its font
    /// file and the frame it shows filled in.
    private func raster(_ layer: MovieLayer, resolved: TextStyle?, key: PictureKey, rest: LayerPoint,
                        phase: LayerPoint) throws(RenderError) -> LayerRaster {
        func evenFloor(_ value: Double) -> Double { (value / 2).rounded(.down) * 2 }
        let level = key.level, restX = rest.x, restY = rest.y
        let raster: LayerRaster
        switch layer.content {
        case .text(let style):
            let resolved = resolved ?? style
            if let path = resolved.font, style.fontIsFile { _ = TextRasterizer.registerFontFile(path) }
            raster = try TextRasterizer.rasterize(resolved, scale: canvasScale * level, phase: phase)
        case .image(let asset, let size):
            var image: LayerRaster
            do {
                if let svg = try vector(asset) {
                    // Drawn at the size it is shown, not a small raster magnified.
                    let width = Double(size?.width ?? svg.size.width) * canvasScale * level
                    let height = Double(size?.height ?? svg.size.height) * canvasScale * level
                    image = try svg.raster(width: max(1, Int(width.rounded())), height: max(1, Int(height.rounded())))
                } else {
                    image = try self.image(asset, layer: layer)
                    let width = Double(size?.width ?? image.width) * canvasScale * level
                    let height = Double(size?.height ?? image.height) * canvasScale * level
                    image = try ImageLayer.scaled(image, width: max(1, Int(width.rounded())), height: max(1, Int(height.rounded())))
                }
            } catch {
                throw RenderError(media: error, asset: asset)
            }
            // A resting image's top-left goes on the even pixel nearest its exact place (at most a pixel away).
            let left = evenFloor(restX - Double(image.width) / 2 + 1), top = evenFloor(restY - Double(image.height) / 2 + 1)
            image.anchor = LayerPoint(x: restX - left, y: restY - top)
            raster = image
        case .shape(let style):
            raster = try ShapeRasterizer.rasterize(key.local.map { style.at($0) } ?? style, scale: canvasScale * level,
                                                   phase: phase)
        }
        return raster
    }

    /// The scale a growing layer's second picture is drawn at: the largest it reaches, but no text above 2000 px
    /// (the format's largest size) and no picture above twice the canvas's larger side, beyond which a frame shows
    /// only part of it and magnifying that part is cheaper than a raster of hundreds of megabytes.
    private func rasterLevel(_ layer: MovieLayer) -> Double {
        let canvasSide = Double(max(canvas.width, canvas.height))
        var limit: Double
        switch layer.content {
        case .text(let style):
            limit = 2000 / max(1, style.size * canvasScale)
        case .image(_, let size):
            let side = Double(max(size?.width ?? 1, size?.height ?? 1)) * canvasScale
            limit = size == nil ? 2 : 2 * canvasSide / max(1, side)
        case .shape(let style):
            let size = style.largestSize
            limit = 2 * canvasSide / max(1, max(size.x, size.y) * canvasScale)
        }
        limit = max(1, limit)
        return min(layer.largestScale, limit)
    }

    /// The parsed document of overlay image `asset` when it is an SVG file, else nil.
    private func vector(_ asset: String) throws(MediaError) -> SVGImage? {
        if let parsed = vectors[asset] { return parsed }
        guard let path = catalog[asset]?.path, SVGImage.isSVG(path) else { return nil }
        let parsed = try SVGImage(path: path)
        vectors[asset] = parsed
        return parsed
    }

    /// The decoded picture of overlay image `asset`.
    private func image(_ asset: String, layer: MovieLayer) throws(MediaError) -> LayerRaster {
        if let decoded = images[asset] { return decoded }
        guard let entry = catalog[asset], let path = entry.path, let stream = entry.videoStream else {
            throw MediaError(.internal, "overlay image \"\(asset)\" was not probed")
        }
        let decoded = try ImageLayer.decode(path: path, stream: stream, opener: opener)
        images[asset] = decoded
        return decoded
    }

    private func dropPictures(keeping shown: Set<Int>) {
        guard !pictures.isEmpty else { return }
        pictures = pictures.filter { shown.contains($0.key.layer) }
        if pictures.isEmpty {
            images.removeAll()
            vectors.removeAll()
        }
    }
}
