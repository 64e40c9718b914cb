import ReelModel

extension CompiledProject {
    /// This project with every asset file, title font file and the output path made absolute (resolved against the
    /// project's folder), so that `reel compile`'s result names the same files wherever it is saved. Protocol URLs
    /// (`http:`…) and paths that are already absolute stay as written; font family names are not paths.
    func withAbsolutePaths() -> CompiledProject {
        var copy = self
        copy.assets = assets.map { asset in
            var resolved = asset
            switch asset.source {
            case .file(let path, let videoTrack, let audioTrack, let language, let rotation):
                resolved.source = .file(path: resolvedPath(path), videoTrack: videoTrack, audioTrack: audioTrack,
                                        language: language, rotation: rotation)
            case .image(let path):
                resolved.source = .image(path: resolvedPath(path))
            case .composition(.file(let path, let values)):
                resolved.source = .composition(.file(path: resolvedPath(path), with: values))
            case .color, .composition(.inline):
                break
            }
            return resolved
        }
        if let path = output.path, path != "-" { copy.output.path = resolvedPath(path) }
        copy.videoComposition.titles = videoComposition.titles.map { layer in
            guard case .text(var style) = layer.content, style.fontIsFile, let font = style.font else { return layer }
            var resolved = layer
            style.font = resolvedPath(font)
            resolved.content = .text(style)
            return resolved
        }
        return copy
    }
}
