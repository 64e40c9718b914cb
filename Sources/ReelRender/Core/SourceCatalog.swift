import ReelModel

/// What the render stages need to know of each asset, resolved once per render from the project and its probe
/// results: the file, the streams to read, the display rotation.
///
/// Video sources, the audio mix and still pictures all look assets up here, so an asset's file and streams are
/// decided in one place.
struct SourceCatalog {
    /// One asset as the renderer reads it.
    struct Entry {
        /// How the asset's pictures and sound are made.
        enum Kind: Equatable {
            /// A media file, decoded as it plays.
            case media
            /// A still image file, decoded once.
            case image
            /// A solid colour; no file.
            case color(RGBAColor)
            /// Another composition (issue 38), rendered by its own core and mixer as it plays; no file.
            case composition(NestedComposition)
        }

        /// How the asset's pictures and sound are made.
        let kind: Kind
        /// The file, made absolute against the project's folder; nil for colours and compositions.
        let path: String?
        /// The probed video stream's index, when the probe found one.
        let videoStream: Int?
        /// The video stream's display rotation, degrees counter-clockwise (0 when unknown).
        let rotation: Int
        /// The video stream's picture size after rotation, as probed (the size clip geometry is computed for).
        let displaySize: PixelSize?
        /// The probed audio stream's index, when the probe found one (never for images).
        let audioStream: Int?
    }

    private let entries: [String: Entry]

    /// Resolves every asset of `project`, with the streams `facts` chose for it.
    init(project: CompiledProject, facts: [String: MediaFactsResult]) {
        var entries: [String: Entry] = [:]
        for asset in project.assets {
            var media: MediaFacts?
            if case .facts(let probed) = facts[asset.id] { media = probed }
            let kind: Entry.Kind, path: String?
            switch asset.source {
            case .file(let file, _, _, _, _): (kind, path) = (.media, project.resolvedPath(file))
            case .image(let file): (kind, path) = (.image, project.resolvedPath(file))
            case .color(let color): (kind, path) = (.color(color), nil)
            case .composition:
                // Without facts (a load that failed) the asset is never rendered.
                guard let child = media?.composition else { continue }
                (kind, path) = (.composition(child), nil)
            }
            entries[asset.id] = Entry(
                kind: kind, path: path, videoStream: media?.video?.streamIndex, rotation: media?.video?.rotation ?? 0,
                displaySize: media?.video?.displaySize,
                audioStream: kind == .media || media?.composition != nil ? media?.audio?.streamIndex : nil)
        }
        self.entries = entries
    }

    /// The entry of asset `id`, or nil for an id the project does not define.
    subscript(id: String) -> Entry? { entries[id] }
}
