internal import CFFmpeg

// Single owners of FFmpeg objects. Each frees its object in deinit, so an initializer or method that
// throws half-way leaves nothing behind and no caller writes a free or a clean-up `catch`.
// Non-copyable structs cost no allocation; the two classes are for owners kept in optionals and dictionaries.

/// An AVFrame, freed (its buffers unreferenced) when the owner ends.
struct Frame: ~Copyable {
    /// The frame; valid while the owner lives.
    let avFrame: UnsafeMutablePointer<AVFrame>

    init() throws(MediaError) {
        avFrame = try allocated(av_frame_alloc(), "a frame")
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFrame>? = avFrame
        av_frame_free(&owned)
    }
}

/// An AVCodecContext, freed when the owner ends.
struct CodecContext: ~Copyable {
    /// The context; valid while the owner lives.
    let avContext: UnsafeMutablePointer<AVCodecContext>

    /// Allocates a context for `codec`; `role` names it in the error ("a decoder", "an encoder").
    init(_ codec: UnsafePointer<AVCodec>, role: String) throws(MediaError) {
        avContext = try allocated(avcodec_alloc_context3(codec), role)
    }

    deinit {
        var owned: UnsafeMutablePointer<AVCodecContext>? = avContext
        avcodec_free_context(&owned)
    }
}

/// An opened input AVFormatContext, closed when the owner ends.
struct InputContext: ~Copyable {
    /// The context; valid while the owner lives.
    let avContext: UnsafeMutablePointer<AVFormatContext>

    /// Takes over a context `avformat_open_input` opened.
    init(opened context: UnsafeMutablePointer<AVFormatContext>) {
        avContext = context
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFormatContext>? = avContext
        avformat_close_input(&owned)
    }
}

/// An AVDictionary of options for an open call, freed (with whatever the call left unused) when the owner ends.
struct Options: ~Copyable {
    /// The dictionary; nil while empty. Pass `&options.avDictionary` to the call that reads it.
    var avDictionary: OpaquePointer?

    init() {
        avDictionary = nil
    }

    /// Sets `key` to `value`, replacing an earlier value.
    mutating func set(_ key: String, _ value: String) throws(MediaError) {
        try check(av_dict_set(&avDictionary, key, value, 0), .internal, "cannot set the \(key) option",
                  function: "av_dict_set")
    }

    deinit {
        var owned = avDictionary
        av_dict_free(&owned)
    }
}

/// An AVChannelLayout, uninitialised (a custom map freed) when the owner ends.
struct ChannelLayout: ~Copyable {
    /// The layout; an unspecified empty one until set.
    var avLayout: AVChannelLayout

    init() {
        avLayout = AVChannelLayout()
    }

    /// FFmpeg's default layout for `channels` channels (mono, stereo, …, 5.1, …).
    init(defaultFor channels: Int) {
        avLayout = AVChannelLayout()
        av_channel_layout_default(&avLayout, Int32(channels))
    }

    /// FFmpeg's description of the layout (`stereo`, `5.1`); nil when it has none.
    func describe() -> String? {
        var layout = avLayout
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { buffer in
            guard let base = buffer.baseAddress, av_channel_layout_describe(&layout, base, 128) > 0 else { return nil }
            return String(cString: base)
        }
    }

    deinit {
        // The copy shares any custom map with `avLayout`, so uninitialising it frees that map.
        var owned = avLayout
        av_channel_layout_uninit(&owned)
    }
}

/// An AVAudioFifo, freed when the owner ends.
struct AudioFifo: ~Copyable {
    /// The FIFO; valid while the owner lives.
    let avFifo: OpaquePointer

    /// Allocates a FIFO of `channels` planes in `format` with room for `capacity` samples (it grows as needed).
    init(format: AVSampleFormat, channels: Int, capacity: Int) throws(MediaError) {
        avFifo = try allocated(av_audio_fifo_alloc(format, Int32(channels), Int32(capacity)), "an audio FIFO")
    }

    deinit {
        av_audio_fifo_free(avFifo)
    }
}

/// An AVFilterGraph with its filters, freed when the owner ends.
struct FilterGraph: ~Copyable {
    /// The graph; valid while the owner lives.
    let avGraph: UnsafeMutablePointer<AVFilterGraph>

    init() throws(MediaError) {
        avGraph = try allocated(avfilter_graph_alloc(), "a filter graph")
    }

    deinit {
        var owned: UnsafeMutablePointer<AVFilterGraph>? = avGraph
        avfilter_graph_free(&owned)
    }
}

/// A libswscale context, freed when the last reference goes (a class: scalers cache them in a dictionary).
final class ScaleContext {
    /// The context; valid while this object lives.
    let avContext: OpaquePointer

    /// Takes over a context `sws_getContext` made.
    init(made context: OpaquePointer) {
        avContext = context
    }

    deinit {
        sws_freeContext(avContext)
    }
}
