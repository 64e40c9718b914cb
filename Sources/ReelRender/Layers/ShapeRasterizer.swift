import CPangoCairo
import ReelModel

/// Draws shape layers (docs/format.md, "Shapes") with Cairo: the outline (a rectangle with rounded corners, an
/// ellipse, a polygon, or SVG path data made absolute by `SVGPath`), filled non-zero with a colour or a linear
/// gradient, then stroked, anti-aliased, at the size the layer is shown.
///
/// Like a title's raster, the picture starts a whole, even number of pixels before the box's centre, which sits at
/// `phase` past a whole pixel: a resting shape lands exactly where its position puts it, its edges where the
/// geometry says, without resampling.
enum ShapeRasterizer {
    /// `style` drawn at `scale` × its size, its box's centre at `phase` (fractions of a pixel) past a whole pixel.
    static func rasterize(_ style: ShapeStyle, scale: Double, phase: LayerPoint) throws(RenderError) -> LayerRaster {
        let bounds = style.bounds
        let halfWidth = style.size.x / 2, halfHeight = style.size.y / 2
        let minX = (bounds.minX - halfWidth) * scale, maxX = (bounds.maxX - halfWidth) * scale
        let minY = (bounds.minY - halfHeight) * scale, maxY = (bounds.maxY - halfHeight) * scale
        guard maxX - minX <= 16380, maxY - minY <= 16380, minX.isFinite, minY.isFinite, maxX.isFinite, maxY.isFinite else {
            throw RenderError(.unsupported, "a shape is \(Int(min(maxX - minX, 1e9)))×\(Int(min(maxY - minY, 1e9))) pixels "
                                  + "as drawn, more than 16384 on a side; use a smaller size or scale")
        }
        func evenFloor(_ value: Double) -> Int { Int((value / 2).rounded(.down)) * 2 }
        let left = evenFloor(minX - 1), top = evenFloor(minY - 1)
        let right = Int((maxX + 1).rounded(.up)) + 1, bottom = Int((maxY + 1).rounded(.up)) + 1
        let anchor = LayerPoint(x: Double(-left) + phase.x, y: Double(-top) + phase.y)
        let surface = try Surface(width: right - left, height: bottom - top)
        let cr = surface.context
        // Box pixels from here on: the box's top-left corner goes where its centre's offset puts it.
        cairo_translate(cr, anchor.x - halfWidth * scale, anchor.y - halfHeight * scale)
        cairo_scale(cr, scale, scale)
        outline(style, cr)
        switch style.fill {
        case .color(let color)?:
            setColor(cr, color)
            cairo_fill_preserve(cr)
        case .linear(let from, let to, let stops)?:
            guard let pattern = cairo_pattern_create_linear(from.x, from.y, to.x, to.y) else {
                throw RenderError(.internal, "Cairo could not make a gradient")
            }
            defer { cairo_pattern_destroy(pattern) }
            for stop in stops {
                cairo_pattern_add_color_stop_rgba(pattern, stop.offset, Double(stop.color.red) / 255, Double(stop.color.green) / 255,
                                                  Double(stop.color.blue) / 255, Double(stop.color.alpha) / 255)
            }
            cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
            cairo_set_source(cr, pattern)
            cairo_fill_preserve(cr)
        case nil:
            break
        }
        if let stroke = style.stroke {
            setColor(cr, stroke.color)
            cairo_set_line_width(cr, stroke.width)
            cairo_stroke_preserve(cr)
        }
        cairo_new_path(cr)
        cairo_surface_flush(surface.surface)
        return LayerRaster(width: surface.width, height: surface.height, pixels: surface.rgbaBytes(), anchor: anchor)
    }

    /// The shape's outline as Cairo's current path, in box pixels.
    static func outline(_ style: ShapeStyle, _ cr: OpaquePointer) {
        let width = style.size.x, height = style.size.y
        switch style.kind {
        case .rectangle:
            MaskRasterizer.roundedRectangle(cr, x0: 0, y0: 0, x1: width, y1: height, radiusX: style.cornerRadius,
                                            radiusY: style.cornerRadius)
        case .ellipse:
            cairo_save(cr)
            cairo_translate(cr, width / 2, height / 2)
            cairo_scale(cr, width / 2, height / 2)
            cairo_new_sub_path(cr)
            cairo_arc(cr, 0, 0, 1, 0, 2 * .pi)
            cairo_restore(cr)
        case .polygon:
            for (index, point) in style.points.enumerated() {
                if index == 0 { cairo_move_to(cr, point.x, point.y) } else { cairo_line_to(cr, point.x, point.y) }
            }
            cairo_close_path(cr)
        case .path:
            let commands = (try? SVGPath.parse(style.path ?? "")) ?? []
            for command in commands {
                switch command {
                case .move(let p): cairo_move_to(cr, p.x, p.y)
                case .line(let p): cairo_line_to(cr, p.x, p.y)
                case .curve(let a, let b, let c): cairo_curve_to(cr, a.x, a.y, b.x, b.y, c.x, c.y)
                case .close: cairo_close_path(cr)
                }
            }
        }
    }

    private static func setColor(_ cr: OpaquePointer, _ color: RGBAColor) {
        cairo_set_source_rgba(cr, Double(color.red) / 255, Double(color.green) / 255, Double(color.blue) / 255,
                              Double(color.alpha) / 255)
    }
}
