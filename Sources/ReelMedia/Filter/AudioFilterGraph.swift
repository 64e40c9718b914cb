internal import CFFmpeg

/// A libavfilter graph over float planar audio: abuffer → the filters → aformat → abuffersink, one channel layout
/// and sample rate in and out.
///
/// Push input, pull output as it becomes ready, call `finishInput()` after the last push and pull until 0 comes
/// back. Not thread-safe.
public final class AudioFilterGraph {
    private let graph: FilterGraph
    private let source: UnsafeMutablePointer<AVFilterContext>
    private let sink: UnsafeMutablePointer<AVFilterContext>
    /// The filters of `filters`, in order (the source, sink and format conversion left out).
    private let filterContexts: [UnsafeMutablePointer<AVFilterContext>]
    private let inputFrame: Frame
    private let outputFrame: Frame
    private let channelCount: Int
    private let sampleRate: Int
    private var layout: ChannelLayout
    private var pushed: Int64 = 0
    /// Samples of `output` already handed out.
    private var outputOffset = 0
    private var hasOutput = false
    private var inputFinished = false
    private var outputFinished = false

    /// A graph running `filters` (libavfilter names and their option strings, in order) on `channels` channels of
    /// planar floats at `sampleRate` Hz; its output is converted back to that format, rate and layout.
    public init(filters: [(name: String, arguments: String)], sampleRate: Int, channels: Int) throws(MediaError) {
        guard sampleRate > 0, sampleRate <= 768_000, channels > 0, channels <= 64 else {
            throw MediaError(.internal, "invalid audio filter graph at \(sampleRate) Hz, \(channels) channels")
        }
        channelCount = channels
        self.sampleRate = sampleRate
        let channelLayout = ChannelLayout(defaultFor: channels)
        let layoutName = channelLayout.describe() ?? ""
        layout = channelLayout
        let graph = try FilterGraph()
        let graphContext = graph.avGraph
        var made: [UnsafeMutablePointer<AVFilterContext>] = []
        func add(_ filterName: String, _ arguments: String) throws(MediaError) {
            var context: UnsafeMutablePointer<AVFilterContext>? = nil
            guard let filter = avfilter_get_by_name(filterName) else {
                throw MediaError(.unsupported, "the \(filterName) filter is not available")
            }
            let failure = { (code: Int32) in
                MediaError(.unsupported, "cannot create \(filterName)=\(arguments): \(errorText(code))")
            }
            let result = try check(avfilter_graph_create_filter(&context, filter, "f\(made.count)", arguments, nil, graphContext),
                                   function: "avfilter_graph_create_filter", failure)
            guard let context else { throw failure(result) }
            if let previous = made.last {
                try check(avfilter_link(previous, 0, context, 0), .internal, "cannot link \(filterName)", function: "avfilter_link")
            }
            made.append(context)
        }
        try add("abuffer", "time_base=1/\(sampleRate):sample_rate=\(sampleRate):sample_fmt=fltp:channel_layout=\(layoutName)")
        for filter in filters { try add(filter.name, filter.arguments) }
        try add("aformat", "sample_fmts=fltp:sample_rates=\(sampleRate):channel_layouts=\(layoutName)")
        try add("abuffersink", "")
        try check(avfilter_graph_config(graphContext, nil), .internal, "cannot configure the audio filter graph " + filters.map { "\($0.name)=\($0.arguments)" }.joined(separator: ","),
                  function: "avfilter_graph_config")
        inputFrame = try Frame()
        outputFrame = try Frame()
        self.graph = graph
        source = made[0]
        sink = made[made.count - 1]
        filterContexts = Array(made[1...filters.count])
    }

    /// Sends the runtime command `command` with `argument` to every filter of type (or instance name) `target`,
    /// as libavfilter's `avfilter_graph_send_command` does (afftdn's `sample_noise`, for one).
    public func send(_ command: String, argument: String, to target: String) throws(MediaError) {
        var response = [CChar](repeating: 0, count: 64)
        let count = Int32(response.count)
        try check(avfilter_graph_send_command(graph.avGraph, target, command, argument, &response, count, 0), .internal,
                  "cannot send \(command)=\(argument) to \(target)", function: "avfilter_graph_send_command")
    }

    /// Sends the runtime command `command` with `argument` to the filter at `index` of the `filters` the graph was
    /// made with (`avfilter_process_command`). It acts on the samples the filter has not taken yet: pull everything
    /// ready first, so that the samples pushed before it have gone through.
    public func send(_ command: String, argument: String, toFilterAt index: Int) throws(MediaError) {
        guard filterContexts.indices.contains(index) else {
            throw MediaError(.internal, "no filter \(index) in an audio filter graph of \(filterContexts.count)")
        }
        var response = [CChar](repeating: 0, count: 64)
        let count = Int32(response.count)
        try check(avfilter_process_command(filterContexts[index], command, argument, &response, count, 0), .internal,
                  "cannot send \(command)=\(argument) to filter \(index)", function: "avfilter_process_command")
    }

    /// The frame each push is assembled in; blank between pushes.
    private var input: UnsafeMutablePointer<AVFrame> { inputFrame.avFrame }
    /// The frame being pulled from; `hasOutput` says whether it holds samples.
    private var output: UnsafeMutablePointer<AVFrame> { outputFrame.avFrame }

    /// Adds `count` input samples per channel from `channels` (one float buffer per channel); copied.
    public func push(_ channels: [UnsafePointer<Float>], count: Int) throws(MediaError) {
        guard channels.count == channelCount, count >= 0, count <= Int(Int32.max) else {
            throw MediaError(.internal, "push needs \(channelCount) channel buffers and a valid count")
        }
        guard !inputFinished else { throw MediaError(.internal, "push after finishInput()") }
        guard count > 0 else { return }
        input.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        input.pointee.sample_rate = Int32(sampleRate)
        input.pointee.nb_samples = Int32(count)
        input.pointee.pts = pushed
        try check(av_channel_layout_copy(&input.pointee.ch_layout, &layout.avLayout), .internal,
                  "cannot copy a channel layout", function: "av_channel_layout_copy")
        try check(av_frame_get_buffer(input, 0), .internal, "cannot allocate an audio frame", function: "av_frame_get_buffer")
        for (index, channel) in channels.enumerated() {
            guard let plane = input.pointee.extended_data[index] else { continue }
            UnsafeMutableRawPointer(plane).assumingMemoryBound(to: Float.self).update(from: channel, count: count)
        }
        pushed += Int64(count)
        // The buffer source takes the frame's reference and leaves `input` blank for the next push.
        let result = av_buffersrc_add_frame_flags(source, input, 0)
        av_frame_unref(input)
        try check(result, .internal, "cannot feed the audio filter graph", function: "av_buffersrc_add_frame_flags")
    }

    /// Marks the end of the input, so that the last samples can be pulled.
    public func finishInput() throws(MediaError) {
        guard !inputFinished else { return }
        inputFinished = true
        try check(av_buffersrc_add_frame_flags(source, nil, 0), .internal, "cannot finish the audio filter graph",
                  function: "av_buffersrc_add_frame_flags")
    }

    /// Writes up to `maxCount` output samples per channel into `channels`; returns how many (0 when none are ready).
    public func pull(into channels: [UnsafeMutablePointer<Float>], maxCount: Int) throws(MediaError) -> Int {
        guard channels.count == channelCount, maxCount >= 0 else {
            throw MediaError(.internal, "pull needs \(channelCount) channel buffers and a count ≥ 0")
        }
        var written = 0
        while written < maxCount {
            if !hasOutput {
                if outputFinished { break }
                let state = try checkLoop(av_buffersink_get_frame(sink, output), .internal, "the audio filter graph failed",
                                          function: "av_buffersink_get_frame")
                if state == .endOfStream { outputFinished = true }
                guard state == .ok else { break }
                hasOutput = true
                outputOffset = 0
            }
            let available = Int(output.pointee.nb_samples) - outputOffset
            let run = min(available, maxCount - written)
            for (index, channel) in channels.enumerated() {
                guard let plane = output.pointee.extended_data[index] else { continue }
                let samples = UnsafeMutableRawPointer(plane).assumingMemoryBound(to: Float.self)
                (channel + written).update(from: samples + outputOffset, count: run)
            }
            written += run
            outputOffset += run
            if outputOffset >= Int(output.pointee.nb_samples) {
                av_frame_unref(output)
                hasOutput = false
            }
        }
        return written
    }
}

