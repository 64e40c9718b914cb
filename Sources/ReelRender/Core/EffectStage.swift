import Foundation
import ReelMedia
import ReelModel
import ReelTime

/// The effect stage, inside the frame-requests stage: runs a layer's effects (docs/effects.md) on the source
/// picture the sources stage found for it, before the compositor places it (AVFoundation's
/// `applyingCIFiltersWithHandler`).
///
/// The effects active at a time become a short list of steps: runs of libavfilter filters, each one graph text
/// (`description(of:…)`) run by a `PictureFilter` that is rebuilt only when its text changes (another clip's
/// effects, an effect's time range starting or ending, a picture of another size), and chroma keys, run by
/// `ChromaKeyer` (a key's spill suppression is a filter run after it). A source picture held over several output
/// frames is filtered once. Layers without effects never reach this stage. Use it from one thread.
final class EffectStage {
    /// A track's chain for the effects active now: its filter runs in order, and its last input and output.
    private struct Chain {
        let effects: [LayerEffect]
        var filters: [PictureFilter] = []
        var input: VideoFrame?
        var output: VideoFrame?
    }

    private var chains: [Int: Chain] = [:]
    /// Mask coverages drawn, by what decides them; dropped whole when it grows past a few.
    private var masks: [MaskKey: [UInt8]] = [:]

    private struct MaskKey: Hashable {
        let mask: LayerMask
        let shape: RegionShape
        let rect: CropRect?
        let width: Int
        let height: Int
        let rotation: Int
    }
    /// Turns a path as written in the project into one the filters can open.
    private let resolvePath: (String) -> String
    /// Opens mask images; nil: a mask image is an error.
    private let opener: (any SourceOpener)?

    /// A stage whose LUT files and mask images are resolved by `resolvePath` (the project's folder for relative
    /// paths), mask images read through `opener`.
    init(resolvePath: @escaping (String) -> String, opener: (any SourceOpener)? = nil) {
        self.resolvePath = resolvePath
        self.opener = opener
    }

    /// `frame` with the effects of `effects` active at composition time `time` applied, or `frame` itself when none
    /// is active then.
    func apply(_ effects: [LayerEffect], track: Int, to frame: TrackFrame, at time: Time) throws(RenderError) -> TrackFrame {
        // Animated parameters are evaluated here, so a chain whose values changed is rebuilt like one whose effects did.
        let active = effects.filter { $0.isActive(at: time) }.map { $0.evaluated(at: time) }
        guard !active.isEmpty else { return frame }
        var chain = chains[track].flatMap { $0.effects == active ? $0 : nil } ?? Chain(effects: active)
        let output: VideoFrame
        if let previous = chain.output, chain.input === frame.picture {
            output = previous
        } else {
            do {
                output = try run(&chain, on: frame.picture, rotation: frame.rotation)
            } catch {
                throw RenderError(media: error)
            }
            chain.input = frame.picture
            chain.output = output
        }
        chains[track] = chain
        var filtered = frame
        filtered.picture = output
        return filtered
    }

    /// Runs `chain`'s effects on `picture`, making or remaking its steps where the picture's shape asks for it.
    private func run(_ chain: inout Chain, on picture: VideoFrame, rotation: Int) throws(MediaError) -> VideoFrame {
        var result = picture
        var pending: [LayerEffect] = []
        var index = 0  // of the next filter run in chain.filters
        /// `text` run on `input` by the chain's next filter run, reused when its text and format match.
        func filtered(_ input: VideoFrame, _ text: String) throws(MediaError) -> VideoFrame {
            let alpha = input.format.hasAlpha
            let filter: PictureFilter
            if index < chain.filters.count, chain.filters[index].description == text,
                chain.filters[index].keepsAlpha == alpha {
                filter = chain.filters[index]
            } else {
                // This run and the ones after it are remade (a picture of another size or format).
                filter = PictureFilter(description: text, keepsAlpha: alpha)
                chain.filters.removeSubrange(min(index, chain.filters.count)...)
                chain.filters.append(filter)
            }
            index += 1
            return try filter.apply(input)
        }
        func filterPending() throws(MediaError) {
            defer { pending = [] }
            guard !pending.isEmpty,
                let text = Self.description(of: pending, width: result.width, height: result.height, rotation: rotation,
                                            alpha: result.format.hasAlpha, resolvePath: resolvePath)
            else { return }
            result = try filtered(result, text)
        }
        func workingFormat() throws(MediaError) {
            if result.format != .yuv420p && result.format != .yuva420p {
                result = try Scaler().converted(result, width: result.width, height: result.height, format: .yuv420p)
            }
        }
        for effect in chain.effects {
            if case .mask(let mask) = effect.kind {
                // A mask multiplies the alpha of the picture as the effects before it left it.
                try filterPending()
                try workingFormat()
                result = try AlphaMask.multiplied(result, by: coverage(mask, effect, result, rotation: rotation))
                continue
            }
            if effect.shape == .ellipse, let rect = effect.rect {
                // An ellipse region: its bounding region filtered on its own, then merged back through the ellipse.
                try filterPending()
                try workingFormat()
                guard let region = Self.storedRegion(rect, width: result.width, height: result.height, rotation: rotation)
                else { continue }
                let bounds = Self.storedBounds(rect, width: result.width, height: result.height, rotation: rotation)
                let text = "crop=w=\(region.width):h=\(region.height):x=\(region.x):y=\(region.y):exact=1,"
                    + Self.filterText(effect.kind, alpha: result.format.hasAlpha, resolvePath: resolvePath)
                let part = try filtered(result, text)
                let ellipse = EllipseRegion(x: bounds.x0, y: bounds.y0, width: bounds.x1 - bounds.x0,
                                            height: bounds.y1 - bounds.y0)
                result = try ellipse.merged(part, at: region.x, region.y, into: result)
                continue
            }
            guard case .chromaKey(let key) = effect.kind else {
                pending.append(effect)
                continue
            }
            try filterPending()
            try workingFormat()
            let yuv = YUVColor(key.color)
            let keyer = ChromaKeyer(u: Int(yuv.u), v: Int(yuv.v), similarity: key.similarity, blend: key.blend)
            result = try keyer.keyed(result)
            // The key's spill suppression (if any) is a filter, run with whatever follows.
            if key.spill > 0 { pending.append(effect) }
        }
        try filterPending()
        return result
    }

    /// The coverage of a mask effect over `picture`, drawn once per shape and picture size.
    private func coverage(_ mask: LayerMask, _ effect: LayerEffect, _ picture: VideoFrame,
                          rotation: Int) throws(MediaError) -> [UInt8] {
        let key = MaskKey(mask: mask, shape: effect.shape, rect: effect.rect, width: picture.width, height: picture.height,
                          rotation: rotation)
        if let drawn = masks[key] { return drawn }
        let drawn: [UInt8]
        if let file = mask.image {
            guard let opener else { throw MediaError(.internal, "no opener for the mask image \(file)") }
            let image = try ImageLayer.decode(path: resolvePath(file), stream: 0, opener: opener)
            drawn = try MaskRasterizer.coverage(mask, image: image, rect: effect.rect, width: picture.width,
                                                height: picture.height, rotation: rotation)
        } else {
            do {
                drawn = try MaskRasterizer.coverage(mask, shape: effect.shape, rect: effect.rect, width: picture.width,
                                                    height: picture.height, rotation: rotation)
            } catch {
                throw MediaError(.internal, error.message)
            }
        }
        if masks.count >= 8 { masks.removeAll() }
        masks[key] = drawn
        return drawn
    }

    /// Drops the graphs of tracks not in `tracksInUse`.
    func release(keeping tracksInUse: Set<Int>) {
        chains = chains.filter { tracksInUse.contains($0.key) }
    }

    // MARK: Graph text

    /// The filtergraph text for `effects` on a stored picture of `width`×`height` pixels shown turned by `rotation`
    /// degrees counter-clockwise (rectangles are in display-oriented pixels); nil when no effect changes anything
    /// (every rectangle is outside the picture). `alpha`: the pictures carry alpha (yuva420p) through the graph,
    /// because the source has it or a key makes it.
    static func description(of effects: [LayerEffect], width: Int, height: Int, rotation: Int, alpha: Bool = false,
                            resolvePath: (String) -> String) -> String? {
        var parts: [String] = []
        for (index, effect) in effects.enumerated() {
            let filter = filterText(effect.kind, alpha: alpha, resolvePath: resolvePath)
            guard let rect = effect.rect else {
                parts.append(filter)
                continue
            }
            guard let region = storedRegion(rect, width: width, height: height, rotation: rotation) else { continue }
            let (main, part, done) = ("m\(index)", "r\(index)", "e\(index)")
            parts.append("split[\(main)][\(part)];[\(part)]crop=w=\(region.width):h=\(region.height):x=\(region.x):"
                         + "y=\(region.y):exact=1,\(filter)[\(done)];[\(main)][\(done)]overlay=x=\(region.x):y=\(region.y)")
        }
        return parts.isEmpty ? nil : parts.joined(separator: ",")
    }

    /// libavfilter's filters for one effect over a whole yuv420p picture (yuva420p when `alpha`). Filters that work
    /// on RGB get a BT.709 video-range conversion to planar RGB (with alpha when `alpha`) and back around them.
    static func filterText(_ kind: EffectKind, alpha: Bool = false, resolvePath: (String) -> String) -> String {
        func inRGB(_ filters: String) -> String { Self.inRGB(filters, alpha: alpha) }
        switch kind {
        case .chromaKey(let key):
            // The key itself is `ChromaKeyer` (`chromakey=color=0xYYUUVV:yuv=1:similarity:blend` computed the same
            // way); what is left for libavfilter is spill suppression: despill lowers the screen's channel by `spill`
            // × how far it exceeds the mean of the other two.
            guard key.spill > 0, let screen = key.screen else { return "null" }
            let (green, blue) = screen == .green ? (-key.spill, 0.0) : (0.0, -key.spill)
            return Self.inRGB("despill=type=\(screen.rawValue):mix=0.5:expand=0:red=0:green=\(number(green)):"
                              + "blue=\(number(blue)):brightness=0:alpha=0", alpha: true)
        case .mask:
            // Drawn by `MaskRasterizer`, never a filter.
            return "null"
        case .lut(let file):
            return inRGB("lut3d=file=\(PictureFilter.quoted(resolvePath(file))):interp=tetrahedral")
        case .blur(let radius):
            // A radius or size compiled from canvas pixels on a much reduced clip may exceed the filters' limits.
            return "gblur=sigma=\(number(min(radius, 1024)))"
        case .pixelate(let size):
            let side = Int(max(1, min(1024, size)).rounded())
            return "pixelize=w=\(side):h=\(side)"
        case .color(let adjustment):
            var filters: [String] = []
            if adjustment.changesEq {
                filters.append("eq=brightness=\(number(adjustment.brightness)):contrast=\(number(adjustment.contrast)):"
                               + "saturation=\(number(adjustment.saturation)):gamma=\(number(adjustment.gamma))")
            }
            if adjustment.hue != 0 { filters.append("hue=h=\(number(adjustment.hue))") }
            var rgb: [String] = []
            if adjustment.exposure != 0 { rgb.append("exposure=exposure=\(number(adjustment.exposure)):black=0") }
            if let kelvin = adjustment.temperature { rgb.append("colortemperature=temperature=\(number(kelvin))") }
            if adjustment.tint != 0 {
                let gains = adjustment.tintGains
                rgb.append("colorchannelmixer=rr=\(number(gains.redBlue)):gg=\(number(gains.green)):bb=\(number(gains.redBlue))")
            }
            switch adjustment.preset {
            case .greyscale?:
                if !rgb.isEmpty { filters.append(inRGB(rgb.joined(separator: ","))) }
                rgb = []
                filters.append("lutyuv=u=128:v=128")
            case .sepia?:
                rgb.append("colorchannelmixer=rr=0.393:rg=0.769:rb=0.189:gr=0.349:gg=0.686:gb=0.168:br=0.272:bg=0.534:bb=0.131")
            case nil:
                break
            }
            if !rgb.isEmpty { filters.append(inRGB(rgb.joined(separator: ","))) }
            return filters.isEmpty ? "null" : filters.joined(separator: ",")
        }
    }

    /// The BT.709 video-range conversion to 8-bit planar RGB (`gbrp`, or `gbrap` keeping `alpha`) and back around
    /// `filters`.
    static func inRGB(_ filters: String, alpha: Bool = false) -> String {
        let flags = "flags=bicubic+accurate_rnd+full_chroma_int+full_chroma_inp"
        let (rgb, yuv) = alpha ? ("gbrap", "yuva420p") : ("gbrp", "yuv420p")
        return "scale=in_color_matrix=bt709:in_range=tv:\(flags),format=pix_fmts=\(rgb),\(filters),"
            + "scale=out_color_matrix=bt709:out_range=tv:\(flags),format=pix_fmts=\(yuv)"
    }

    /// A number as filter options read it: fixed-point, no exponent.
    static func number(_ value: Double) -> String {
        String(format: "%.6f", value)
    }

    /// `rect` (display-oriented pixels of a picture stored as `width`×`height` and turned by `rotation`) in stored
    /// pixels, widened to even edges (4:2:0 chroma) and cut to the picture; nil when nothing is left.
    static func storedRegion(_ rect: CropRect, width: Int, height: Int, rotation: Int)
        -> (x: Int, y: Int, width: Int, height: Int)? {
        guard [rect.x, rect.y, rect.width, rect.height].allSatisfy(\.isFinite) else { return nil }
        let stored = storedBounds(rect, width: width, height: height, rotation: rotation)
        // Clamped first: a rectangle far outside the picture must not overflow Int.
        func evenDown(_ v: Double) -> Int { Int((max(-1e9, min(1e9, v)) / 2).rounded(.down)) * 2 }
        func evenUp(_ v: Double) -> Int { Int((max(-1e9, min(1e9, v)) / 2).rounded(.up)) * 2 }
        let left = max(0, evenDown(stored.x0)), top = max(0, evenDown(stored.y0))
        let right = min(width - width % 2, evenUp(stored.x1)), bottom = min(height - height % 2, evenUp(stored.y1))
        guard right > left, bottom > top else { return nil }
        return (left, top, right - left, bottom - top)
    }

    /// `rect` (display-oriented pixels of a picture stored as `width`×`height` and turned by `rotation`) in stored
    /// pixels, exactly: its left, top, right and bottom edges, not rounded or cut.
    static func storedBounds(_ rect: CropRect, width: Int, height: Int, rotation: Int)
        -> (x0: Double, y0: Double, x1: Double, y1: Double) {
        let turns = ((Int((Double(rotation % 360) / 90).rounded()) % 4) + 4) % 4
        let x0 = rect.x, y0 = rect.y, x1 = rect.x + rect.width, y1 = rect.y + rect.height
        let w = Double(width), h = Double(height)
        // Display (x, y) shows stored (w − 1 − y, x) at one turn, (w − 1 − x, h − 1 − y) at two, (y, h − 1 − x) at three.
        switch turns {
        case 1: return (w - y1, x0, w - y0, x1)
        case 2: return (w - x1, h - y1, w - x0, h - y0)
        case 3: return (y0, h - x1, y1, h - x0)
        default: return (x0, y0, x1, y1)
        }
    }
}
