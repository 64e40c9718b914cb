import ReelMedia
import ReelModel
import ReelTime

/// A source picture found for a track at a composition time.
struct TrackFrame {
    /// The decoded (or made) picture; shared with its reader, so never drawn into. The effect stage replaces it
    /// with a filtered copy.
    var picture: VideoFrame
    /// Display rotation, degrees counter-clockwise.
    let rotation: Int
    /// The stream's probed size after rotation, which the layer's geometry was computed for; nil for stills.
    var displaySize: PixelSize? = nil
    /// The fit of the clip the segment came from.
    var fit: Fit = .contain
    /// The stored size `picture` stands for when the effect stage made it smaller (a strong blur run at a reduced
    /// resolution, docs/effects.md): the layer's geometry, in the full picture's pixels, is scaled to match.
    /// nil: the picture's own size.
    var fullSize: PixelSize? = nil
}

/// The sources stage: which source picture track T shows at composition time t, for every video track.
///
/// Requests must come in non-decreasing time (an export walks the frame grid forwards; a still image or a seek
/// starts a new walk). Decoders are opened when a segment first needs them and closed as soon as the segments
/// being shown no longer use them, so memory does not grow with the number of clips.
///
/// Still assets are made once and held for the whole render (they are one picture each): a colour is a solid
/// yuv420p picture of the video composition's render size (before renderScale), so at the identity transform it
/// covers the canvas whatever its size; an image is its first decoded picture, converted to yuv420p once when
/// stored in another format, or to yuva420p when it has alpha: the compositor then shows the layers below (or the
/// background) through its transparent parts.
final class VideoSources {
    /// Readers belong to a track as well as a stream: the two clips of a transition between cuts of one file
    /// each decode forwards from their own position instead of seeking one decoder back and forth every frame.
    private struct ReaderKey: Hashable {
        let track: Int
        let asset: String
        let stream: Int
        /// Reversed segments decode backwards, through a reader of their own.
        var reversed = false
    }

    private let tracks: [Int: [Segment]]
    /// For a segment that shows the same source pictures at the same times as a segment of a lower track (a
    /// `fit: blur` clip's fill and the clip itself): that lower track, whose reader both read, so the pictures are
    /// decoded once and drawn twice. By track, then segment index; absent: the track's own reader.
    private let readerTracks: [Int: [Int: Int]]
    private var cursors: [Int: Int] = [:]
    private let catalog: SourceCatalog
    /// How files are opened (the effect stage reads mask images through it too).
    let opener: any SourceOpener
    /// What the uses of compositions share in this render.
    private let sharing: NestedSharing
    private var readers: [ReaderKey: any VideoSourceReader] = [:]
    /// The size of colour pictures: the video composition's render size.
    private let colorSize: PixelSize
    /// What the transparent parts of image assets show: the video composition's background.
    private let background: RGBAColor
    /// Pictures of still assets by id, made on first use and kept until the render ends.
    private var stills: [String: VideoFrame] = [:]
    /// SVG image assets by id, parsed on first use, and their pictures drawn at the sizes shown, the latest few.
    private var vectors: [String: SVGImage] = [:]
    private var vectorPictures: [(key: VectorKey, picture: VideoFrame)] = []
    /// How many drawn SVG pictures are kept (an animated scale draws one per size it reaches).
    static let vectorPictureLimit = 8

    private struct VectorKey: Equatable {
        let asset: String
        let width: Int
        let height: Int
    }

    /// Sources for the video tracks of `project`, reading the assets `catalog` resolves through `opener`;
    /// compositions share their work through `sharing`.
    init(project: CompiledProject, catalog: SourceCatalog, opener: any SourceOpener, sharing: NestedSharing) {
        var tracks: [Int: [Segment]] = [:]
        for track in project.composition.tracks where track.kind == .video {
            tracks[track.id] = track.segments.filter { $0.asset != nil }
        }
        self.tracks = tracks
        readerTracks = Self.sharedReaders(tracks)
        self.catalog = catalog
        self.opener = opener
        self.sharing = sharing
        colorSize = project.videoComposition.renderSize
        background = project.videoComposition.background
    }

    /// The picture track `trackID` shows at `time` (composition seconds), or nil where the track is empty.
    /// `shownScale`: canvas pixels per source pixel along each axis where the layer is placed now; an SVG image is
    /// drawn at its nominal size times this (sharp however far it is enlarged), and a composition at a whole scale
    /// of its nominal size near it (`CompositionVideoReader.drawingScale`); both stand for their nominal size
    /// (`TrackFrame.fullSize`). nil: at its nominal size. `vectorScaled` false: an SVG image at its nominal size
    /// whatever `shownScale` (effects in its nominal pixels run on it).
    func frame(track trackID: Int, at time: Time, shownScale: LayerPoint? = nil,
               vectorScaled: Bool = true) throws(RenderError) -> TrackFrame? {
        guard let segment = segment(of: trackID, at: time), let asset = segment.asset,
            let mapping = segment.mapping
        else { return nil }
        let entry = catalog[asset]
        switch entry?.kind {
        case .color(let color)?:
            return TrackFrame(picture: try colorPicture(asset, color), rotation: 0)
        case .image?:
            if let path = entry?.path, SVGImage.isSVG(path) {
                return try vectorPicture(asset, path: path, scale: vectorScaled ? shownScale : nil)
            }
            return TrackFrame(picture: try imagePicture(asset, stream: segment.sourceTrack),
                              rotation: entry?.rotation ?? 0)
        case .media?, .composition?, nil:
            break
        }
        guard let stream = segment.sourceTrack ?? entry?.videoStream, entry?.path != nil || entry?.kind != .media else {
            throw RenderError(.internal, "asset \"\(asset)\" has no probed video stream")
        }
        let key = ReaderKey(track: readerTrack(trackID), asset: asset, stream: stream,
                            reversed: segment.timing == .reversed)
        // A composition is drawn at the size it is shown (a whole scale of its nominal size, which it stands for).
        var nominal: PixelSize?
        var scale = 1
        if case .composition(let child)? = entry?.kind {
            nominal = child.compiled.encodedSize
            scale = CompositionVideoReader.drawingScale(shown: shownScale, nominal: child.compiled.encodedSize)
        }
        let reader: any VideoSourceReader
        if let open = readers[key] {
            reader = open
        } else {
            do {
                reader = try opener.openVideo(entry, path: entry?.path, stream: stream, reversed: key.reversed,
                                              scale: scale, sharing: sharing)
            } catch {
                throw RenderError(error.kind, "asset \"\(asset)\": " + error.message)
            }
            readers[key] = reader
        }
        let sourceTime: Time
        do {
            sourceTime = try mapping.sourceTime(atTarget: time)
        } catch {
            throw RenderError(.internal, "cannot map \(time) s into asset \"\(asset)\": \(error)")
        }
        do {
            if let composition = reader as? CompositionVideoReader, scale != 1 {
                return TrackFrame(picture: try composition.frame(at: sourceTime, scale: scale), rotation: 0,
                                  displaySize: entry?.displaySize, fit: segment.fit, fullSize: nominal)
            }
            return TrackFrame(picture: try reader.frame(at: sourceTime), rotation: entry?.rotation ?? 0,
                              displaySize: entry?.displaySize, fit: segment.fit)
        } catch {
            throw RenderError(media: error, asset: asset, sourceTime: sourceTime)
        }
    }

    /// Closes every decoder that none of `tracksInUse`' current segments needs.
    func releaseReaders(keeping tracksInUse: Set<Int>) {
        var needed = Set<ReaderKey>()
        for id in tracksInUse {
            guard let index = cursors[id], let segments = tracks[id], index < segments.count,
                let asset = segments[index].asset
            else { continue }
            if let stream = segments[index].sourceTrack ?? catalog[asset]?.videoStream {
                needed.insert(ReaderKey(track: readerTrack(id), asset: asset, stream: stream,
                                        reversed: segments[index].timing == .reversed))
            }
        }
        readers = readers.filter { needed.contains($0.key) }
    }

    /// The track whose reader serves track `trackID`'s current segment.
    private func readerTrack(_ trackID: Int) -> Int {
        guard let index = cursors[trackID] else { return trackID }
        return readerTracks[trackID]?[index] ?? trackID
    }

    /// For every segment showing the same pictures as a segment of a lower track (same asset, stream, source and
    /// target ranges and timing; the fit may differ, as it only places the picture): the lowest such track.
    private static func sharedReaders(_ tracks: [Int: [Segment]]) -> [Int: [Int: Int]] {
        struct Shown: Hashable {
            let asset: String?
            let stream: Int?
            let source: TimeRange?
            let target: TimeRange
            let timing: SegmentTiming
        }
        var first: [Shown: Int] = [:]
        var shared: [Int: [Int: Int]] = [:]
        for id in tracks.keys.sorted() {
            for (index, segment) in (tracks[id] ?? []).enumerated() where segment.asset != nil {
                let shown = Shown(asset: segment.asset, stream: segment.sourceTrack, source: segment.source,
                                  target: segment.target, timing: segment.timing)
                if let owner = first[shown], owner != id {
                    shared[id, default: [:]][index] = owner
                } else if first[shown] == nil {
                    first[shown] = id
                }
            }
        }
        return shared
    }

    /// The solid picture of colour asset `asset`, made on first use.
    private func colorPicture(_ asset: String, _ color: RGBAColor) throws(RenderError) -> VideoFrame {
        if let made = stills[asset] { return made }
        let picture: VideoFrame
        do {
            picture = try VideoFrame(width: colorSize.width, height: colorSize.height, format: .yuv420p)
        } catch {
            throw RenderError(media: error, asset: asset)
        }
        let yuv = YUVColor(color)
        picture.fill(y: yuv.y, u: yuv.u, v: yuv.v)
        stills[asset] = picture
        return picture
    }

    /// The picture of image asset `asset`, decoded and converted on first use; the decoder is closed at once.
    private func imagePicture(_ asset: String, stream chosen: Int?) throws(RenderError) -> VideoFrame {
        if let made = stills[asset] { return made }
        guard let stream = chosen ?? catalog[asset]?.videoStream, let path = catalog[asset]?.path else {
            throw RenderError(.internal, "image asset \"\(asset)\" was not probed")
        }
        let picture: VideoFrame
        do {
            let decoded = try opener.openVideo(path: path, stream: stream).frame(at: .zero)
            if decoded.format.hasAlpha {
                picture = try ImageLayer.withAlpha(decoded, transparentShowing: background)
            } else if decoded.format == .yuv420p {
                picture = decoded
            } else {
                picture = try Scaler().converted(decoded, width: decoded.width, height: decoded.height, format: .yuv420p)
            }
        } catch {
            throw RenderError(media: error, asset: asset)
        }
        stills[asset] = picture
        return picture
    }

    /// The picture of SVG image asset `asset` drawn at its nominal size × `scale` (per axis), standing for its
    /// nominal size; the latest `vectorPictureLimit` pictures are kept.
    private func vectorPicture(_ asset: String, path: String, scale: LayerPoint?) throws(RenderError) -> TrackFrame {
        do {
            let svg: SVGImage
            if let parsed = vectors[asset] { svg = parsed } else {
                svg = try SVGImage(path: path)
                vectors[asset] = svg
            }
            let nominal = svg.size
            func side(_ length: Int, _ factor: Double?) -> Int {
                let scaled = (Double(length) * (factor ?? 1)).rounded()
                return scaled.isFinite ? max(1, min(SVGImage.largestSide, Int(scaled))) : length
            }
            let key = VectorKey(asset: asset, width: side(nominal.width, scale.map { abs($0.x) }),
                                height: side(nominal.height, scale.map { abs($0.y) }))
            let picture: VideoFrame
            if let index = vectorPictures.firstIndex(where: { $0.key == key }) {
                picture = vectorPictures.remove(at: index).picture
            } else {
                picture = try ImageLayer.withAlpha(try svg.raster(width: key.width, height: key.height),
                                                   transparentShowing: background)
            }
            vectorPictures.append((key, picture))
            if vectorPictures.count > Self.vectorPictureLimit { vectorPictures.removeFirst() }
            return TrackFrame(picture: picture, rotation: 0, fullSize: nominal)
        } catch {
            throw RenderError(media: error, asset: asset)
        }
    }

    private func segment(of trackID: Int, at time: Time) -> Segment? {
        guard let segments = tracks[trackID], !segments.isEmpty else { return nil }
        var index = cursors[trackID] ?? 0
        if index >= segments.count || segments[index].target.start > time { index = 0 }
        while index < segments.count, segments[index].target.end <= time { index += 1 }
        cursors[trackID] = index
        guard index < segments.count, segments[index].target.contains(time) else { return nil }
        return segments[index]
    }
}
