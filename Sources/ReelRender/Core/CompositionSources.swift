import ReelMedia
import ReelModel
import ReelTime

/// The pictures of a composition asset (issue 38): the child rendered by its own `RenderCore` (the same stages and
/// compositor as any render, reading its media through the same opener), one child frame at a time, held until
/// the next is asked for. Source time s shows the child's frame n = ⌊s / frameDuration⌋ (for a reversed
/// segment the last frame before s), clamped to the child's frames, as a decoder shows a file's.
///
/// The child is drawn at the size its placement needs (docs/format.md "Compositions", docs/decisions.md): at a
/// whole drawing scale k (`drawingScale`) its canvas is k × its nominal size and all its geometry, titles, shapes,
/// SVG images and captions are drawn k times larger (a render scale of k, as `renderScale` draws smaller), while
/// its media are scaled from their decoded size as always. The picture then stands for the nominal size
/// (`TrackFrame.fullSize`), so the parent places it exactly where the nominal picture goes. Scale 1 is the child
/// rendered as it is. The latest two scales keep their cores (a `fit: blur` fill at 1 beside its clip drawn larger,
/// or a zoom crossing a step, do not rebuild one every frame).
///
/// Uses of one child share its work through the render's `NestedSharing`: a use takes the cores another use of
/// the same child let go (with their decoders open), a frame another use has just drawn, and titles, shapes and
/// images rasterised by any core of the render. A see-through child's two cores decode its media once
/// (`DecodedPair`).
final class CompositionVideoReader: VideoSourceReader {
    /// The largest drawing scale: 4 × the nominal size (16 × its pixels).
    static let maximumScale = 4
    /// No drawing larger than this on a side, whatever the scale asked.
    static let largestSide = 8192
    /// How far past a whole scale a placement may go and still be drawn at it (a picture enlarged by at most 5 %).
    static let tolerance = 0.05
    /// How many drawing scales keep their core.
    private static let keptScales = 2

    struct Drawing {
        let scale: Int
        /// The child as it is; for a see-through background, drawn over opaque black.
        let core: RenderCore
        /// For a see-through background only: the child drawn over opaque white (`transparent`).
        let overWhite: RenderCore?
        var shown: (index: Int64, picture: VideoFrame)? = nil
    }

    private let child: NestedComposition
    private let opener: any SourceOpener
    private let sharing: NestedSharing
    private let frameDuration: Time
    /// The child's frames: ⌈duration / frameDuration⌉.
    private let frameCount: Int64
    private let backwards: Bool
    /// Cores by drawing scale, the latest used last.
    private var drawings: [Drawing] = []

    /// A reader of `child`'s pictures, opening its media through `opener`; `backwards` for a reversed segment;
    /// its first core drawn at `scale`; cores, pictures and rasters shared through `sharing`.
    init(_ child: NestedComposition, opener: any SourceOpener, backwards: Bool, scale: Int = 1,
         sharing: NestedSharing) throws(RenderError) {
        let compiled = child.compiled
        self.child = child
        self.opener = opener
        self.sharing = sharing
        frameDuration = compiled.frameDuration
        do {
            frameCount = try compiled.duration.quotient(dividingBy: compiled.frameDuration, rounding: .up)
        } catch {
            throw RenderError(.internal, "the composition's length \(compiled.duration) s has no frame count")
        }
        self.backwards = backwards
        drawings = [try drawing(scale: scale)]
    }

    deinit {
        sharing.release(drawings, of: child)
    }

    /// The whole scale a child of `nominal` size is drawn at when shown `shown` canvas pixels per nominal pixel
    /// (per axis; nil: not known, or effects in nominal pixels run on it): the larger axis rounded up, less
    /// `tolerance`; at least 1, at most `maximumScale` and `largestSide`.
    static func drawingScale(shown: LayerPoint?, nominal: PixelSize) -> Int {
        guard let shown else { return 1 }
        let largest = max(abs(shown.x), abs(shown.y))
        guard largest.isFinite, largest > 1 + tolerance else { return 1 }
        let limit = max(1, min(maximumScale, largestSide / max(1, nominal.width, nominal.height)))
        return min(limit, Int((largest - tolerance).rounded(.up)))
    }

    /// The child drawn `scale` times larger: its canvas and render scale multiplied, nothing else changed.
    static func scaled(_ compiled: CompiledProject, by scale: Int) -> CompiledProject {
        guard scale != 1 else { return compiled }
        var scaled = compiled
        let k = Int64(scale)
        scaled.encodedSize = PixelSize(width: compiled.encodedSize.width * scale, height: compiled.encodedSize.height * scale)
        let renderScale = compiled.videoComposition.renderScale
        scaled.videoComposition.renderScale = Rational(renderScale.numerator * k, renderScale.denominator)
        scaled.output.renderScale = scaled.videoComposition.renderScale
        return scaled
    }

    /// The cores drawing the child at `scale`: one another use let go, or made: one, or for a background that is
    /// not opaque, two drawing it over opaque black and over opaque white, reading the same decoded pictures.
    private func drawing(scale: Int) throws(RenderError) -> Drawing {
        try sharing.drawing(of: child, scale: scale) { () throws(RenderError) in try makeDrawing(scale: scale) }
    }

    private func makeDrawing(scale: Int) throws(RenderError) -> (Drawing, cores: Int) {
        let compiled = Self.scaled(child.compiled, by: scale)
        func core(_ project: CompiledProject, _ opener: any SourceOpener) throws(RenderError) -> RenderCore {
            try RenderCore(project: project, catalog: SourceCatalog(project: project, facts: child.facts),
                           opener: opener, compositor: makeCompositor(for: project), depth: 1, sharing: sharing)
        }
        guard compiled.videoComposition.background.alpha < 255 else {
            return (Drawing(scale: scale, core: try core(compiled, opener), overWhite: nil), 1)
        }
        func over(_ color: RGBAColor) -> CompiledProject {
            var opaque = compiled
            opaque.videoComposition.background = color
            for i in opaque.videoComposition.instructions.indices { opaque.videoComposition.instructions[i].background = nil }
            return opaque
        }
        let pair = DecodedPair()
        return (Drawing(scale: scale, core: try core(over(RGBAColor(red: 0, green: 0, blue: 0)), pair.leader(opener)),
                        overWhite: try core(over(RGBAColor(red: 255, green: 255, blue: 255)), pair.follower(opener))), 2)
    }

    /// The picture of a child whose background is not opaque: where its layers cover the canvas, and how much,
    /// from the same frame drawn over black and over white (everything else alike) — coverage c = 1 − (white −
    /// black) / 219 of the video-range luma — their colour (the over-black picture less its black, over c), and
    /// the child's `background` under them at its own alpha: a yuva420p picture the parent blends as any picture
    /// with alpha. Chroma uses the mean coverage of its four luma samples.
    static func transparent(overBlack black: VideoFrame, overWhite white: VideoFrame,
                            background: RGBAColor) throws(MediaError) -> VideoFrame {
        let width = black.width, height = black.height
        let result = try VideoFrame(width: width, height: height, format: .yuva420p)
        let under = YUVColor(background)
        let a = Double(background.alpha) / 255
        // The layers' coverage at each luma sample, once: the luma pass and the chroma pass (the mean of four) read it.
        var coverage = [Double](repeating: 0, count: width * height)
        for y in 0..<height {
            let over0 = black.plane(0) + y * black.stride(0), over255 = white.plane(0) + y * white.stride(0)
            for x in 0..<width { coverage[y * width + x] = min(1, max(0, 1 - Double(Int(over255[x]) - Int(over0[x])) / 219)) }
        }
        /// The layers' value over black (`drawn`, blended over `floor`) at coverage c, over the background's value
        /// `back` at its alpha; and that total's alpha.
        func mixed(_ drawn: UInt8, floor: Double, c: Double, back: UInt8) -> (value: UInt8, alpha: Double) {
            let total = c + (1 - c) * a
            guard total > 0 else { return (back, 0) }
            let layers = Double(drawn) - (1 - c) * floor
            let value = (layers + (1 - c) * a * Double(back)) / total
            return (UInt8(max(0, min(255, value.rounded()))), total)
        }
        for y in 0..<height {
            let drawn = black.plane(0) + y * black.stride(0)
            let luma = result.plane(0) + y * result.stride(0), alpha = result.plane(3) + y * result.stride(3)
            for x in 0..<width {
                let (value, total) = mixed(drawn[x], floor: 16, c: coverage[y * width + x], back: under.y)
                luma[x] = value
                alpha[x] = UInt8((total * 255).rounded())
            }
        }
        let blackU = black.plane(1), blackV = black.plane(2), outU = result.plane(1), outV = result.plane(2)
        for y in 0..<height / 2 {
            let top = 2 * y * width, bottom = top + width
            for x in 0..<width / 2 {
                let c = (coverage[top + 2 * x] + coverage[top + 2 * x + 1] + coverage[bottom + 2 * x]
                         + coverage[bottom + 2 * x + 1]) / 4
                outU[y * result.stride(1) + x] = mixed(blackU[y * black.stride(1) + x], floor: 128, c: c, back: under.u).value
                outV[y * result.stride(2) + x] = mixed(blackV[y * black.stride(2) + x], floor: 128, c: c, back: under.v).value
            }
        }
        return result
    }

    func frame(at sourceTime: Time) throws(MediaError) -> VideoFrame {
        try frame(at: sourceTime, scale: 1)
    }

    /// The child's picture for `sourceTime` drawn at whole scale `scale` (`drawingScale`): `scale` × its nominal size.
    func frame(at sourceTime: Time, scale: Int) throws(MediaError) -> VideoFrame {
        var index: Int64
        do {
            index = backwards ? try sourceTime.quotient(dividingBy: frameDuration, rounding: .up) - 1
                : try sourceTime.quotient(dividingBy: frameDuration, rounding: .down)
        } catch {
            throw MediaError(.internal, "source time \(sourceTime) s has no frame of the composition")
        }
        index = min(max(index, 0), max(frameCount - 1, 0))
        var drawing: Drawing
        if let kept = drawings.firstIndex(where: { $0.scale == scale }) {
            drawing = drawings.remove(at: kept)
        } else {
            do {
                drawing = try self.drawing(scale: scale)
            } catch {
                throw MediaError(error.kind.mediaKind, error.message)
            }
        }
        defer {
            drawings.append(drawing)
            if drawings.count > Self.keptScales { drawings.removeFirst() }
        }
        if let shown = drawing.shown, shown.index == index { return shown.picture }
        if let drawn = sharing.picture(of: child, scale: scale, index: index) {
            drawing.shown = (index, drawn)
            return drawn
        }
        func render(_ core: RenderCore) throws(MediaError) -> VideoFrame {
            let sink = PictureSink()
            do {
                try core.render(at: try Time.frames(index, frameDuration: frameDuration), into: sink)
            } catch let error as RenderError {
                throw MediaError(error.kind.mediaKind, error.message)
            } catch {
                throw MediaError(.internal, "frame \(index) of the composition has no time")
            }
            guard let picture = sink.picture else { throw MediaError(.internal, "the composition's compositor returned no picture") }
            return picture
        }
        var picture = try render(drawing.core)
        if let overWhite = drawing.overWhite {
            picture = try Self.transparent(overBlack: picture, overWhite: try render(overWhite),
                                           background: child.compiled.videoComposition.background)
        }
        drawing.shown = (index, picture)
        sharing.keep(picture, of: child, scale: scale, index: index)
        return picture
    }
}

/// The sound of a composition asset: the child's mix (its own `AudioMixer`, effects and gains included) at the
/// parent's sample rate and channels, so sample k of the asset is sample k of the child's mix; silence after its
/// end.
final class CompositionAudioReader: AudioSourceReader {
    let child: NestedComposition
    let sampleRate: Int
    let channels: Int
    private let mixer: AudioMixer
    private let buffers: SampleBuffers
    /// Samples in the child: ⌈duration × sampleRate⌉.
    private let sampleCount: Int64

    /// A reader of `child`'s mix at `sampleRate` Hz in `channels`, opening its media through `opener`; the
    /// compositions inside it share their sound through `sounds`.
    init(_ child: NestedComposition, opener: any SourceOpener, sampleRate: Int, channels: Int,
         sounds: NestedSounds) throws(RenderError) {
        let compiled = child.compiled
        self.child = child
        self.sampleRate = sampleRate
        self.channels = channels
        mixer = try AudioMixer(project: compiled, catalog: SourceCatalog(project: compiled, facts: child.facts),
                               opener: opener, sampleRate: sampleRate, channels: channels, sounds: sounds)
        buffers = SampleBuffers(channels: channels, capacity: AudioMixer.maximumChunk)
        do {
            sampleCount = try compiled.duration.count(atRate: Int64(sampleRate), rounding: .up)
        } catch {
            throw RenderError(.internal, "the composition's length \(compiled.duration) s has no sample count")
        }
    }

    var endSample: Int64? { sampleCount }

    func read(from firstSample: Int64, count: Int, into channels: [UnsafeMutablePointer<Float>]) throws(MediaError) {
        for plane in channels { plane.update(repeating: 0, count: count) }
        var done = 0
        while done < count {
            let start = firstSample + Int64(done)
            let chunk = min(count - done, AudioMixer.maximumChunk)
            defer { done += chunk }
            // Before the start and after the end: silence.
            let from = max(start, 0), to = min(start + Int64(chunk), sampleCount)
            guard to > from else { continue }
            do {
                try mixer.mix(fromSample: from, sampleCount: Int(to - from), into: buffers)
            } catch {
                throw MediaError(error.kind.mediaKind, error.message)
            }
            let offset = done + Int(from - start)
            for (c, plane) in channels.enumerated() where c < buffers.channels {
                (plane + offset).update(from: buffers.planes[c], count: Int(to - from))
            }
        }
    }
}

extension SourceOpener {
    /// A reader of composition asset pictures or of a file's video stream, as `entry` says.
    /// A composition's first pictures are drawn at `scale` (`CompositionVideoReader.drawingScale`).
    /// Uses of one composition share work through `sharing` (`NestedSharing`).
    func openVideo(_ entry: SourceCatalog.Entry?, path: String?, stream: Int, reversed: Bool, scale: Int = 1,
                   sharing: NestedSharing) throws(RenderError) -> any VideoSourceReader
    {
        if case .composition(let child)? = entry?.kind {
            return try CompositionVideoReader(child, opener: self, backwards: reversed, scale: scale, sharing: sharing)
        }
        guard let path else { throw RenderError(.internal, "a video source has no file") }
        do {
            return reversed ? try openReversedVideo(path: path, stream: stream) : try openVideo(path: path, stream: stream)
        } catch {
            throw RenderError(media: error)
        }
    }
}

extension SourceOpener {
    /// A reader of a composition asset's mix or of a file's audio stream, as `entry` (asset `asset`'s) says.
    /// A composition's reader is an idle one of `sounds` where it holds one (`NestedSounds`).
    func openAudio(_ entry: SourceCatalog.Entry?, stream: Int, sampleRate: Int, channels: Int,
                   asset: String, sounds: NestedSounds) throws(RenderError) -> any AudioSourceReader {
        if case .composition(let child)? = entry?.kind {
            do {
                return try sounds.reader(of: child, sampleRate: sampleRate, channels: channels) { () throws(RenderError) in
                    try CompositionAudioReader(child, opener: self, sampleRate: sampleRate, channels: channels,
                                               sounds: sounds)
                }
            } catch {
                throw RenderError(error.kind, "asset \"\(asset)\": " + error.message)
            }
        }
        guard let entry, entry.kind == .media, let path = entry.path else {
            throw RenderError(.internal, "asset \"\(asset)\" has no file")
        }
        do {
            return try openAudio(path: path, stream: stream, sampleRate: sampleRate, channels: channels)
        } catch {
            throw RenderError(media: error, asset: asset)
        }
    }
}

extension RenderError.Kind {
    /// The media error kind that carries this kind through a reader's seam (a child composition's failure).
    var mediaKind: MediaError.Kind {
        switch self {
        case .missingInput: .missing
        case .unsupported: .unsupported
        case .io: .io
        case .invalid, .usage: .corrupt
        case .internal, .cannotCreateOutput, .cancelled: .internal
        }
    }
}
