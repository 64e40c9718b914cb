import ReelMedia
import ReelModel
import ReelTime

/// What the render cores of one render share among the uses of its compositions (issue 38, docs/decisions.md
/// "Uses of one composition share its work"): made by the outermost `RenderCore` and handed to every child core
/// below it, used from that render's one thread.
///
/// - `rasters`: titles, shapes and overlay images rasterised once for every core of the render (`RasterCache`).
/// - The cores of a child no use holds now, by child and drawing scale: the next use of the same child (the same
///   `with`) takes them, with their open decoders, instead of opening its own. Uses shown at the same time each
///   hold their own.
/// - The latest picture of each child at each scale: a use asking for the frame another use has just drawn takes
///   that picture (every frame of a child depends only on its time, docs/architecture.md).
final class NestedSharing {
    private struct DrawingKey: Hashable {
        let child: NestedComposition
        let scale: Int
    }

    /// How many idle drawings of one child and scale are kept, and of all children.
    static let idlePerKey = 2
    static let idleLimit = 8

    /// Title, shape and image rasters of every core of the render.
    let rasters = RasterCache()
    /// Render cores made for children so far (a see-through child's pair counts two): 20 uses in turn of one
    /// child make as many as one use.
    private(set) var childCoresMade = 0
    private var idle: [(key: DrawingKey, drawing: CompositionVideoReader.Drawing)] = []
    private var latest: [DrawingKey: (index: Int64, picture: VideoFrame)] = [:]

    /// An idle drawing of `child` at `scale`, or one made by `make` (which returns how many cores it made).
    func drawing(of child: NestedComposition, scale: Int,
                 make: () throws(RenderError) -> (CompositionVideoReader.Drawing, cores: Int))
        throws(RenderError) -> CompositionVideoReader.Drawing
    {
        let key = DrawingKey(child: child, scale: scale)
        if let index = idle.lastIndex(where: { $0.key == key }) {
            return idle.remove(at: index).drawing
        }
        let (made, cores) = try make()
        childCoresMade += cores
        return made
    }

    /// Keeps `drawings` of `child`, which their use no longer holds, for the next use; the oldest go beyond the
    /// limits.
    func release(_ drawings: [CompositionVideoReader.Drawing], of child: NestedComposition) {
        for drawing in drawings {
            let key = DrawingKey(child: child, scale: drawing.scale)
            if idle.count(where: { $0.key == key }) >= Self.idlePerKey,
                let oldest = idle.firstIndex(where: { $0.key == key }) {
                idle.remove(at: oldest)
            }
            idle.append((key, drawing))
        }
        if idle.count > Self.idleLimit { idle.removeFirst(idle.count - Self.idleLimit) }
    }

    /// The picture of frame `index` of `child` at `scale` when it is the latest one drawn.
    func picture(of child: NestedComposition, scale: Int, index: Int64) -> VideoFrame? {
        guard let known = latest[DrawingKey(child: child, scale: scale)], known.index == index else { return nil }
        return known.picture
    }

    /// Records `picture` as frame `index` of `child` at `scale`, the latest drawn.
    func keep(_ picture: VideoFrame, of child: NestedComposition, scale: Int, index: Int64) {
        latest[DrawingKey(child: child, scale: scale)] = (index, picture)
    }
}

/// The sound of compositions no use plays now, kept by one outermost `AudioMixer` and handed to every mixer below
/// it (a child's sound is mixed on its parent's thread, so no lock): the next use of the same child (the same
/// `with`) at the same sample rate and channels takes an idle reader, with its mixer, open decoders and effect
/// graphs, instead of opening its own. A child's mix is a function of the sample asked for (its mixer moves its
/// readers, stretches and effect chains wherever it is read from), so a reader used before gives the samples a
/// new one would. Uses heard at the same time each hold their own. At most 2 idle readers per child and 8 in all.
final class NestedSounds {
    private struct Key: Hashable {
        let child: NestedComposition
        let sampleRate: Int
        let channels: Int
    }

    static let idlePerKey = 2
    static let idleLimit = 8

    /// Child mixers made so far (tests: 20 uses in turn of one child make as many as one).
    private(set) var mixersMade = 0
    private var idle: [(key: Key, reader: CompositionAudioReader)] = []

    /// An idle reader of `child`'s mix at `sampleRate` Hz in `channels`, or one made by `make`.
    func reader(of child: NestedComposition, sampleRate: Int, channels: Int,
                make: () throws(RenderError) -> CompositionAudioReader) throws(RenderError) -> CompositionAudioReader {
        let key = Key(child: child, sampleRate: sampleRate, channels: channels)
        if let index = idle.lastIndex(where: { $0.key == key }) { return idle.remove(at: index).reader }
        let made = try make()
        mixersMade += 1
        return made
    }

    /// Keeps `reader`, which its use no longer holds, for the next use; the oldest go beyond the limits.
    func release(_ reader: CompositionAudioReader) {
        let key = Key(child: reader.child, sampleRate: reader.sampleRate, channels: reader.channels)
        if idle.count(where: { $0.key == key }) >= Self.idlePerKey, let oldest = idle.firstIndex(where: { $0.key == key }) {
            idle.remove(at: oldest)
        }
        idle.append((key, reader))
        if idle.count > Self.idleLimit { idle.removeFirst(idle.count - Self.idleLimit) }
    }
}

/// Layer rasters (`LayerPicture`) by what they are drawn from: the text and its style, the shape, the image file
/// and size, the scale, and where the layer rests on the canvas (its pixel phase). Every core of one render asks
/// it before rasterising, so a title used by 20 uses of a composition is laid out and drawn once. Holds at most
/// `budget` bytes of pictures, the oldest dropped first; pictures are immutable, so sharing them is safe.
final class RasterCache {
    struct Key: Hashable {
        enum Drawn: Hashable {
            case text(TextStyle)
            case shape(ShapeStyle)
            case image(path: String, size: PixelSize?)
        }
        let drawn: Drawn
        let scale: Double
        /// Where the layout box's centre rests on the canvas, in canvas pixels.
        let rest: LayerPoint
    }

    /// The most bytes of pictures kept.
    static let budget = 64 << 20

    /// Rasters made through the cache so far (tests: 20 uses of one title make as many as one).
    private(set) var made = 0
    private var pictures: [Key: LayerPicture] = [:]
    private var order: [Key] = []
    private var bytes = 0

    /// The picture for `key`, made by `make` the first time.
    func picture(_ key: Key, make: () throws(RenderError) -> LayerPicture) throws(RenderError) -> LayerPicture {
        if let known = pictures[key] { return known }
        let picture = try make()
        made += 1
        let size = Self.size(of: picture)
        guard size <= Self.budget / 4 else { return picture }
        while bytes + size > Self.budget, !order.isEmpty {
            let oldest = order.removeFirst()
            if let dropped = pictures.removeValue(forKey: oldest) { bytes -= Self.size(of: dropped) }
        }
        pictures[key] = picture
        order.append(key)
        bytes += size
        return picture
    }

    private static func size(of picture: LayerPicture) -> Int {
        let frame = picture.frame
        return 2 * frame.width * frame.height + 2 * ((frame.width + 1) / 2) * ((frame.height + 1) / 2)
    }
}

/// The two cores of a see-through child (`CompositionVideoReader.transparent`) read the same source pictures at
/// the same times, the one over black first: its readers (`leader`) keep the latest pictures they gave, and the
/// other core's readers (`follower`) take them, so the pair decodes its media once. A follower's n-th reader of a
/// file pairs with the leader's n-th (the two cores have the same tracks and ask at the same times); a picture the
/// leader did not give is decoded by a reader of the follower's own, opened then.
final class DecodedPair {
    private struct ReaderKey: Hashable {
        let path: String
        let stream: Int
        let reversed: Bool
    }

    private var leaders: [ReaderKey: [Int: TeeReader]] = [:]
    private var opened: [ReaderKey: Int] = [:]
    private var taken: [ReaderKey: Int] = [:]

    /// The opener of the core drawn first.
    func leader(_ base: any SourceOpener) -> any SourceOpener { PairOpener(base: base, pair: self, leads: true) }
    /// The opener of the core drawn second.
    func follower(_ base: any SourceOpener) -> any SourceOpener { PairOpener(base: base, pair: self, leads: false) }

    fileprivate func lead(_ reader: any VideoSourceReader, path: String, stream: Int, reversed: Bool) -> any VideoSourceReader {
        let key = ReaderKey(path: path, stream: stream, reversed: reversed)
        let tee = TeeReader(reader)
        let number = opened[key, default: 0]
        opened[key] = number + 1
        leaders[key, default: [:]][number] = tee
        return tee
    }

    fileprivate func follow(path: String, stream: Int, reversed: Bool,
                            open: @escaping () throws(MediaError) -> any VideoSourceReader) -> any VideoSourceReader {
        let key = ReaderKey(path: path, stream: stream, reversed: reversed)
        let number = taken[key, default: 0]
        taken[key] = number + 1
        return FollowingReader(leader: leaders[key]?.removeValue(forKey: number), open: open)
    }

    /// A reader that remembers the pictures it gave last.
    private final class TeeReader: VideoSourceReader {
        private let reader: any VideoSourceReader
        /// The latest answers, newest last.
        private(set) var given: [(time: Time, picture: VideoFrame)] = []

        init(_ reader: any VideoSourceReader) { self.reader = reader }

        func frame(at sourceTime: Time) throws(MediaError) -> VideoFrame {
            let picture = try reader.frame(at: sourceTime)
            given.append((sourceTime, picture))
            if given.count > 2 { given.removeFirst() }
            return picture
        }
    }

    /// A reader answering from its leader's latest pictures, or from a reader of its own when they do not hold the
    /// time asked.
    private final class FollowingReader: VideoSourceReader {
        private let leader: TeeReader?
        private let open: () throws(MediaError) -> any VideoSourceReader
        private var own: (any VideoSourceReader)?

        init(leader: TeeReader?, open: @escaping () throws(MediaError) -> any VideoSourceReader) {
            self.leader = leader
            self.open = open
        }

        func frame(at sourceTime: Time) throws(MediaError) -> VideoFrame {
            if let given = leader?.given.last(where: { $0.time == sourceTime }) { return given.picture }
            if own == nil { own = try open() }
            return try own!.frame(at: sourceTime)
        }
    }

    private struct PairOpener: SourceOpener {
        let base: any SourceOpener
        let pair: DecodedPair
        let leads: Bool

        func openVideo(path: String, stream: Int) throws(MediaError) -> any VideoSourceReader {
            guard leads else {
                return pair.follow(path: path, stream: stream, reversed: false) { [base] () throws(MediaError) in
                    try base.openVideo(path: path, stream: stream)
                }
            }
            return pair.lead(try base.openVideo(path: path, stream: stream), path: path, stream: stream, reversed: false)
        }

        func openReversedVideo(path: String, stream: Int) throws(MediaError) -> any VideoSourceReader {
            guard leads else {
                return pair.follow(path: path, stream: stream, reversed: true) { [base] () throws(MediaError) in
                    try base.openReversedVideo(path: path, stream: stream)
                }
            }
            return pair.lead(try base.openReversedVideo(path: path, stream: stream), path: path, stream: stream,
                             reversed: true)
        }

        func openAudio(path: String, stream: Int, sampleRate: Int, channels: Int) throws(MediaError)
            -> any AudioSourceReader {
            try base.openAudio(path: path, stream: stream, sampleRate: sampleRate, channels: channels)
        }

        func openPackets(path: String) throws(MediaError) -> any PacketSource { try base.openPackets(path: path) }

        func probe(path: String) throws(MediaError) -> MediaInfo { try base.probe(path: path) }
    }
}
