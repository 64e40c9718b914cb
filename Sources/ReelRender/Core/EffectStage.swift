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
/// frames is filtered once. A strong blur of the whole picture that ends a chain runs on a smaller picture
/// (`reducedBlur`), which the layer evaluator enlarges where it places it (`TrackFrame.fullSize`). Layers without
/// effects never reach this stage. Use it from one thread.
final class EffectStage {
    /// A track's chain for the effects active now: its filter runs in order, and its last input and output.
    private struct Chain {
        let effects: [LayerEffect]
        var filters: [PictureFilter] = []
        var input: VideoFrame?
        var output: VideoFrame?
        /// The size `output` stands for when it was made smaller (a reduced blur); nil: its own.
        var fullSize: PixelSize?
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
    /// The keyer of every chroma key (its buffers are reused from picture to picture).
    private let keyer = ChromaKeyer()
    /// LUT tables by resolved file (nil: the file cannot be read as a table; lut3d runs instead), made once a render.
    private var lookups: [String: ColorLookup?] = [:]
    /// `eq`'s per-sample maps (luma, chroma) by its filter text, for colour adjustments fused into a LUT's table.
    private var eqMapCache: [String: (luma: [UInt8], chroma: [UInt8])] = [:]
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
        var active = effects.filter { $0.isActive(at: time) }.map { $0.evaluated(at: time) }
        guard !active.isEmpty else { return frame }
        if let nominal = frame.fullSize, nominal.width > 0, nominal.height > 0 {
            // A picture drawn larger than the pixels its effects are measured in (an SVG or a composition shown
            // enlarged).
            let scaleX = Double(frame.picture.width) / Double(nominal.width)
            let scaleY = Double(frame.picture.height) / Double(nominal.height)
            active = active.map { Self.scaledToPicture($0, x: scaleX, y: scaleY) }
        }
        var chain = chains[track].flatMap { $0.effects == active ? $0 : nil } ?? Chain(effects: active)
        if chain.output == nil || chain.input !== frame.picture {
            do {
                (chain.output, chain.fullSize) = try run(&chain, on: frame.picture, rotation: frame.rotation)
            } catch {
                throw RenderError(media: error)
            }
            chain.input = frame.picture
        }
        chains[track] = chain
        var filtered = frame
        if let output = chain.output { filtered.picture = output }
        // A reduced blur of a picture drawn larger still stands for the nominal size the larger one stood for.
        filtered.fullSize = frame.fullSize ?? chain.fullSize
        return filtered
    }

    /// An effect measured in pixels `x`×`y` times larger: its region; a mask's radii and feather, a blur's radius
    /// and a pixelation's block size. Colour, LUT and key effects work sample by sample: only their region changes.
    static func scaledToPicture(_ effect: LayerEffect, x: Double, y: Double) -> LayerEffect {
        guard x != 1 || y != 1 else { return effect }
        var scaled = effect
        scaled.rect = effect.rect.map { CropRect(x: $0.x * x, y: $0.y * y, width: $0.width * x, height: $0.height * y) }
        let mean = (x * y).squareRoot()
        switch effect.kind {
        case .mask(var mask):
            mask.cornerRadius = LayerPoint(x: mask.cornerRadius.x * x, y: mask.cornerRadius.y * y)
            mask.feather *= mean
            scaled.kind = .mask(mask)
        case .blur(let radius):
            scaled.kind = .blur(radius: radius * mean)
        case .pixelate(let size):
            scaled.kind = .pixelate(size: size * mean)
        case .lut, .color, .chromaKey:
            break
        }
        return scaled
    }

    /// Whether `effect` is a blur of the whole picture strong enough to run on a reduced picture (`reducedBlur`):
    /// a picture under it gains nothing from being drawn larger.
    static func isStrongBlur(_ effect: LayerEffect) -> Bool {
        guard effect.rect == nil, case .blur(let radius) = effect.kind else { return false }
        return radius >= 2 * reducedBlurSigma
    }

    /// Runs `chain`'s effects on `picture`, making or remaking its steps where the picture's shape asks for it;
    /// returns the result and, when a last strong blur made it smaller (`reducedBlur`), the size it stands for.
    private func run(_ chain: inout Chain, on picture: VideoFrame, rotation: Int) throws(MediaError)
        -> (VideoFrame, PixelSize?) {
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
        var fused = 0  // effects after a LUT already applied through its table
        for (position, effect) in chain.effects.enumerated() {
            if fused > 0 {
                fused -= 1
                continue
            }
            if case .mask(let mask) = effect.kind {
                // A mask multiplies the alpha of the picture as the effects before it left it.
                try filterPending()
                try workingFormat()
                result = try AlphaMask.multiplied(result, by: coverage(mask, effect, result, rotation: rotation))
                continue
            }
            if position == chain.effects.count - 1,
                let size = Self.reducedBlur(effect, width: result.width, height: result.height) {
                // The last effect, a strong blur of the whole picture: run small, enlarged where it is placed.
                try filterPending()
                let full = PixelSize(width: result.width, height: result.height)
                result = try filtered(result, size.text)
                return (result, full)
            }
            if case .lut(let file) = effect.kind, effect.rect == nil {
                try filterPending()
                if result.format == .yuv420p || result.format == .yuva420p, let lookup = lookup(file) {
                    // The colour adjustments right after it that only `eq` does are per-sample maps: fused in.
                    var luma: [UInt8]?, chroma: [UInt8]?
                    for next in chain.effects[(position + 1)...] {
                        guard next.rect == nil, case .color(let adjustment) = next.kind, Self.onlyEq(adjustment) else { break }
                        fused += 1
                        guard adjustment.changesEq else { continue }
                        let maps = try eqMaps(adjustment)
                        luma = (luma ?? Self.identity).map { maps.luma[Int($0)] }
                        chroma = (chroma ?? Self.identity).map { maps.chroma[Int($0)] }
                    }
                    result = try lookup.applied(to: result, lumaMap: luma, chromaMap: chroma)
                    continue
                }
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
                result = try ellipse.merged(part, at: region.x, region.y, into: result) {
                    source, sourceStride, mask, maskStride, target, targetStride, width, height in
                    PlaneOps.blendMasked(from: source, sourceStride: sourceStride, mask: mask, maskStride: maskStride,
                                         onto: target, targetStride: targetStride, width: width, height: height, alpha: 256)
                }
                continue
            }
            guard case .chromaKey(let key) = effect.kind else {
                pending.append(effect)
                continue
            }
            try filterPending()
            try workingFormat()
            let yuv = YUVColor(key.color)
            result = try keyer.keyed(result, with: ChromaKeyer.Key(u: Int(yuv.u), v: Int(yuv.v),
                                                                   similarity: key.similarity, blend: key.blend))
            // The key's spill suppression (if any) is a filter, run with whatever follows.
            if key.spill > 0 { pending.append(effect) }
        }
        try filterPending()
        return (result, nil)
    }

    /// Below this standard deviation (pixels of the reduced picture) a blur runs at full resolution.
    static let reducedBlurSigma = 4.0

    /// For a blur of the whole picture strong enough (σ ≥ 2 × `reducedBlurSigma`) to be run on a picture k times
    /// smaller, k = ⌊σ / reducedBlurSigma⌋: the reduced size (even sides) and the filter text that makes it
    /// (`scale` by area averaging, then `gblur` with σ scaled per axis); nil for any other effect. A gaussian this
    /// wide leaves nothing near the reduced picture's Nyquist frequency, so enlarging it again where the layer is
    /// placed loses nothing visible (docs/effects.md, "Strong blurs").
    static func reducedBlur(_ effect: LayerEffect, width: Int, height: Int) -> (width: Int, height: Int, text: String)? {
        guard effect.rect == nil, case .blur(let radius) = effect.kind, width > 0, height > 0 else { return nil }
        let sigma = min(radius, 1024)
        let factor = (sigma / reducedBlurSigma).rounded(.down)
        guard factor >= 2 else { return nil }
        func reduced(_ side: Int) -> Int { max(2, Int((Double(side) / factor / 2).rounded()) * 2) }
        let w = reduced(width), h = reduced(height)
        guard w < width, h < height else { return nil }
        let sigmaX = sigma * Double(w) / Double(width), sigmaY = sigma * Double(h) / Double(height)
        return (w, h, "scale=w=\(w):h=\(h):flags=area,gblur=sigma=\(number(sigmaX)):sigmaV=\(number(sigmaY))")
    }

    private static let identity = (0..<256).map { UInt8($0) }

    /// Whether `adjustment` is `eq`'s work alone (per-sample maps of luma and of chroma).
    private static func onlyEq(_ adjustment: ColorAdjustment) -> Bool {
        adjustment.hue == 0 && adjustment.exposure == 0 && adjustment.temperature == nil && adjustment.tint == 0
            && adjustment.preset == nil
    }

    /// The table of the LUT in `file` (as written), nil when it cannot be read as one (lut3d then reports why).
    private func lookup(_ file: String) -> ColorLookup? {
        let path = resolvePath(file)
        if let known = lookups[path] { return known }
        var made: ColorLookup?
        if let data = FileManager.default.contents(atPath: path), let table = CubeFile.table(in: data) {
            made = try? ColorLookup(table)
        }
        lookups[path] = made
        return made
    }

    /// `eq`'s maps for `adjustment`, read from libavfilter's `eq` itself: a picture holding every 8-bit value in
    /// its luma and its chroma, filtered.
    private func eqMaps(_ adjustment: ColorAdjustment) throws(MediaError) -> (luma: [UInt8], chroma: [UInt8]) {
        let text = Self.filterText(.color(adjustment), resolvePath: resolvePath)
        if let known = eqMapCache[text] { return known }
        let picture = try VideoFrame(width: 512, height: 2, format: .yuv420p)
        for row in 0..<2 {
            for x in 0..<512 { picture.plane(0)[row * picture.stride(0) + x] = UInt8(x & 255) }
        }
        for x in 0..<256 {
            picture.plane(1)[x] = UInt8(x)
            picture.plane(2)[x] = UInt8(x)
        }
        let filtered = try PictureFilter(description: text).apply(picture)
        let maps = ((0..<256).map { filtered.plane(0)[$0] }, (0..<256).map { filtered.plane(1)[$0] })
        if (0..<256).contains(where: { filtered.plane(2)[$0] != maps.1[$0] }) {
            throw MediaError(.internal, "eq treats Cb and Cr differently")
        }
        if eqMapCache.count > 64 { eqMapCache = [:] }
        eqMapCache[text] = maps
        return maps
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
            // An SVG matte is drawn at the size it covers (the visible rectangle, else the whole picture).
            var covered = PixelSize(width: picture.width, height: picture.height)
            if let rect = effect.rect, rect.width.isFinite, rect.height.isFinite {
                let side = Double(SVGImage.largestSide)
                covered = PixelSize(width: Int(max(1, min(side, rect.width.rounded()))),
                                    height: Int(max(1, min(side, rect.height.rounded()))))
            }
            let image = try ImageLayer.decode(path: resolvePath(file), stream: 0, opener: opener, size: covered)
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
        let flags = "flags=" + ColorLookup.scaleFlags
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
