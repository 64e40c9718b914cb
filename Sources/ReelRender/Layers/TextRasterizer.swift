import CPangoCairo
import Foundation
import ReelModel

/// Lays text out with Pango and rasterises it with Cairo (SPEC §3.5): font by family through fontconfig or by
/// file, size in pixels, alignment, several lines, line spacing, bidi, shaping and font fallback are Pango's;
/// anti-aliasing, the outline (a stroked path) and the fills are Cairo's. The only drawing done here by hand is
/// the shadow's blur, which Cairo 1.16 does not have.
///
/// Pango and fontconfig are used under one process-wide lock: titles are rasterised once per look, so the lock
/// costs nothing, and it keeps font registration and layout safe when several renders run in one process.
enum TextRasterizer {
    /// The layout of one title at one scale.
    struct Measured {
        /// The layout box (SPEC §3.5): the longest line's advance × the lines' height, in pixels.
        let logical: (x: Double, y: Double, width: Double, height: Double)
        /// The glyphs' ink, in pixels, relative to the layout's origin.
        let ink: (x: Double, y: Double, width: Double, height: Double)
        /// Glyphs no installed font has.
        let unknownGlyphs: Int
    }

    private static let lock = NSLock()

    /// Draws `style` at `scale` × its size (the render scale times any growth the layer animates to), with the
    /// layout box's centre at `phase` (fractions of a pixel in 0..<1 on each axis) past a whole pixel, so that a
    /// static layer lands exactly where its position puts it without resampling.
    static func rasterize(_ style: TextStyle, scale: Double, phase: LayerPoint) throws(RenderError) -> LayerRaster {
        lock.lock()
        defer { lock.unlock() }
        let session = try PangoSession.shared()
        let layout = try session.layout(style, scale: scale)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        let measured = measure(layout)
        let (minX, minY, maxX, maxY) = drawnBounds(measured, style: style, scale: scale)
        let outline = style.outline.map { $0.width * scale } ?? 0
        let padding = style.background.map { $0.padding * scale } ?? 0
        let blur = style.shadow.map { $0.blur * scale } ?? 0
        // The box centre sits at `phase` past a whole pixel; the raster starts a whole, even number of pixels
        // before it (even keeps chroma aligned when the raster is placed by whole pixels).
        // `centre` is the anchor point of the layout box: its centre unless the title names another point.
        let anchorPoint = style.anchor.fractions
        let centreX = measured.logical.x + measured.logical.width * anchorPoint.x
        let centreY = measured.logical.y + measured.logical.height * anchorPoint.y
        func evenFloor(_ value: Double) -> Int { Int((value / 2).rounded(.down)) * 2 }
        // Checked before any conversion to whole pixels, which a huge extent would overflow.
        guard maxX - minX <= 16380, maxY - minY <= 16380 else {
            throw RenderError(.unsupported, "a title is \(Int(min(maxX - minX, 1e9)))×\(Int(min(maxY - minY, 1e9))) "
                                  + "pixels, more than 16384 on a side; use a smaller size or shorter lines")
        }
        let left = evenFloor(minX - centreX - 1), top = evenFloor(minY - centreY - 1)
        let right = Int((maxX - centreX + 1).rounded(.up)) + 1, bottom = Int((maxY - centreY + 1).rounded(.up)) + 1
        let width = right - left, height = bottom - top
        guard width > 0, height > 0, width <= 16384, height <= 16384 else {
            throw RenderError(.unsupported, "a title is \(width)×\(height) pixels, more than 16384 on a side; "
                                  + "use a smaller size or shorter lines")
        }
        let anchor = LayerPoint(x: Double(-left) + phase.x, y: Double(-top) + phase.y)
        // Where the layout's origin goes in the raster.
        let originX = anchor.x - centreX, originY = anchor.y - centreY

        let surface = try Surface(width: width, height: height)
        let cr = surface.context
        if let background = style.background {
            cairo_rectangle(cr, originX + measured.logical.x - padding, originY + measured.logical.y - padding,
                            measured.logical.width + 2 * padding, measured.logical.height + 2 * padding)
            setColor(cr, background.color)
            cairo_fill(cr)
        }
        if let shadow = style.shadow {
            let mask = try Surface(width: width, height: height, alphaOnly: true)
            cairo_move_to(mask.context, originX + shadow.offset.x * scale, originY + shadow.offset.y * scale)
            pango_cairo_layout_path(mask.context, layout)
            if outline > 0 {
                cairo_set_line_width(mask.context, 2 * outline)
                cairo_set_line_join(mask.context, CAIRO_LINE_JOIN_ROUND)
                cairo_stroke_preserve(mask.context)
            }
            cairo_fill(mask.context)
            cairo_surface_flush(mask.surface)
            if blur > 0 { mask.blurAlpha(radius: blur) }
            setColor(cr, shadow.color)
            cairo_mask_surface(cr, mask.surface, 0, 0)
        }
        if let stroke = style.outline, outline > 0 {
            cairo_move_to(cr, originX, originY)
            pango_cairo_layout_path(cr, layout)
            cairo_set_line_width(cr, 2 * outline)
            cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
            setColor(cr, stroke.color)
            cairo_stroke(cr)
        }
        cairo_move_to(cr, originX, originY)
        setColor(cr, style.color)
        pango_cairo_show_layout(cr, layout)
        cairo_surface_flush(surface.surface)
        return LayerRaster(width: width, height: height, pixels: surface.rgbaBytes(), anchor: anchor)
    }

    /// Everything a title draws, in layout coordinates at `scale` (`measured` is its layout at that scale): the
    /// box with its padding, the ink grown by the outline, and the shadow with its offset and blur.
    static func drawnBounds(_ measured: Measured, style: TextStyle, scale: Double)
        -> (minX: Double, minY: Double, maxX: Double, maxY: Double)
    {
        let outline = style.outline.map { $0.width * scale } ?? 0
        let padding = style.background.map { $0.padding * scale } ?? 0
        var minX = measured.ink.x - outline, minY = measured.ink.y - outline
        var maxX = measured.ink.x + measured.ink.width + outline, maxY = measured.ink.y + measured.ink.height + outline
        if style.background != nil {
            minX = min(minX, measured.logical.x - padding)
            minY = min(minY, measured.logical.y - padding)
            maxX = max(maxX, measured.logical.x + measured.logical.width + padding)
            maxY = max(maxY, measured.logical.y + measured.logical.height + padding)
        }
        if let shadow = style.shadow {
            let spread = shadow.blur * scale * 3 + outline
            minX = min(minX, measured.ink.x + shadow.offset.x * scale - spread)
            minY = min(minY, measured.ink.y + shadow.offset.y * scale - spread)
            maxX = max(maxX, measured.ink.x + measured.ink.width + shadow.offset.x * scale + spread)
            maxY = max(maxY, measured.ink.y + measured.ink.height + shadow.offset.y * scale + spread)
        }
        return (minX, minY, maxX, maxY)
    }

    /// The layout of `style` at scale 1 (for validation: unknown glyphs, the box).
    static func measure(_ style: TextStyle) throws(RenderError) -> Measured {
        lock.lock()
        defer { lock.unlock() }
        let session = try PangoSession.shared()
        let layout = try session.layout(style, scale: 1)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        return measure(layout)
    }

    /// The characters of `style.text` that no installed font has, each once, in order.
    static func missingCharacters(_ style: TextStyle) throws(RenderError) -> [Character] {
        lock.lock()
        defer { lock.unlock() }
        let session = try PangoSession.shared()
        let whole = try session.layout(style, scale: 1)
        let unknown = pango_layout_get_unknown_glyphs_count(whole)
        g_object_unref(UnsafeMutableRawPointer(whole))
        guard unknown > 0 else { return [] }
        var missing: [Character] = []
        for character in style.text where !missing.contains(character) && !character.isWhitespace {
            var single = style
            single.text = String(character)
            single.fit = .none
            let layout = try session.layout(single, scale: 1)
            if pango_layout_get_unknown_glyphs_count(layout) > 0 { missing.append(character) }
            g_object_unref(UnsafeMutableRawPointer(layout))
        }
        return missing
    }

    /// Whether each run of `style.text`'s first line goes right to left, with the run's text (bidi check).
    static func runDirections(_ style: TextStyle) throws(RenderError) -> [(text: String, rightToLeft: Bool)] {
        lock.lock()
        defer { lock.unlock() }
        let session = try PangoSession.shared()
        let layout = try session.layout(style, scale: 1)
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        guard let bytes = pango_layout_get_text(layout) else { return [] }
        let utf8 = Array(UnsafeBufferPointer(start: UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self),
                                             count: strlen(bytes)))
        var runs: [(String, Bool)] = []
        var list = pango_layout_get_line_readonly(layout, 0)?.pointee.runs
        while let node = list {
            if let run = node.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self), let item = run.pointee.item {
                let offset = Int(item.pointee.offset), length = Int(item.pointee.length)
                let text = String(decoding: utf8[offset..<min(utf8.count, offset + length)], as: UTF8.self)
                runs.append((text, item.pointee.analysis.level % 2 == 1))
            }
            list = node.pointee.next
        }
        return runs
    }

    /// The installed font families, sorted.
    static func families() throws(RenderError) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return try PangoSession.shared().familyNames().sorted()
    }

    /// Registers a font file with fontconfig and returns its family name; nil when fontconfig cannot read it.
    static func registerFontFile(_ path: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        return FontFiles.register(path)
    }

    private static func measure(_ layout: OpaquePointer) -> Measured {
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_extents(layout, &ink, &logical)
        let unit = Double(PANGO_SCALE)
        func rect(_ r: PangoRectangle) -> (x: Double, y: Double, width: Double, height: Double) {
            (Double(r.x) / unit, Double(r.y) / unit, Double(r.width) / unit, Double(r.height) / unit)
        }
        return Measured(logical: rect(logical), ink: rect(ink),
                        unknownGlyphs: Int(pango_layout_get_unknown_glyphs_count(layout)))
    }

    private static func setColor(_ cr: OpaquePointer, _ color: RGBAColor) {
        cairo_set_source_rgba(cr, Double(color.red) / 255, Double(color.green) / 255, Double(color.blue) / 255,
                              Double(color.alpha) / 255)
    }
}

/// Font files registered with fontconfig so far (path → family), kept for the process's life.
private enum FontFiles {
    nonisolated(unsafe) static var families: [String: String] = [:]

    /// Call with `TextRasterizer.lock` held.
    static func register(_ path: String) -> String? {
        if let known = families[path] { return known }
        var count: Int32 = 0
        guard let pattern = FcFreeTypeQuery(path, 0, nil, &count) else { return nil }
        defer { FcPatternDestroy(pattern) }
        var value: UnsafeMutablePointer<FcChar8>?
        guard FcPatternGetString(pattern, "family", 0, &value) == FcResultMatch, let value else { return nil }
        let family = String(cString: UnsafeRawPointer(value).assumingMemoryBound(to: CChar.self))
        guard FcConfigAppFontAddFile(FcConfigGetCurrent(), path) != 0 else { return nil }
        families[path] = family
        return family
    }
}

/// A Pango font map and context, used only with `TextRasterizer.lock` held. One is kept for the process and made
/// again after a font file is registered, so that its font map sees the new file: a font map costs milliseconds to
/// make, which titles drawn on every frame (`{timecode}`) would otherwise pay per frame.
private final class PangoSession {
    /// The kept session, and the number of registered font files it was made after.
    nonisolated(unsafe) private static var kept: (session: PangoSession, fonts: Int)?

    /// The session to use now (call with `TextRasterizer.lock` held).
    static func shared() throws(RenderError) -> PangoSession {
        if let kept, kept.fonts == FontFiles.families.count { return kept.session }
        let made = try PangoSession()
        kept = (made, FontFiles.families.count)
        return made
    }

    let fontMap: UnsafeMutablePointer<PangoFontMap>
    let context: OpaquePointer

    init() throws(RenderError) {
        guard let map = pango_cairo_font_map_new() else {
            throw RenderError(.internal, "Pango could not create a font map")
        }
        fontMap = map
        guard let made = pango_font_map_create_context(map) else {
            g_object_unref(UnsafeMutableRawPointer(map))
            throw RenderError(.internal, "Pango could not create a context")
        }
        context = made
        // Unhinted outlines and metrics: a title looks the same at every size and scale it is drawn at.
        let options = cairo_font_options_create()
        cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        pango_cairo_context_set_font_options(context, options)
        cairo_font_options_destroy(options)
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(context))
        g_object_unref(UnsafeMutableRawPointer(fontMap))
    }

    /// A layout of `style` with its font at `scale` × its size in pixels (for `fit: shrink`, × the size at which
    /// it fits its box, found at scale 1 so that the same text fits the same way at every scale).
    func layout(_ style: TextStyle, scale: Double) throws(RenderError) -> OpaquePointer {
        var drawn = style
        if style.fit == .shrink { drawn.size = try fittedSize(style) }
        return try layout(drawn, size: drawn.size * scale, scale: scale)
    }

    /// The largest size up to `style.size` (at least 1 px) at which `style` fits `maxWidth` (and `maxHeight`),
    /// to 1/64 px, by bisection: text grows monotonically with its size (the metrics are not hinted).
    private func fittedSize(_ style: TextStyle) throws(RenderError) -> Double {
        guard let maxWidth = style.maxWidth else { return style.size }
        func fits(_ size: Double) throws(RenderError) -> Bool {
            let layout = try self.layout(style, size: size, scale: 1)
            defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
            var logical = PangoRectangle()
            pango_layout_get_extents(layout, nil, &logical)
            let width = Double(logical.width) / Double(PANGO_SCALE), height = Double(logical.height) / Double(PANGO_SCALE)
            // A word wider than the box overflows it even when wrapping (PANGO_WRAP_WORD never breaks it).
            return width <= maxWidth + 1e-9 && style.maxHeight.map { height <= $0 + 1e-9 } ?? true
        }
        if try fits(style.size) { return style.size }
        var low = 1.0, high = style.size
        if try !fits(low) { return low }
        while high - low > 1.0 / 64 {
            let middle = (low + high) / 2
            if try fits(middle) { low = middle } else { high = middle }
        }
        return low
    }

    /// A layout of `style` with its font at `size` pixels and its box (`maxWidth`) at `scale`.
    private func layout(_ style: TextStyle, size: Double, scale: Double) throws(RenderError) -> OpaquePointer {
        guard let layout = pango_layout_new(context) else { throw RenderError(.internal, "Pango could not create a layout") }
        var family: String
        if style.fontIsFile, let font = style.font {
            family = FontFiles.families[font] ?? TextStyle.defaultFont
        } else {
            family = style.font ?? TextStyle.defaultFont
        }
        // Pango takes a family list separated by commas: the first installed one draws, later ones fill in.
        if !style.fallbackFonts.isEmpty { family = ([family] + style.fallbackFonts).joined(separator: ",") }
        let description = pango_font_description_new()
        pango_font_description_set_family(description, family)
        pango_font_description_set_absolute_size(description, size * Double(PANGO_SCALE))
        pango_font_description_set_weight(description, PangoWeight(UInt32(style.weight)))
        pango_font_description_set_style(description, Self.pangoStyle(style.fontStyle))
        pango_font_description_set_stretch(description, Self.pangoStretch(style.stretch))
        pango_layout_set_font_description(layout, description)
        pango_font_description_free(description)
        if let maxWidth = style.maxWidth {
            // Shrinking with only a width keeps the lines as written; otherwise lines wrap at the width (inside a
            // word only when wrapping text that is not shrunk, whose long words have nowhere else to go).
            if style.fit != .shrink || style.maxHeight != nil {
                pango_layout_set_width(layout, Int32(min(1e9, (maxWidth * scale * Double(PANGO_SCALE)).rounded(.down))))
                pango_layout_set_wrap(layout, style.fit == .shrink ? PANGO_WRAP_WORD : PANGO_WRAP_WORD_CHAR)
            }
        }
        switch style.align {
        case .left: pango_layout_set_alignment(layout, PANGO_ALIGN_LEFT)
        case .center: pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER)
        case .right: pango_layout_set_alignment(layout, PANGO_ALIGN_RIGHT)
        }
        if let spacing = style.lineSpacing {
            // Pango spaces baselines by a factor of the font's line height; the project gives ems.
            pango_layout_set_text(layout, "Ag", -1)
            var logical = PangoRectangle()
            pango_layout_get_extents(layout, nil, &logical)
            let natural = Double(logical.height) / Double(PANGO_SCALE)
            if natural > 0 { pango_layout_set_line_spacing(layout, Float(spacing * size / natural)) }
        }
        pango_layout_set_text(layout, style.text, -1)
        return layout
    }

    private static func pangoStyle(_ style: TextStyle.FontStyle) -> PangoStyle {
        switch style {
        case .normal: PANGO_STYLE_NORMAL
        case .italic: PANGO_STYLE_ITALIC
        case .oblique: PANGO_STYLE_OBLIQUE
        }
    }

    private static func pangoStretch(_ stretch: TextStyle.Stretch) -> PangoStretch {
        switch stretch {
        case .ultraCondensed: PANGO_STRETCH_ULTRA_CONDENSED
        case .extraCondensed: PANGO_STRETCH_EXTRA_CONDENSED
        case .condensed: PANGO_STRETCH_CONDENSED
        case .semiCondensed: PANGO_STRETCH_SEMI_CONDENSED
        case .normal: PANGO_STRETCH_NORMAL
        case .semiExpanded: PANGO_STRETCH_SEMI_EXPANDED
        case .expanded: PANGO_STRETCH_EXPANDED
        case .extraExpanded: PANGO_STRETCH_EXTRA_EXPANDED
        case .ultraExpanded: PANGO_STRETCH_ULTRA_EXPANDED
        }
    }

    func familyNames() -> [String] {
        var families: UnsafeMutablePointer<UnsafeMutablePointer<PangoFontFamily>?>?
        var count: Int32 = 0
        pango_font_map_list_families(fontMap, &families, &count)
        defer { g_free(families) }
        guard let families else { return [] }
        return (0..<Int(count)).compactMap { index in
            families[index].flatMap { pango_font_family_get_name($0) }.map { String(cString: $0) }
        }
    }
}

/// A Cairo image surface and a context drawing on it (titles here, masks in `MaskRasterizer`).
final class Surface {
    let surface: OpaquePointer
    let context: OpaquePointer
    let width: Int
    let height: Int

    init(width: Int, height: Int, alphaOnly: Bool = false) throws(RenderError) {
        guard let made = cairo_image_surface_create(alphaOnly ? CAIRO_FORMAT_A8 : CAIRO_FORMAT_ARGB32,
                                                    Int32(width), Int32(height)),
              cairo_surface_status(made) == CAIRO_STATUS_SUCCESS else {
            throw RenderError(.internal, "Cairo could not create a \(width)×\(height) surface")
        }
        surface = made
        context = cairo_create(made)
        self.width = width
        self.height = height
    }

    deinit {
        cairo_destroy(context)
        cairo_surface_destroy(surface)
    }

    /// The premultiplied pixels as R, G, B, A bytes (Cairo stores native-endian ARGB words).
    func rgbaBytes() -> [UInt8] {
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let data = cairo_image_surface_get_data(surface) else { return [] }
        var out = [UInt8](repeating: 0, count: width * height * 4)
        out.withUnsafeMutableBufferPointer { bytes in
            for y in 0..<height {
                let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
                for x in 0..<width {
                    let word = row[x]
                    let index = (y * width + x) * 4
                    bytes[index] = UInt8(truncatingIfNeeded: word >> 16)
                    bytes[index + 1] = UInt8(truncatingIfNeeded: word >> 8)
                    bytes[index + 2] = UInt8(truncatingIfNeeded: word)
                    bytes[index + 3] = UInt8(truncatingIfNeeded: word >> 24)
                }
            }
        }
        return out
    }

    /// Blurs an A8 surface in place with three box passes each way (close to a Gaussian of σ ≈ radius / 2).
    func blurAlpha(radius: Double) {
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let data = cairo_image_surface_get_data(surface) else { return }
        let box = max(1, Int((radius / 2 * 1.7).rounded()))
        var line = [Int](repeating: 0, count: max(width, height))
        func pass(count: Int, get: (Int) -> Int, set: (Int, Int) -> Void) {
            for i in 0..<count { line[i] = get(i) }
            let window = 2 * box + 1
            var sum = 0
            for i in 0...min(box, count - 1) { sum += line[i] }
            for i in 0..<count {
                set(i, (sum + window / 2) / window)
                let leaving = i - box, entering = i + box + 1
                if leaving >= 0 { sum -= line[leaving] }
                if entering < count { sum += line[entering] }
            }
        }
        cairo_surface_flush(surface)
        for _ in 0..<3 {
            for y in 0..<height {
                let row = data + y * stride
                pass(count: width, get: { Int(row[$0]) }, set: { row[$0] = UInt8($1) })
            }
            for x in 0..<width {
                pass(count: height, get: { Int(data[$0 * stride + x]) }, set: { data[$0 * stride + x] = UInt8($1) })
            }
        }
        cairo_surface_mark_dirty(surface)
    }
}
