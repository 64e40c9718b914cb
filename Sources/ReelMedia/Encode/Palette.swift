internal import CFFmpeg

/// The 256-colour palette of a GIF, made by libavfilter's `palettegen` from every picture of the output (its
/// histogram is bounded, so memory does not grow with the number of pictures): feed each picture with `add`, then
/// take the palette with `finish`. The ffmpeg CLI's first pass of its two-pass GIF recipe. Not thread-safe.
public final class PaletteGenerator {
    private let graph: PictureGraph
    private let scaler = Scaler()

    /// A generator for pictures of `width`×`height`.
    public init(width: Int, height: Int) throws(MediaError) {
        // reserve_transparent=0: the pictures are opaque, so all 256 entries hold colours.
        graph = try PictureGraph(inputs: [(width, height)], chain: [("palettegen", "max_colors=256:reserve_transparent=0:stats_mode=full")])
    }

    /// Counts the colours of `picture` (any size the generator was made for, any pixel format reel works in).
    public func add(_ picture: VideoFrame) throws(MediaError) {
        let rgb = try scaler.converted(picture, width: picture.width, height: picture.height, format: .bgra)
        try graph.feed(rgb, input: 0)
        // palettegen gives its palette only at the end; nothing is waiting before.
        _ = try graph.drain()
    }

    /// The palette: a 16×16 picture of its colours.
    public func finish() throws(MediaError) -> VideoFrame {
        try graph.end(input: 0)
        guard let palette = try graph.drain().first else {
            throw MediaError(.internal, "palettegen made no palette")
        }
        return palette
    }
}

/// Maps pictures to 8-bit colour indices into a palette with libavfilter's `paletteuse` (Sierra-2-4A error
/// diffusion, FFmpeg's default), the ffmpeg CLI's second pass. Pictures come out in order; `paletteuse` may hold
/// one back, so `map` returns what is ready and `finish` the rest. Not thread-safe.
public final class PaletteMapper {
    private let graph: PictureGraph
    private let scaler = Scaler()

    /// A mapper of `width`×`height` pictures to `palette` (from `PaletteGenerator`).
    public init(width: Int, height: Int, palette: VideoFrame) throws(MediaError) {
        graph = try PictureGraph(inputs: [(width, height), (palette.width, palette.height)],
                                 chain: [("paletteuse", "dither=sierra2_4a")])
        try graph.feed(palette, input: 1)
        try graph.end(input: 1)
    }

    /// The paletted (`pal8`) pictures ready after `picture`.
    public func map(_ picture: VideoFrame) throws(MediaError) -> [VideoFrame] {
        let rgb = try scaler.converted(picture, width: picture.width, height: picture.height, format: .bgra)
        try graph.feed(rgb, input: 0)
        return try graph.drain()
    }

    /// The pictures still held back, after the last one.
    public func finish() throws(MediaError) -> [VideoFrame] {
        try graph.end(input: 0)
        return try graph.drain()
    }
}

/// A libavfilter graph from `bgra` buffer sources (one per input) through one filter chain to a buffer sink.
private final class PictureGraph {
    private let graph: FilterGraph
    private var sources: [UnsafeMutablePointer<AVFilterContext>] = []
    private let sink: UnsafeMutablePointer<AVFilterContext>

    init(inputs: [(width: Int, height: Int)], chain: [(name: String, arguments: String)]) throws(MediaError) {
        let graph = try FilterGraph()
        let avGraph = graph.avGraph
        var count = 0
        func create(_ filterName: String, _ arguments: String?) throws(MediaError) -> UnsafeMutablePointer<AVFilterContext> {
            guard let filter = avfilter_get_by_name(filterName) else {
                throw MediaError(.unsupported, "the \(filterName) filter is not in this FFmpeg build")
            }
            var context: UnsafeMutablePointer<AVFilterContext>? = nil
            count += 1
            let failure = { (code: Int32) in
                MediaError(.unsupported, "cannot create \(filterName)=\(arguments ?? ""): \(errorText(code))")
            }
            let result = try check(avfilter_graph_create_filter(&context, filter, "p\(count)", arguments, nil, avGraph),
                                   function: "avfilter_graph_create_filter", failure)
            guard let context else { throw failure(result) }
            return context
        }
        var made: [UnsafeMutablePointer<AVFilterContext>] = []
        for input in inputs {
            made.append(try create("buffer", "video_size=\(input.width)x\(input.height):pix_fmt=\(AV_PIX_FMT_BGRA.rawValue)"
                                       + ":time_base=1/90000:pixel_aspect=1/1"))
        }
        var previous: UnsafeMutablePointer<AVFilterContext>? = nil
        for (index, filter) in chain.enumerated() {
            let context = try create(filter.name, filter.arguments)
            if index == 0 {
                for (pad, source) in made.enumerated() {
                    try check(avfilter_link(source, 0, context, UInt32(pad)), .internal, "cannot link \(filter.name)",
                              function: "avfilter_link")
                }
            } else if let previous {
                try check(avfilter_link(previous, 0, context, 0), .internal, "cannot link \(filter.name)",
                          function: "avfilter_link")
            }
            previous = context
        }
        let sink = try create("buffersink", nil)
        guard let previous else { throw MediaError(.internal, "an empty filter chain") }
        try check(avfilter_link(previous, 0, sink, 0), .internal, "cannot link the buffer sink", function: "avfilter_link")
        try check(avfilter_graph_config(avGraph, nil), .unsupported, "cannot configure \(chain.map(\.name).joined(separator: ","))",
                  function: "avfilter_graph_config")
        sources = made
        self.sink = sink
        self.graph = consume graph
    }

    private var nextPts: [Int64] = [0, 0, 0, 0]

    /// Hands `frame` (bgra) to input `input`; the frame itself is left untouched (a new reference goes in).
    func feed(_ frame: VideoFrame, input: Int) throws(MediaError) {
        guard let reference = av_frame_clone(frame.avFrame) else { throw MediaError(.internal, "cannot reference a frame") }
        var owned: UnsafeMutablePointer<AVFrame>? = reference
        defer { av_frame_free(&owned) }
        reference.pointee.pts = nextPts[input]
        nextPts[input] += 3000
        try check(av_buffersrc_add_frame_flags(sources[input], reference, 0), .internal, "cannot feed the palette filter",
                  function: "av_buffersrc_add_frame_flags")
    }

    /// Ends input `input`.
    func end(input: Int) throws(MediaError) {
        try check(av_buffersrc_add_frame_flags(sources[input], nil, 0), .internal, "cannot end the palette filter's input",
                  function: "av_buffersrc_add_frame_flags")
    }

    /// Every picture the sink has ready.
    func drain() throws(MediaError) -> [VideoFrame] {
        var pictures: [VideoFrame] = []
        while true {
            guard let frame = av_frame_alloc() else { throw MediaError(.internal, "cannot allocate a frame") }
            let result = av_buffersink_get_frame(sink, frame)
            if result == cff_averror(EAGAIN) || result == cff_averror_eof() {
                var owned: UnsafeMutablePointer<AVFrame>? = frame
                av_frame_free(&owned)
                return pictures
            }
            if result < 0 {
                var owned: UnsafeMutablePointer<AVFrame>? = frame
                av_frame_free(&owned)
                try check(result, .internal, "the palette filter failed", function: "av_buffersink_get_frame")
            }
            pictures.append(VideoFrame(owning: frame))
        }
    }
}

extension PixelFormat {
    /// 8-bit B, G, R, A, packed: what libavfilter's palette filters and libwebp take.
    public static let bgra = PixelFormat(rawValue: AV_PIX_FMT_BGRA.rawValue)
    /// 8-bit R, G, B, packed: PNG and APNG.
    public static let rgb24 = PixelFormat(rawValue: AV_PIX_FMT_RGB24.rawValue)
    /// 8-bit indices into a palette: GIF.
    public static let pal8 = PixelFormat(rawValue: AV_PIX_FMT_PAL8.rawValue)
    /// JPEG's full-range BT.601 4:2:0.
    public static let yuvj420p = PixelFormat(rawValue: AV_PIX_FMT_YUVJ420P.rawValue)
}
