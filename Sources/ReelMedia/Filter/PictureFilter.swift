internal import CFFmpeg

/// A libavfilter graph with one video input and one video output, run one picture at a time: reel's effect
/// stage (docs/effects.md) runs each layer's effect chain through one of these.
///
/// `description` is a filtergraph in the ffmpeg CLI's `-filter_complex` syntax whose unlabelled (or `[in]`)
/// input is fed the pictures and whose unlabelled (or `[out]`) output gives the results; a `format=yuv420p`
/// filter (`yuva420p` when `keepsAlpha`) is appended, so results are always in that format. The graph is built on the first picture and rebuilt when
/// the pictures' size or format changes, so filters keep their state (and their loaded files) between pictures.
/// Each picture is fed with a timestamp one tick after the previous one, so that filters with several inputs
/// (`overlay` after a `split`) pair the branches of the same picture. Not thread-safe.
public final class PictureFilter {
    private struct Shape: Equatable {
        let width: Int32, height: Int32, format: Int32
    }

    /// The filtergraph text, without the input buffer and output sink.
    public let description: String
    /// Whether results are yuva420p (alpha kept or made by the graph) rather than yuv420p.
    public let keepsAlpha: Bool
    private var graph: FilterGraph?
    private var shape: Shape?
    private var source: UnsafeMutablePointer<AVFilterContext>?
    private var sink: UnsafeMutablePointer<AVFilterContext>?
    private var nextTimestamp: Int64 = 0

    /// A filter running `description` (see the type's documentation); nothing is checked until the first picture.
    public init(description: String, keepsAlpha: Bool = false) {
        self.description = description
        self.keepsAlpha = keepsAlpha
    }

    /// Checks that `description` parses and configures for a `width`×`height` yuv420p picture (files it names are
    /// loaded): throws `.unsupported` with libavfilter's reason otherwise.
    public func validate(width: Int, height: Int) throws(MediaError) {
        try build(Shape(width: Int32(width), height: Int32(height), format: AV_PIX_FMT_YUV420P.rawValue))
    }

    /// The filtered version of `picture`, a new picture of the same size in the format described above, with
    /// `picture`'s time and colour tags; `picture` itself is only read.
    public func apply(_ picture: VideoFrame) throws(MediaError) -> VideoFrame {
        let input = picture.avFrame
        let wanted = Shape(width: input.pointee.width, height: input.pointee.height, format: input.pointee.format)
        if wanted != shape || graph == nil {
            graph = nil
            try build(wanted)
        }
        guard let source, let sink else { throw MediaError(.internal, "the effect graph is missing") }
        let written = try allocated(av_frame_clone(input), "a frame")
        var owned: UnsafeMutablePointer<AVFrame>? = written
        defer { av_frame_free(&owned) }
        written.pointee.pts = nextTimestamp
        nextTimestamp += 1
        try check(av_buffersrc_add_frame_flags(source, written, 0), .internal,
                  "cannot feed the effect filter \(description)", function: "av_buffersrc_add_frame_flags")
        let result = try allocated(av_frame_alloc(), "a frame")
        let output = VideoFrame(owning: result)
        let received = av_buffersink_get_frame(sink, result)
        if received == errorAgain {
            throw MediaError(.internal, "the effect filter \(description) kept the picture back")
        }
        try check(received, .internal, "the effect filter \(description) failed", function: "av_buffersink_get_frame")
        output.sourceTime = picture.sourceTime
        result.pointee.color_range = input.pointee.color_range
        result.pointee.colorspace = input.pointee.colorspace
        result.pointee.color_primaries = input.pointee.color_primaries
        result.pointee.color_trc = input.pointee.color_trc
        return output
    }

    private func build(_ wanted: Shape) throws(MediaError) {
        let graph = try FilterGraph()
        let avGraph = graph.avGraph
        // Slice threads as the ffmpeg CLI has them (one per CPU): the graph runs on the thread that gathers sources,
        // which a LUT on every 1080p frame would otherwise make the pipeline's bottleneck (docs/effects.md).
        avGraph.pointee.nb_threads = 0
        func create(_ name: String, _ label: String, _ arguments: String?) throws(MediaError)
            -> UnsafeMutablePointer<AVFilterContext> {
            guard let filter = avfilter_get_by_name(name) else {
                throw MediaError(.unsupported, "the \(name) filter is not available")
            }
            var context: UnsafeMutablePointer<AVFilterContext>? = nil
            try check(avfilter_graph_create_filter(&context, filter, label, arguments, nil, avGraph), .unsupported,
                      "cannot create \(name)", function: "avfilter_graph_create_filter")
            return try allocated(context, "a \(name) filter")
        }
        let input = try create("buffer", "in",
                               "video_size=\(wanted.width)x\(wanted.height):pix_fmt=\(wanted.format):time_base=1/90000:"
                                   + "pixel_aspect=1/1")
        let output = try create("buffersink", "out", nil)
        // The graph text's open input is fed by our buffer source; its open output feeds our sink. parse_ptr
        // replaces both lists with what it left unlinked, which is ours to free.
        var outputs: UnsafeMutablePointer<AVFilterInOut>? = avfilter_inout_alloc()
        var inputs: UnsafeMutablePointer<AVFilterInOut>? = avfilter_inout_alloc()
        defer {
            avfilter_inout_free(&outputs)
            avfilter_inout_free(&inputs)
        }
        guard let openOutput = outputs, let openInput = inputs else {
            throw MediaError(.internal, "cannot allocate filter links")
        }
        openOutput.pointee.name = av_strdup("in")
        openOutput.pointee.filter_ctx = input
        openOutput.pointee.pad_idx = 0
        openOutput.pointee.next = nil
        openInput.pointee.name = av_strdup("out")
        openInput.pointee.filter_ctx = output
        openInput.pointee.pad_idx = 0
        openInput.pointee.next = nil
        let text = "[in]" + description + ",format=pix_fmts=" + (keepsAlpha ? "yuva420p" : "yuv420p") + "[out]"
        let parsed = avfilter_graph_parse_ptr(avGraph, text, &inputs, &outputs, nil)
        try check(parsed, .unsupported, "cannot set up the effect filter \(description)",
                  function: "avfilter_graph_parse_ptr")
        try check(avfilter_graph_config(avGraph, nil), .unsupported, "cannot configure the effect filter \(description)",
                  function: "avfilter_graph_config")
        source = input
        sink = output
        shape = wanted
        nextTimestamp = 0
        self.graph = consume graph
    }

    /// `value` quoted for a filter option inside a filtergraph text: escaped once for the option parser and
    /// once more for the graph parser, so that any file name (with `:`, `'`, `,` or brackets) arrives intact.
    public static func quoted(_ value: String) -> String {
        func escape(_ text: String, _ special: Set<Character>) -> String {
            var result = ""
            for character in text {
                if special.contains(character) { result.append("\\") }
                result.append(character)
            }
            return result
        }
        return escape(escape(value, ["\\", "'", ":", "="]), ["\\", "'", "[", "]", ",", ";"])
    }
}
