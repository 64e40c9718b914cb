import Foundation
import ReelModel
import ReelTime

/// Warns when a title's or overlay's ink leaves the canvas (issue 19.5): a long name in a lower third that runs off
/// the left edge is drawn cut, and nothing else would say so.
///
/// Each layer is checked at every output frame of its life (capped at `maximumChecks` evenly spread frames), with
/// its box as drawn: for text the glyphs' ink grown by the outline, the background box with its padding and the
/// shadow (`TextRasterizer.drawnBounds`); for an image its rectangle. The box is scaled and turned about the
/// layer's position as the layer's state at that frame says; a frame where the layer is fully transparent does
/// not count. A frame inside a position, scale or rotation animation that itself starts or ends with ink off the
/// canvas (a slide in from outside, a fly-out) does not count either: crossing the edge is that animation's
/// purpose. Half a pixel of overhang is tolerated (anti-aliasing).
enum CanvasCheck {
    /// Frames checked per layer at most.
    static let maximumChecks: Int64 = 20_000

    /// One warning per layer of `project` whose ink leaves the canvas, at the first frame it does; `imageSizes`
    /// gives the display size of image assets for overlays without a `size`.
    static func diagnostics(for project: CompiledProject, imageSizes: [String: PixelSize]) -> [Diagnostic] {
        let composition = project.videoComposition
        let canvas = (width: Double(composition.renderSize.width), height: Double(composition.renderSize.height))
        let frameDuration = composition.frameDuration
        var diagnostics: [Diagnostic] = []
        for layer in composition.overlays + composition.titles {
            var measured = layer
            if case .text(let style) = layer.content, style.showsMovieTime {
                // Tokens measured as the layer's last frame shows them (the most digits).
                let last = (try? layer.timeRange.end.quotient(dividingBy: frameDuration, rounding: .up)) ?? 1
                measured.content = .text(style.showing(frame: max(0, last - 1), frameDuration: frameDuration))
            }
            guard let box = box(of: measured, imageSizes: imageSizes) else { continue }
            func outside(_ state: LayerState) -> (edges: [String], overhang: Double)? {
                overhang(box, state: state, canvas: canvas)
            }
            let motions = layer.animations.filter { $0.property != .opacity }
            // Motions whose own start or end leaves the canvas: crossing the edge is what they are for.
            let crossings = motions.filter { motion in
                let start = (try? layer.timeRange.start + motion.timeRange.start) ?? layer.timeRange.start
                let end = (try? layer.timeRange.start + motion.timeRange.end) ?? layer.timeRange.end
                let last = (try? end - Time(value: 1, timescale: 1_000_000)) ?? end
                return outside(layer.state(at: start)) != nil || outside(layer.state(at: last)) != nil
            }
            guard let first = try? layer.timeRange.start.quotient(dividingBy: frameDuration, rounding: .up),
                  let end = try? layer.timeRange.end.quotient(dividingBy: frameDuration, rounding: .up), end > first
            else { continue }
            let step = max(1, (end - first + maximumChecks - 1) / maximumChecks)
            var frame = first
            while frame < end {
                defer { frame += step }
                guard let time = try? Time.frames(frame, frameDuration: frameDuration),
                      let local = try? time - layer.timeRange.start else { continue }
                let state = layer.state(at: time)
                guard state.opacity > 0, let found = outside(state) else { continue }
                if crossings.contains(where: { $0.timeRange.contains(local) }) { continue }
                let what = layer.isText ? "title" : "overlay"
                diagnostics.append(Diagnostic(
                    .warning, path: layer.path,
                    message: "the \(what)'s ink leaves the canvas past its \(found.edges.joined(separator: " and ")) "
                        + "edge\(found.edges.count > 1 ? "s" : "") by up to \(Int(found.overhang.rounded(.up))) "
                        + "pixels at \(describeTime(time, frameDuration: frameDuration)); it is drawn cut there",
                    time: time, frame: frame,
                    hint: layer.isText
                        ? "shorten the text, use a smaller size, maxWidth or fit \"shrink\", or move its position inwards (it places the text's anchor, by default its centre)"
                        : "use a smaller size, or move its position inwards (it is the centre of the image)"))
                break
            }
        }
        return diagnostics
    }

    /// The layer's drawn box relative to its position, in render-size pixels at scale 1 and no rotation.
    private static func box(of layer: MovieLayer, imageSizes: [String: PixelSize])
        -> (minX: Double, minY: Double, maxX: Double, maxY: Double)?
    {
        switch layer.content {
        case .text(let style):
            guard let measured = try? TextRasterizer.measure(style) else { return nil }
            let drawn = TextRasterizer.drawnBounds(measured, style: style, scale: 1)
            let anchor = style.anchor.fractions
            let centreX = measured.logical.x + measured.logical.width * anchor.x
            let centreY = measured.logical.y + measured.logical.height * anchor.y
            return (drawn.minX - centreX, drawn.minY - centreY, drawn.maxX - centreX, drawn.maxY - centreY)
        case .image(let asset, let size):
            guard let size = size ?? imageSizes[asset] else { return nil }
            let halfWidth = Double(size.width) / 2, halfHeight = Double(size.height) / 2
            return (-halfWidth, -halfHeight, halfWidth, halfHeight)
        case .shape(let style):
            let bounds = style.bounds, halfWidth = style.size.x / 2, halfHeight = style.size.y / 2
            return (bounds.minX - halfWidth, bounds.minY - halfHeight, bounds.maxX - halfWidth, bounds.maxY - halfHeight)
        }
    }

    /// The edges `box` crosses in `state` and by how many pixels at most, or nil when it stays inside.
    private static func overhang(_ box: (minX: Double, minY: Double, maxX: Double, maxY: Double), state: LayerState,
                                 canvas: (width: Double, height: Double)) -> (edges: [String], overhang: Double)? {
        let radians = state.rotation * .pi / 180
        let cosine = cos(radians), sine = sin(radians)
        let centreX = state.position.x * canvas.width, centreY = state.position.y * canvas.height
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for (x, y) in [(box.minX, box.minY), (box.maxX, box.minY), (box.minX, box.maxY), (box.maxX, box.maxY)] {
            // Scale, then turn clockwise on screen (y down), about the layer's position.
            let sx = x * state.scale.x, sy = y * state.scale.y
            let cx = centreX + cosine * sx - sine * sy, cy = centreY + sine * sx + cosine * sy
            minX = min(minX, cx)
            maxX = max(maxX, cx)
            minY = min(minY, cy)
            maxY = max(maxY, cy)
        }
        let tolerance = 0.5
        var edges: [String] = []
        var worst = 0.0
        for (edge, amount) in [("left", -minX), ("right", maxX - canvas.width), ("top", -minY),
                               ("bottom", maxY - canvas.height)] where amount > tolerance {
            edges.append(edge)
            worst = max(worst, amount)
        }
        return edges.isEmpty ? nil : (edges, worst)
    }
}

extension MovieLayer {
    /// Whether the layer is a title (text), not an image overlay.
    fileprivate var isText: Bool {
        if case .text = content { return true }
        return false
    }
}
