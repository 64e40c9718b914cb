import CRsvg
import ReelMedia
import ReelModel

/// An SVG image asset (`{"image": "logo.svg"}`, docs/format.md "SVG images"), parsed once by librsvg and drawn with
/// Cairo at whatever size it is shown: a logo scaled up stays sharp, because it is never a small raster magnified.
///
/// Its nominal size (what its facts report, what `fit` and an overlay's default size use) is the document's
/// `width`×`height` in pixels at 96 dpi, or its `viewBox` size when it states no size, rounded up to whole pixels.
/// A raster of another size stretches the document over it per axis, exactly as the compositor would stretch a
/// raster of the nominal size. A handle is used from one thread (each stage loads its own).
final class SVGImage {
    /// The largest side a raster may have (Cairo's limit is 32767; pictures beyond this are refused elsewhere too).
    static let largestSide = 16384

    private let handle: UnsafeMutablePointer<RsvgHandle>
    /// The document's own size in pixels, before rounding.
    let documentWidth: Double
    let documentHeight: Double
    /// The file, for messages.
    let path: String

    /// Whether the image asset at `path` is read as SVG: its name ends in `.svg` or `.svgz`, any case.
    static func isSVG(_ path: String) -> Bool {
        let lower = path.lowercased()
        return lower.hasSuffix(".svg") || lower.hasSuffix(".svgz")
    }

    /// The document at `path` (a local file), parsed. A file that is missing or not a regular file is refused like
    /// any media file (`.missing`, `.unreadable`, `.notRegularFile`); one librsvg cannot read, or that has no size,
    /// is `.notMedia` with librsvg's reason.
    init(path: String) throws(MediaError) {
        self.path = path
        if let problem = LocalInputFile.problem(at: path) {
            let kind: MediaError.Kind = problem.category == .missingInput
                ? (problem.message == "is missing" ? .missing : .unreadable) : .notRegularFile
            throw MediaError(kind, "\(path) \(problem.message)")
        }
        let file = g_file_new_for_path(path)
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        var error: UnsafeMutablePointer<GError>?
        guard let made = rsvg_handle_new_from_gfile_sync(file, RSVG_HANDLE_FLAGS_NONE, nil, &error) else {
            throw MediaError(.notMedia, "\(path) is not a readable SVG image: \(Self.message(taking: error))")
        }
        handle = made
        rsvg_handle_set_dpi(made, 96)
        var width = 0.0, height = 0.0
        if rsvg_handle_get_intrinsic_size_in_pixels(made, &width, &height) == 0 {
            var hasWidth: gboolean = 0, hasHeight: gboolean = 0, hasViewBox: gboolean = 0
            var lengthWidth = RsvgLength(), lengthHeight = RsvgLength(), viewBox = RsvgRectangle()
            rsvg_handle_get_intrinsic_dimensions(made, &hasWidth, &lengthWidth, &hasHeight, &lengthHeight,
                                                 &hasViewBox, &viewBox)
            if hasViewBox != 0 { (width, height) = (viewBox.width, viewBox.height) }
        }
        guard width.isFinite, height.isFinite, width > 0, height > 0,
            width <= Double(Self.largestSide), height <= Double(Self.largestSide)
        else {
            g_object_unref(UnsafeMutableRawPointer(made))
            throw MediaError(.notMedia, "\(path) is an SVG image without a usable size (width and height, or a "
                                 + "viewBox, between 1 and \(Self.largestSide) pixels)")
        }
        documentWidth = width
        documentHeight = height
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(handle)) }

    /// The nominal size in whole pixels.
    var size: PixelSize {
        PixelSize(width: Int(documentWidth.rounded(.up)), height: Int(documentHeight.rounded(.up)))
    }

    /// The document drawn over `width`×`height` pixels (stretched per axis from its own size), premultiplied,
    /// anchored at its centre.
    func raster(width: Int, height: Int) throws(MediaError) -> LayerRaster {
        guard width > 0, height > 0, width <= Self.largestSide, height <= Self.largestSide else {
            throw MediaError(.unsupported, "\(path) would be drawn at \(width)×\(height) pixels, more than "
                                 + "\(Self.largestSide) on a side")
        }
        let surface: Surface
        do {
            surface = try Surface(width: width, height: height)
        } catch {
            throw MediaError(.internal, error.message)
        }
        cairo_scale(surface.context, Double(width) / documentWidth, Double(height) / documentHeight)
        var viewport = RsvgRectangle(x: 0, y: 0, width: documentWidth, height: documentHeight)
        var error: UnsafeMutablePointer<GError>?
        guard rsvg_handle_render_document(handle, surface.context, &viewport, &error) != 0 else {
            throw MediaError(.corrupt, "\(path) could not be drawn: \(Self.message(taking: error))")
        }
        cairo_surface_flush(surface.surface)
        return LayerRaster(width: width, height: height, pixels: surface.rgbaBytes(),
                           anchor: LayerPoint(x: Double(width) / 2, y: Double(height) / 2))
    }

    /// The text of a GLib error, which it frees.
    private static func message(taking error: UnsafeMutablePointer<GError>?) -> String {
        guard let error else { return "librsvg gave no reason" }
        defer { g_error_free(error) }
        return error.pointee.message.map { String(cString: $0) } ?? "librsvg gave no reason"
    }
}
