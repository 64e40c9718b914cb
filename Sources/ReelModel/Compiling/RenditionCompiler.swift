import ReelTime

/// `outputs` (docs/outputs.md): each further rendition's settings resolved against the main output's.
struct RenditionCompiler: CompilerPart {
    let sink: DiagnosticSink
    let context: CompileContext

    /// `outputs` resolved against the compiled main output (docs/outputs.md): a size or frame rate not written is
    /// the main output's, and what one pass cannot make is refused at the entry's path.
    ///
    /// One pass composites the timeline once, at the main output's canvas, on the main output's frame grid, so an
    /// entry's pictures are the main pictures scaled down: its size may not exceed the canvas, and its frame rate
    /// must divide the main one (every k-th main frame). Paths must differ from each other and from the main
    /// output's; a smart render writes one output.
    func compileRenditions(_ outputs: [OutputSettings], main compiled: CompiledProject) -> [OutputSettings] {
        let list = JSONPath.root.key("outputs")
        guard !outputs.isEmpty else { return [] }
        let main = compiled.output
        if main.video.smart {
            error(JSONPath.root.key("output").key("video").key("smart"),
                  "a smart render copies packets into one file, so it cannot share its pass with outputs",
                  hint: "remove smart, or render the further outputs separately")
        }
        var seen: [String: Int] = [:]
        let placement = compiled.placement
        if let path = placement.mainPath { seen[path] = -1 }
        var resolved: [OutputSettings] = []
        for (index, written) in outputs.enumerated() {
            let path = list.index(index)
            var output = written.inheriting(from: main)
            output.size = written.size ?? main.size
            output.frameRate = written.frameRate ?? main.frameRate
            output.renderScale = main.renderScale
            output.background = main.background
            output.range = main.range
            output.rangeRunsToEnd = main.rangeRunsToEnd
            output.end = main.end
            if let file = written.path {
                let key = placement.resolve(file)
                if let other = seen[key] {
                    error(path.key("path"), "\(file) is also the path of " + (other < 0 ? "output" : "outputs[\(other)]"),
                          hint: "give every output its own path")
                } else {
                    seen[key] = index
                }
            }
            if written.video.smart {
                error(path.key("video").key("smart"), "a smart render writes one output, not one of outputs",
                      hint: "remove smart")
            }
            let audioOnly = output.format?.isAudioOnly == true
            if let rate = output.frameRate, let mainRate = main.frameRate, !audioOnly {
                let ratio = try? mainRate.divided(by: rate)
                if ratio == nil || ratio!.denominator != 1 || ratio!.numerator < 1 {
                    error(path.key("frameRate"), "frame rate \(rate) does not divide the main output's \(mainRate): "
                          + "every picture of outputs is one of the main output's frames",
                          hint: "use \(mainRate) divided by a whole number, or render this output separately")
                }
            }
            if let size = output.size, let canvas = main.size, !audioOnly,
               size.width > canvas.width || size.height > canvas.height {
                error(path.key("size"), "size \(size) is larger than the main output's \(canvas): every output is "
                      + "scaled down from the main output's pictures",
                      hint: "make the largest rendition the main output")
            }
            if let time = output.posterTime {
                let range = compiled.exportRange
                let inside = time >= range.start && time < range.end
                if !inside {
                    error(path.key("at"), "the poster's time \(time.seconds) s is outside the export "
                          + "(\(range.start.seconds) s to \(range.end.seconds) s)",
                          hint: "choose a time inside the exported range")
                }
            }
            resolved.append(output)
        }
        return resolved
    }
}
