import ReelTime

/// Titles and overlays of the layer stage (SPEC §3.5) checked against the composition they are drawn over.
struct LayerCompiler: CompilerPart {
    let sink: DiagnosticSink
    let context: CompileContext

    /// Checks titles and overlays against the compiled composition (SPEC §3.5): an overlay's asset must be an
    /// image; a layer that starts at or after the composition's end is an error, one that runs past it a warning
    /// (it is cut there; `output.end` extends the composition).
    func checkMovieLayers(_ composition: VideoComposition, duration: Time) -> Bool {
        var valid = true
        for layer in composition.movieLayers {
            if case .image(let id, _) = layer.content, let asset = project.asset(id) {
                if case .image = asset.source {
                    if case .failed = media(id) { valid = false }
                } else {
                    error(layer.path.key("image"), "asset \"\(id)\" is \(asset.stillKind ?? "a media file"), not an image",
                          hint: "overlays show image assets: declare it as {\"image\": \"file.png\"}")
                    valid = false
                }
            }
            let kind = layer.isTitle ? "title" : layer.isShape ? "shape" : "overlay"
            if layer.timeRange.start >= duration {
                error(layer.path.key("start"),
                      "the \(kind) starts at \(describeTime(layer.timeRange.start, frameDuration: composition.frameDuration)), "
                          + "at or after the composition's end at \(describeTime(duration, frameDuration: composition.frameDuration))",
                      hint: "start it earlier, or set output.end later to extend the composition with background frames",
                      time: layer.timeRange.start)
                valid = false
            } else if layer.timeRange.end > duration {
                sink.append(Diagnostic(
                    .warning, path: layer.path,
                    message: "the \(kind) runs to \(describeTime(layer.timeRange.end, frameDuration: composition.frameDuration)), "
                        + "past the composition's end at \(describeTime(duration, frameDuration: composition.frameDuration)); it is cut there",
                    time: layer.timeRange.end,
                    hint: "set output.end to \(describeTime(layer.timeRange.end, frameDuration: nil)) to show it whole"))
            }
        }
        return valid
    }
}

extension VideoInstruction {
    /// Whether any of `layers` is shown during the instruction (the editing form's `postProcessing`).
    func isCovered(by layers: [MovieLayer]) -> Bool {
        layers.contains { timeRange.intersection($0.timeRange).map { !$0.isEmpty } ?? false }
    }
}

extension MovieLayer {
    /// Whether the layer is text.
    public var isTitle: Bool {
        if case .text = content { return true }
        return false
    }

    /// Whether the layer is a shape.
    public var isShape: Bool {
        if case .shape = content { return true }
        return false
    }
}
