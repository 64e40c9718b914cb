import CLibass
import Foundation
import ReelMedia
import ReelModel
import ReelTime

/// Burned-in captions: libass draws the cues shown at a frame's time, and each of its alpha bitmaps becomes a layer of
/// the compositor's request, above the titles (docs/captions.md, "Burning in").
///
/// One libass track per caption file. Which cues show is decided here, exactly, in rational movie time
/// (start ≤ t < end); the track then holds just those cues, re-filled only when the set changes, with times in
/// milliseconds rounded outwards (start down, end up) so that libass, which works in whole milliseconds, shows
/// them all at `floor(t)` ms and its animations (`\fad`, `\k`, `\t`, `\move`) run in movie time.
///
/// ASS and SSA scripts keep their own header (styles, play resolution, embedded fonts); SubRip and WebVTT cues get a
/// header written from the caption style (`CaptionScript`). Not thread-safe: owned by one `MovieLayers`.
final class CaptionRenderer {
    private struct Track {
        let pointer: UnsafeMutablePointer<ASS_Track>
        let cues: [CaptionCue]
        /// Cue indices in the track now.
        var loaded: [Int] = []
        /// VSFilter's colour handling: the script's colours are Y′CbCr through BT.601 (its default) rather than RGB.
        let bt601Colours: Bool
        /// Override tags put before the text of each `Default` event (the caption style's shadow blur), "" for none.
        let prefix: String
        /// The layers of the last frame drawn, bottom first; nil before the first and after the cues change.
        var layers: [LayerSource]?
    }

    private let library: OpaquePointer
    private let renderer: OpaquePointer
    private var tracks: [Track] = []
    private let canvas: PixelSize

    /// libass set up for `captions` (the burned ones) on a canvas of `canvas` pixels for a composition of
    /// `renderSize`; `fontFile` maps a style's font file as written to its absolute path.
    init(captions: [CompiledCaptions], canvas: PixelSize, renderSize: PixelSize,
         fontFile: (String) -> String) throws(RenderError) {
        guard let library = ass_library_init() else { throw RenderError(.internal, "libass could not start") }
        // libass reports font choices and script problems on stderr by default; reel's diagnostics say what matters.
        ass_set_message_cb(library, { _, _, _, _ in }, nil)
        guard let renderer = ass_renderer_init(library) else {
            ass_library_done(library)
            throw RenderError(.internal, "libass could not start its renderer")
        }
        self.library = library
        self.renderer = renderer
        self.canvas = canvas
        ass_set_extract_fonts(library, 1)
        ass_set_frame_size(renderer, Int32(canvas.width), Int32(canvas.height))
        ass_set_storage_size(renderer, Int32(canvas.width), Int32(canvas.height))
        ass_set_fonts(renderer, nil, TextStyle.defaultFont, Int32(ASS_FONTPROVIDER_AUTODETECT.rawValue), nil, 1)
        for entry in captions where entry.captions.mode.burns && !entry.cues.isEmpty {
            var header: String
            if let assHeader = entry.assHeader {
                header = assHeader
            } else {
                var family: String?
                if let font = entry.captions.style.font, entry.captions.style.fontIsFile {
                    family = addFontFile(fontFile(font))
                }
                header = CaptionScript.header(for: entry.captions.style, renderSize: renderSize, family: family)
            }
            guard let track = ass_new_track(library) else { throw RenderError(.internal, "libass could not make a track") }
            var bytes = Array(header.utf8CString)
            bytes.withUnsafeMutableBufferPointer { buffer in
                ass_process_codec_private(track, buffer.baseAddress, Int32(buffer.count - 1))
            }
            ass_set_check_readorder(track, 0)
            let matrix = track.pointee.YCbCrMatrix
            let bt601 = entry.assHeader != nil
                && (matrix == YCBCR_DEFAULT || matrix == YCBCR_BT601_TV || matrix == YCBCR_BT601_PC)
            tracks.append(Track(pointer: track, cues: entry.cues, bt601Colours: bt601,
                                prefix: entry.assHeader == nil ? CaptionScript.prefix(for: entry.captions.style) : ""))
        }
    }

    deinit {
        for track in tracks { ass_free_track(track.pointer) }
        ass_renderer_done(renderer)
        ass_library_done(library)
    }

    /// Whether no caption is burned in at all.
    var isEmpty: Bool { tracks.isEmpty }

    /// Whether a cue shows at movie time `time`.
    func showsCue(at time: Time) -> Bool {
        tracks.contains { track in track.cues.contains { $0.start <= time && time < $0.end } }
    }

    /// The layers of the cues shown at `time`, top first, file after file (the last file's on top); their track
    /// numbers count down from `firstTrack`. The bitmaps libass makes are the same as the previous call's when it
    /// says nothing changed, and so are the layers.
    func layers(at time: Time, firstTrack: Int) throws(RenderError) -> [LayerSource] {
        let now = (try? time.count(atRate: 1000, rounding: .down)) ?? 0
        var drawn: [LayerSource] = []
        for index in tracks.indices {
            let active = tracks[index].cues.indices.filter { tracks[index].cues[$0].start <= time && time < tracks[index].cues[$0].end }
            guard !active.isEmpty else { continue }
            if active != tracks[index].loaded { load(active, into: index) }
            var changed: Int32 = 0
            var image = ass_render_frame(renderer, tracks[index].pointer, now, &changed)
            if changed == 0, let previous = tracks[index].layers {
                drawn += previous
                continue
            }
            var made: [LayerSource] = []
            while let current = image {
                let picture: CaptionBitmap?
                do {
                    picture = try CaptionBitmap(current.pointee, canvas: canvas, bt601Colours: tracks[index].bt601Colours)
                } catch {
                    throw RenderError(media: error)
                }
                if let picture { made.append(picture.layer) }
                image = current.pointee.next
            }
            tracks[index].layers = made
            drawn += made
        }
        // libass lists each file's bitmaps bottom first; the request wants the top first.
        return drawn.reversed().enumerated().map { number, layer in
            var numbered = LayerSource(track: firstTrack - number, picture: layer.picture, opacity: layer.opacity,
                                       transform: layer.transform)
            numbered.chromaAlpha = layer.chromaAlpha
            return numbered
        }
    }

    /// Replaces the events of track `index` by its cues `active`.
    private func load(_ active: [Int], into index: Int) {
        let track = tracks[index]
        ass_flush_events(track.pointer)
        for cueIndex in active {
            let cue = track.cues[cueIndex]
            let start = (try? cue.start.count(atRate: 1000, rounding: .down)) ?? 0
            let end = (try? cue.end.count(atRate: 1000, rounding: .up)) ?? start + 1
            // The Matroska event layout libass takes one event at a time: ReadOrder, Layer, Style, Name, MarginL,
            // MarginR, MarginV, Effect, Text (the times are the call's arguments).
            let fields = ["\(cueIndex)", "\(cue.layer)", cue.style ?? "Default", cue.name.replacingOccurrences(of: ",", with: " "),
                          "\(cue.marginLeft)", "\(cue.marginRight)", "\(cue.marginVertical)",
                          cue.effect.replacingOccurrences(of: ",", with: " "),
                          (cue.style ?? "Default") == "Default" ? track.prefix + cue.text : cue.text]
            var bytes = Array(fields.joined(separator: ",").utf8CString)
            bytes.withUnsafeMutableBufferPointer { buffer in
                ass_process_chunk(track.pointer, buffer.baseAddress, Int32(buffer.count - 1), start, max(1, end - start))
            }
        }
        tracks[index].loaded = active
        tracks[index].layers = nil
    }

    /// Hands a font file to libass under the family name fontconfig reads from it; nil when it cannot be read.
    private func addFontFile(_ path: String) -> String? {
        guard let family = TextRasterizer.registerFontFile(path), let data = FileManager.default.contents(atPath: path) else {
            return nil
        }
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: CChar.self)
            ass_add_font(library, family, bytes.baseAddress, Int32(bytes.count))
        }
        return family
    }
}

/// The ASS script header reel writes for SubRip and WebVTT captions: one `Default` style from the caption style,
/// play resolution = the render size, so that style values are pixels at the render size.
enum CaptionScript {
    /// Override tags for each event of a caption style: ASS styles have no blur, so a shadow's `blur` is libass's
    /// `\blur` (a gaussian of about that many pixels), which softens the outline and the shadow together.
    static func prefix(for style: CaptionStyle) -> String {
        guard let blur = style.shadow?.blur, blur > 0 else { return "" }
        return "{\\blur\(number(blur))}"
    }

    /// The width Pango gives `text` in `font` at ASS font size `size` (an em is the size over the font's line height,
    /// 1.164 for DejaVu Sans, taken for every font), for breaking a transcript's lines.
    static let measure: TranscriptPager.Measure = { text, font, size in
        let style = TextStyle(text: text, font: font, size: size / 1.164)
        return (try? TextRasterizer.measure(style).logical.width) ?? TranscriptPager.estimate(text, font, size)
    }

    static func header(for style: CaptionStyle, renderSize: PixelSize, family: String?) -> String {
        let width = renderSize.width, height = renderSize.height
        let size = style.resolvedSize(renderSize: renderSize)
        let white = RGBAColor(red: 255, green: 255, blue: 255)
        let black = RGBAColor(red: 0, green: 0, blue: 0)
        let outline = style.outline ?? TextStyle.Outline(color: black, width: max(1, (size * 0.06).rounded()))
        let shadow = style.shadow
        let column: Int
        switch style.align ?? .center {
        case .left: column = 1
        case .center: column = 2
        case .right: column = 3
        }
        let row: Int
        switch style.placement ?? .bottom {
        case .bottom: row = 0
        case .middle: row = 3
        case .top: row = 6
        }
        let margin = Int(style.resolvedMargin(renderSize: renderSize).rounded())
        let side = Int((Double(width) * (1 - (style.maxWidth ?? 0.9)) / 2).rounded())
        let borderStyle: Int, borderWidth: Double, borderColour: RGBAColor
        if let background = style.background {
            // BorderStyle 3: an opaque box, OutlineColour, grown by the outline width on every side.
            borderStyle = 3
            borderWidth = max(background.padding, 0.01)
            borderColour = background.color
        } else {
            borderStyle = 1
            borderWidth = outline.width
            borderColour = outline.color
        }
        let fontName = family ?? style.font.flatMap { style.fontIsFile ? nil : $0 } ?? TextStyle.defaultFont
        let shadowDepth = shadow.map { max(abs($0.offset.x), abs($0.offset.y)) } ?? 0
        let fields: [String] = [
            "Default", fontName.replacingOccurrences(of: ",", with: " "), number(size), colour(style.color ?? white),
            colour(white), colour(borderColour), colour(shadow?.color ?? black), "0", "0", "0", "0", "100", "100", "0", "0",
            "\(borderStyle)", number(borderWidth), number(shadowDepth), "\(row + column)", "\(side)", "\(side)", "\(margin)", "1",
        ]
        // The transcript highlight's box: the same font, size and placement, transparent glyphs, an opaque box
        // (BorderStyle 3) whose colour and padding each event sets (`\3c`, `\3a`, `\bord`).
        var box = fields
        box[0] = CaptionStyle.boxStyleName
        box[3] = "&HFF000000"
        box[4] = "&HFF000000"
        box[5] = "&HFF000000"
        box[6] = "&HFF000000"
        box[15] = "3"
        box[17] = "0"
        return """
            [Script Info]
            ScriptType: v4.00+
            PlayResX: \(width)
            PlayResY: \(height)
            WrapStyle: 0
            ScaledBorderAndShadow: yes
            YCbCr Matrix: None

            [V4+ Styles]
            Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding
            Style: \(fields.joined(separator: ","))
            Style: \(box.joined(separator: ","))

            [Events]
            \(ASSScriptFormat.events)

            """
    }

    /// `&HAABBGGRR` with ASS's alpha (0 opaque, 255 transparent).
    private static func colour(_ color: RGBAColor) -> String {
        let digits = Array("0123456789ABCDEF")
        return "&H" + [255 - color.alpha, color.blue, color.green, color.red].map { String([digits[Int($0 >> 4)], digits[Int($0 & 15)]]) }.joined()
    }

    private static func number(_ value: Double) -> String { ProjectWriter.numberText(value) }
}

/// One libass bitmap as a layer of the compositor: a yuva420p picture of its one colour, the bitmap as its alpha (zero
/// where the bitmap does not reach), the colour's alpha as the layer's opacity, placed by whole even pixels, so that
/// it blends through the compositor's kernel (`PlaneOps.blendMasked`) luma per pixel and each chroma sample by the mean
/// coverage of its 2×2 luma pixels. The picture is the part of the bitmap on the canvas, widened to even pixel lines.
/// Colours are converted to BT.709 limited range, or taken through BT.601 when `bt601Colours` (VSFilter's handling
/// of scripts without a `YCbCr Matrix` header).
struct CaptionBitmap {
    /// The layer; its track is set by `CaptionRenderer`.
    let layer: LayerSource

    /// The layer for `image` (an alpha mask and one colour, RGBA with alpha 0 = opaque) on a canvas of `canvas`
    /// pixels, or nil when it shows nothing there.
    init?(_ image: ASS_Image, canvas: PixelSize, bt601Colours: Bool) throws(MediaError) {
        let width = Int(image.w), height = Int(image.h)
        guard width > 0, height > 0, let bitmap = image.bitmap else { return nil }
        let colour = image.color
        let rgba = RGBAColor(red: UInt8(colour >> 24), green: UInt8((colour >> 16) & 255), blue: UInt8((colour >> 8) & 255))
        // The colour's opacity as the compositor's 8-bit layer weight (0…256), which the opacity gives back exactly.
        let weight = Int((Double(255 - Int(colour & 255)) / 255 * 256).rounded())
        guard weight > 0 else { return nil }
        let yuv = bt601Colours ? YUVColor(bt601: rgba) : YUVColor(rgba)
        let left = max(0, Int(image.dst_x)), top = max(0, Int(image.dst_y))
        let right = min(canvas.width, Int(image.dst_x) + width), bottom = min(canvas.height, Int(image.dst_y) + height)
        guard left < right, top < bottom else { return nil }
        // The even-aligned block the bitmap's canvas part covers (the canvas's sides are even).
        let blockLeft = left & ~1, blockTop = top & ~1
        let blockWidth = ((right + 1) & ~1) - blockLeft, blockHeight = ((bottom + 1) & ~1) - blockTop
        let picture = try VideoFrame(width: blockWidth, height: blockHeight, format: .yuva420p)
        for (plane, value) in [(0, yuv.y), (1, yuv.u), (2, yuv.v), (3, UInt8(0))] {
            let rows = plane == 1 || plane == 2 ? blockHeight / 2 : blockHeight
            let base = picture.plane(plane), stride = picture.stride(plane)
            for row in 0..<rows { (base + row * stride).update(repeating: value, count: stride) }
        }
        let stride = Int(image.stride)
        let coverage = UnsafePointer(bitmap) + (top - Int(image.dst_y)) * stride + (left - Int(image.dst_x))
        PlaneOps.copy(from: coverage, sourceStride: stride,
                      to: picture.plane(3) + (top - blockTop) * picture.stride(3) + (left - blockLeft),
                      targetStride: picture.stride(3), width: right - left, height: bottom - top)
        var layer = LayerSource(track: 0, frame: picture, opacity: Double(weight) / 256,
                                transform: ReelModel.AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: Double(blockLeft),
                                                                     ty: Double(blockTop)))
        layer.chromaAlpha = ChromaAlpha(of: picture)
        self.layer = layer
    }
}
