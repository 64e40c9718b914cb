internal import CFFmpeg

/// Tone-maps HDR pictures (PQ or HLG transfer, usually 10-bit BT.2020) to SDR BT.709 video range yuv420p through
/// libavfilter, the chain the ffmpeg CLI is commonly given for it:
/// `zscale=t=linear:npl=100, format=gbrpf32le, zscale=p=bt709, tonemap=hable:desat=0,
/// zscale=t=bt709:m=bt709:r=tv, format=yuv420p`. zscale reads each picture's own transfer, primaries and matrix.
///
/// One picture in, one out; the graph is rebuilt when the picture size or format changes. Not thread-safe.
final class ToneMapper {
    private struct Shape: Equatable {
        let width: Int32, height: Int32, format: Int32
    }

    private var graph: FilterGraph?
    private var shape: Shape?
    private var source: UnsafeMutablePointer<AVFilterContext>?
    private var sink: UnsafeMutablePointer<AVFilterContext>?
    private let output: Frame

    init() throws(MediaError) {
        output = try Frame()
    }

    /// Whether `frame` carries an HDR transfer that needs tone mapping.
    static func needsMapping(_ frame: UnsafeMutablePointer<AVFrame>) -> Bool {
        frame.pointee.color_trc == AVCOL_TRC_SMPTE2084 || frame.pointee.color_trc == AVCOL_TRC_ARIB_STD_B67
    }

    /// Replaces `frame`'s picture with its tone-mapped SDR version (yuv420p, BT.709, video range); its
    /// timestamps are kept.
    func map(_ frame: UnsafeMutablePointer<AVFrame>) throws(MediaError) {
        let wanted = Shape(width: frame.pointee.width, height: frame.pointee.height, format: frame.pointee.format)
        if wanted != shape {
            graph = nil
            try build(wanted)
        }
        guard let source, let sink else { throw MediaError(.internal, "the tone-mapping graph is missing") }
        let pts = frame.pointee.pts, bestEffort = frame.pointee.best_effort_timestamp
        // The buffer source takes `frame`'s reference and leaves it blank for the mapped picture.
        try check(av_buffersrc_add_frame_flags(source, frame, 0), .internal,
                  "cannot feed the tone-mapping filter", function: "av_buffersrc_add_frame_flags")
        let mapped = output.avFrame
        try check(av_buffersink_get_frame(sink, mapped), .internal, "tone mapping failed",
                  function: "av_buffersink_get_frame")
        av_frame_move_ref(frame, mapped)
        frame.pointee.pts = pts
        frame.pointee.best_effort_timestamp = bestEffort
        frame.pointee.color_range = AVCOL_RANGE_MPEG
        frame.pointee.colorspace = AVCOL_SPC_BT709
        frame.pointee.color_primaries = AVCOL_PRI_BT709
        frame.pointee.color_trc = AVCOL_TRC_BT709
    }

    private func build(_ wanted: Shape) throws(MediaError) {
        let graph = try FilterGraph()
        // The nested function borrows the raw graph, not the noncopyable owner, which it could not capture.
        let avGraph = graph.avGraph
        var made: [UnsafeMutablePointer<AVFilterContext>] = []
        func add(_ filterName: String, _ arguments: String) throws(MediaError) {
            guard let filter = avfilter_get_by_name(filterName) else {
                throw MediaError(.unsupported, "the \(filterName) filter is not available to tone-map HDR video")
            }
            var context: UnsafeMutablePointer<AVFilterContext>? = nil
            let failure = { (code: Int32) in
                MediaError(.unsupported, "cannot create \(filterName)=\(arguments): \(errorText(code))")
            }
            let result = try check(avfilter_graph_create_filter(&context, filter, "t\(made.count)", arguments, nil,
                                                                avGraph),
                                   function: "avfilter_graph_create_filter", failure)
            guard let context else { throw failure(result) }
            if let previous = made.last {
                try check(avfilter_link(previous, 0, context, 0), .internal, "cannot link \(filterName)",
                          function: "avfilter_link")
            }
            made.append(context)
        }
        try add("buffer", "video_size=\(wanted.width)x\(wanted.height):pix_fmt=\(wanted.format):time_base=1/90000:"
                    + "pixel_aspect=1/1")
        try add("zscale", "t=linear:npl=100")
        try add("format", "pix_fmts=gbrpf32le")
        try add("zscale", "p=bt709")
        try add("tonemap", "tonemap=hable:desat=0")
        try add("zscale", "t=bt709:m=bt709:r=tv")
        try add("format", "pix_fmts=yuv420p")
        try add("buffersink", "")
        try check(avfilter_graph_config(avGraph, nil), .unsupported, "cannot configure HDR tone mapping",
                  function: "avfilter_graph_config")
        source = made.first
        sink = made.last
        shape = wanted
        self.graph = consume graph
    }
}
