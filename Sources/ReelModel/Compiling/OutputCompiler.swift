import ReelTime

/// The output's defaults and limits (SPEC §2.1, §5.1): the frame rate and canvas size taken from the first video
/// source when not written, the encoded size after renderScale, and the composition's end, export range and frame
/// count. Shared by the timeline's and the explicit form's compilers.
struct OutputCompiler: CompilerPart {
    let sink: DiagnosticSink
    let context: CompileContext

    /// The output frame rate: as written, else the first video source's base rate (`r_frame_rate`) when its average
    /// rate agrees with it within 2 % (a constant-rate stream, or one whose timestamps only jitter around its rate, as
    /// an iPhone's 30000/1001 with an average of 20000/667 does; a short clip's average is off by up to one frame over
    /// its length), else 30.
    /// `firstVideo` is the first clip/segment asset with known facts, `.unprobed` when it could not be told.
    func resolveFrameRate(written: Rational?, firstVideo: MediaKnowledge?, path: JSONPath) -> Rational? {
        if let written {
            guard written >= Rational(1), written <= Rational(240) else {
                error(path, "frame rate \(written) is outside 1…240", hint: "use 1 to 240 frames per second")
                return nil
            }
            return written
        }
        switch firstVideo {
        case .known(let mediaFacts)?:
            if let video = mediaFacts.video, let rate = video.frameRate, let average = video.averageFrameRate,
               Self.agree(rate, average), rate >= Rational(1), rate <= Rational(240) {
                return rate
            }
            return Rational(30)
        case .failed?:
            return nil
        case .unprobed? where isLint:
            return CompileContext.standInFrameRate
        case .unprobed?:
            error(path, "output.frameRate is not set and the first clip's media was not probed",
                  hint: "set output.frameRate, or let reel probe the media")
            return nil
        case nil:
            return Rational(30)
        }
    }

    /// True when `average` lies within 2 % of `rate`: the stream keeps its rate, its timestamps at most jittered.
    static func agree(_ rate: Rational, _ average: Rational) -> Bool {
        if rate == average { return true }
        guard rate > .zero, average > .zero else { return false }
        // |average − rate| ≤ rate / 50, cross-multiplied exactly.
        let averageScaled = Int128(average.numerator) * Int128(rate.denominator)
        let rateScaled = Int128(rate.numerator) * Int128(average.denominator)
        let difference = averageScaled - rateScaled
        return (difference < 0 ? -difference : difference) * 50 <= rateScaled
    }

    /// The canvas size: as written, else the first video source's display size, rounded down to even sides
    /// (a default must always be renderable in 4:2:0; a written odd size is an error instead). A source whose
    /// asset is unknown (nil, already reported) gives no size and no message. Without a video source, a
    /// `soundOnly` project (an audio-only output, or nothing to see: docs/outputs.md) takes
    /// `OutputSettings.soundOnlySize`; any other needs `output.size`.
    func resolveSize(written: PixelSize?, firstVideo: (asset: Asset?, knowledge: MediaKnowledge)?, soundOnly: Bool,
                     path: JSONPath) -> PixelSize? {
        if let written { return written }
        switch firstVideo {
        case (nil, _)?:
            return nil
        case (let asset?, .known(let mediaFacts))?:
            if let video = mediaFacts.video {
                let display = displaySize(asset, video)
                let size = PixelSize(width: display.width - display.width % 2, height: display.height - display.height % 2)
                if (2...8192).contains(size.width), (2...8192).contains(size.height) { return size }
                error(path, "the first clip's size \(size.width)×\(size.height) is outside 2…8192",
                      hint: "set output.size")
            }
            return nil
        case (_, .failed)?:
            return nil
        case (_, .unprobed)? where isLint:
            return CompileContext.standInSize
        case (_, .unprobed)?:
            error(path, "output.size is not set and the first clip's media was not probed",
                  hint: "set output.size, or let reel probe the media")
            return nil
        case nil where soundOnly:
            return OutputSettings.soundOnlySize
        case nil:
            error(path, "output.size is not set and there is no video clip to take it from", hint: "set output.size")
            return nil
        }
    }

    /// size × renderScale, rounded down to whole pixels; a side that comes out odd where the pixel format
    /// subsamples chroma is an error (SPEC §5.1), never silently changed.
    /// `sizeWasWritten`: the size is `output.size` as written, whose odd sides the reader has already reported.
    func encodedSize(for size: PixelSize, scale: Rational, video: VideoOutputSettings, path: JSONPath,
                     sizeWasWritten: Bool) -> PixelSize? {
        func side(_ pixels: Int) -> Int? {
            guard let scaled = try? Rational(Int64(pixels)).multiplied(by: scale), let whole = try? scaled.rounded(.down)
            else { return nil }
            return Int(whole)
        }
        guard let width = side(size.width), let height = side(size.height) else { return nil }
        guard (2...8192).contains(width), (2...8192).contains(height) else {
            error(path, "the render size \(size.width)×\(size.height) × renderScale \(scale) is \(width)×\(height), outside 2…8192 per side",
                  hint: "use a larger renderScale or output.size")
            return nil
        }
        let oddWidth = video.needsEvenWidth && width % 2 != 0, oddHeight = video.needsEvenHeight && height % 2 != 0
        guard !oddWidth, !oddHeight else {
            if scale == Rational(1) {
                // Nothing was scaled: the size itself is odd, a problem of output.size, not of renderScale.
                if !sizeWasWritten {
                    error(JSONPath.root.key("output").key("size"), "the render size \(width)×\(height) (not set in "
                              + "output.size, taken from the media) has an odd side, but \(video.effectivePixelFormat) "
                              + "needs even sides", hint: "set output.size to even sides")
                }
                return nil
            }
            error(path, "the render size \(size.width)×\(size.height) × renderScale \(scale) is \(width)×\(height), "
                      + "but \(video.effectivePixelFormat) needs even sides",
                  hint: "pick a renderScale or output.size that gives even sides")
            return nil
        }
        return PixelSize(width: width, height: height)
    }

    /// Checks and sets the composition's end, export range and frame count. `output.end` later than the content
    /// extends the composition with background; earlier, it cuts it (`isCut`: the caller cuts tracks and
    /// instructions there, `EndCut`).
    func finish(output: inout OutputSettings, contentEnd: Time, frameDuration: Time, endPath: JSONPath)
        -> (duration: Time, exportRange: TimeRange, frameCount: Int64, isCut: Bool)? {
        var duration = contentEnd
        var isCut = false
        if let end = output.end {
            // With stand-in lengths the true end of the content is unknown; keep the longer.
            if end < contentEnd, !context.lengthIsStandIn {
                duration = end
                isCut = true
            } else {
                duration = end < contentEnd ? contentEnd : end
            }
        }
        guard !duration.isZero else {
            error(endPath, "the composition is empty", hint: "add clips or segments, or set output.end")
            return nil
        }
        if duration > Compiler.maximumDuration, !context.lengthIsStandIn {
            error(endPath, "the composition lasts \(describeDuration(duration, frameDuration: frameDuration)), more than 24 hours",
                  hint: "keep projects under 24 hours")
            return nil
        }
        var exportRange: TimeRange
        do {
            exportRange = try TimeRange(start: .zero, duration: duration)
        } catch {
            return nil
        }
        if output.rangeRunsToEnd, let range = output.range {
            output.range = range.start < duration ? try? TimeRange(start: range.start, end: duration) : nil
            output.rangeRunsToEnd = false
            if output.range == nil {
                error(.root.key("output").key("range"),
                      "range starts at \(describeTime(range.start, frameDuration: frameDuration)), at or after the composition's end at \(describeTime(duration, frameDuration: frameDuration))",
                      hint: "start the range before \(describeTime(duration, frameDuration: nil))", time: range.start)
                return nil
            }
        }
        if let range = output.range {
            if range.start >= duration || range.end > duration, !context.lengthIsStandIn {
                error(.root.key("output").key("range"),
                      "range \(describeSpan(range.start, range.end, frameDuration: frameDuration)) is not inside the composition (\(describeSpan(.zero, duration, frameDuration: frameDuration, inParentheses: true)))",
                      hint: "export a range within 0 s and \(describeTime(duration, frameDuration: nil))", time: range.start)
                return nil
            }
            exportRange = range
        }
        guard let frameCount = try? exportRange.duration.quotient(dividingBy: frameDuration, rounding: .up) else {
            error(endPath, "the frame count is not representable")
            return nil
        }
        return (duration, exportRange, frameCount, isCut)
    }
}
