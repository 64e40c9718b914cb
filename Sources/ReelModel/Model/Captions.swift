import ReelTime

/// Where caption cues go: drawn into the picture, written as a subtitle stream, or both.
public enum CaptionMode: String, Sendable, Hashable, CaseIterable {
    /// Drawn into the picture by libass (the default).
    case burn
    /// Written as a subtitle stream of the output only.
    case stream
    /// Both.
    case both

    /// Whether the cues are drawn into the picture.
    public var burns: Bool { self != .stream }
    /// Whether the cues become a subtitle stream.
    public var streams: Bool { self != .burn }
}

/// Where SubRip and WebVTT cues sit on the canvas vertically.
public enum CaptionPlacement: String, Sendable, Hashable, CaseIterable {
    case bottom, middle, top
}

/// The look of SubRip and WebVTT cues (`captions[i].style`); ASS scripts keep their own styles and ignore it.
///
/// Every value is optional: an absent one takes the default for the canvas (docs/captions.md, "Style"):
/// DejaVu Sans at 5.5 % of the render height, white, a black outline of 6 % of the size, no shadow, no box,
/// centred at the bottom with a margin of 5 % of the height, lines at most 90 % of the width.
public struct CaptionStyle: Sendable, Hashable {
    /// A family name (fontconfig) or a font file; nil: DejaVu Sans.
    public var font: String?
    /// Em size in pixels at the render size.
    public var size: Double?
    /// Fill colour.
    public var color: RGBAColor?
    /// Outline around the glyphs (width 0 for none).
    public var outline: TextStyle.Outline?
    /// A shadow at an offset; its blur is libass's `\blur`, which softens the outline and the shadow together.
    public var shadow: TextStyle.Shadow?
    /// An opaque box behind each line instead of the outline (ASS BorderStyle 3).
    public var background: TextStyle.Background?
    /// Line alignment.
    public var align: TextStyle.Alignment?
    /// Vertical placement.
    public var placement: CaptionPlacement?
    /// Distance from the canvas edge (bottom or top) in pixels at the render size.
    public var margin: Double?
    /// Widest a line may be, as a fraction of the render width (0 < w ≤ 1); longer cues wrap.
    public var maxWidth: Double?
    /// Most lines a transcript's page has (default 2); files' cues show as written.
    public var maxLines: Int?

    /// The ASS style of the box events a transcript's `highlight.box` adds: the caption style's font, size, alignment
    /// and margins, transparent glyphs, and an opaque box (BorderStyle 3) coloured and sized by each event.
    public static let boxStyleName = "ReelBox"

    /// The type's height when `size` is not given: 5.5 % of the render height, rounded to a pixel.
    public func resolvedSize(renderSize: PixelSize) -> Double {
        size ?? (Double(renderSize.height) * 0.055).rounded()
    }

    /// The distance from the bottom or top edge when `margin` is not given: 5 % of the render height.
    public func resolvedMargin(renderSize: PixelSize) -> Double {
        margin ?? Double(renderSize.height) * 0.05
    }

    /// A style with every value at its default.
    public init(font: String? = nil, size: Double? = nil, color: RGBAColor? = nil, outline: TextStyle.Outline? = nil,
                shadow: TextStyle.Shadow? = nil, background: TextStyle.Background? = nil,
                align: TextStyle.Alignment? = nil, placement: CaptionPlacement? = nil, margin: Double? = nil,
                maxWidth: Double? = nil) {
        self.font = font
        self.size = size
        self.color = color
        self.outline = outline
        self.shadow = shadow
        self.background = background
        self.align = align
        self.placement = placement
        self.margin = margin
        self.maxWidth = maxWidth
    }

    /// Whether `font` names a file rather than a family (as for titles).
    public var fontIsFile: Bool { TextStyle(text: "", font: font, size: 1).fontIsFile }
}

/// A caption file placed on the movie (`timeline.captions[i]`), on a clip (`timeline.clips[i].captions`), or
/// compiled (`videoComposition.captions[i]`, its cues in movie time).
public struct Captions: Sendable, Hashable {
    /// The caption file as written (relative to the project's folder), or the transcript when `isTranscript`.
    public var file: String
    /// Whether `file` is a word-level transcript (`"transcript"` in JSON) rather than a subtitle file.
    public var isTranscript = false
    /// How a transcript marks the word being spoken; nil: not at all.
    public var highlight: CaptionHighlight?
    /// Its format; nil: from the extension, else from the content.
    public var format: CaptionFormat?
    /// Its text encoding; nil: UTF-8.
    public var encoding: String?
    /// Movie time (timeline captions) or source time (clip captions) the file's zero lands on; default 0.
    public var at: Time
    /// The look of SubRip and WebVTT cues.
    public var style: CaptionStyle
    /// Burned in, a stream, or both.
    public var mode: CaptionMode
    /// ISO 639-2 language of the stream (`"eng"`); nil: undetermined.
    public var language: String?
    /// Whether the stream is marked default (the first streamed captions are, unless one says otherwise).
    public var isDefault: Bool?
    /// The cues in movie time, in file order: written in the explicit form, filled in by compiling otherwise.
    public var cues: [CaptionCue]?
    /// Where it was written.
    public var path: JSONPath

    /// Captions of `file` with defaults.
    public init(file: String, format: CaptionFormat? = nil, encoding: String? = nil, at: Time = .zero,
                style: CaptionStyle = CaptionStyle(), mode: CaptionMode = .burn, language: String? = nil,
                isDefault: Bool? = nil, cues: [CaptionCue]? = nil, path: JSONPath = .root) {
        self.file = file
        self.format = format
        self.encoding = encoding
        self.at = at
        self.style = style
        self.mode = mode
        self.language = language
        self.isDefault = isDefault
        self.cues = cues
        self.path = path
    }
}

/// Compiled captions ready to draw or mux: the cues in movie time, and the ASS script header (styles, play
/// resolution, fonts) when the file is an ASS or SSA script.
public struct CompiledCaptions: Sendable, Hashable {
    /// The captions as compiled (`cues` in movie time, never nil).
    public var captions: Captions
    /// The cues in movie time, file order.
    public var cues: [CaptionCue] { captions.cues ?? [] }
    /// The ASS script without events, for ASS/SSA files; nil for SubRip and WebVTT (reel writes the header).
    public var assHeader: String?

    /// Creates compiled captions.
    public init(captions: Captions, assHeader: String?) {
        self.captions = captions
        self.assHeader = assHeader
    }

    /// Whether any of the cues shows during `range`.
    public func shows(during range: TimeRange) -> Bool {
        cues.contains { $0.start < range.end && range.start < $0.end }
    }
}
