import ReelTime

/// Why an edit of a `MutableComposition` was refused; the composition is left unchanged.
public enum EditError: Error, Equatable, Sendable {
    /// No track has this id.
    case unknownTrack(Int)
    /// A track with this id already exists.
    case duplicateTrackID(Int)
    /// Track ids are 1…2^31 − 1.
    case invalidTrackID(Int)
    /// Asset ids are non-empty.
    case emptyAssetID
    /// A time or range starts before zero (composition and source times are never negative).
    case negativeTime(Time)
    /// A range or duration that must be longer than zero is empty.
    case emptyRange
    /// Two segments of the track overlap in composition time (from `init(_:)`).
    case overlappingSegments(track: Int)
    /// A media segment has an empty source or target range, is reversed or frozen (the editing calls cut and move
    /// forward segments only), or an empty edit carries a source (from `init(_:)`).
    case invalidSegment(track: Int)
    /// Exact rational arithmetic left the 64-bit range (`TimeError.overflow`), or failed otherwise.
    case arithmetic(TimeError)
}

/// Builds a `Composition` in code (AVMutableComposition): add tracks, insert time ranges of assets,
/// insert empty ranges, remove ranges, scale ranges. Exact in rational time; never traps.
///
/// All times are composition (target) seconds unless named `source`. Tracks are kept in a normal form:
/// segments cover `[0, end)` contiguously in ascending order, stretches without media are explicit
/// empty edits, no segment is zero-length, adjacent empty edits are one, a track never ends in an
/// empty edit, and adjacent media segments that continue each other (same asset, stream and pitch,
/// source contiguous, equal rate) are one. So equal edits give equal compositions, and an insert
/// followed by the removal of the inserted range gives back the original.
///
/// ```
/// var edit = MutableComposition()
/// let video = try edit.addTrack(.video)
/// try edit.insertTimeRange(TimeRange(start: .zero, duration: Time(seconds: 10)), of: "cat", into: video, at: .zero)
/// try edit.scaleTimeRange(TimeRange(start: Time(seconds: 2), duration: Time(seconds: 4)), toDuration: Time(seconds: 2))
/// let composition = edit.composition   // cat 0–2 at 0–2, 2–6 at 2–4 (rate 2), 6–10 at 4–8
/// ```
/// Every edit either succeeds entirely or throws and changes nothing.
public struct MutableComposition: Sendable, Hashable {
    /// The tracks in the order they were added, segments in normal form.
    public private(set) var tracks: [CompositionTrack]

    /// An empty composition without tracks.
    public init() {
        tracks = []
    }

    /// Starts from an existing composition; its tracks are brought into normal form (gaps become
    /// empty edits, continuing segments merge). Its `duration` is not kept: see `composition`.
    ///
    /// Throws for invalid track ids (or duplicates), overlapping segments, negative times and empty segments.
    public init(_ composition: Composition) throws(EditError) {
        tracks = []
        for track in composition.tracks {
            try checkNewTrackID(track.id)
            let segments = try Self.normalTrack(from: track)
            tracks.append(CompositionTrack(id: track.id, kind: track.kind, segments: segments, name: track.name))
        }
    }

    /// The composition built so far; its duration is the end of the longest track (zero without segments).
    public var composition: Composition {
        Composition(tracks: tracks, duration: duration)
    }

    /// The end of the longest track, in composition seconds.
    public var duration: Time {
        tracks.map(\.end).max() ?? .zero
    }

    /// The track with this id.
    public func track(_ id: Int) -> CompositionTrack? {
        tracks.first { $0.id == id }
    }

    // MARK: Tracks

    /// Adds an empty track and returns its id: `id` when given, else the lowest unused positive id.
    ///
    /// `name` is optional; `"main"` names the storyline's audio track.
    @discardableResult
    public mutating func addTrack(_ kind: TrackKind, id: Int? = nil, name: String? = nil) throws(EditError) -> Int {
        let trackID: Int
        if let id {
            try checkNewTrackID(id)
            trackID = id
        } else {
            let used = Set(tracks.map(\.id))
            // At most `tracks.count` ids are taken, so one of 1...count + 1 is free.
            trackID = (1...(tracks.count + 1)).first { !used.contains($0) } ?? tracks.count + 1
        }
        tracks.append(CompositionTrack(id: trackID, kind: kind, segments: [], name: name))
        return trackID
    }

    /// Removes the track with this id.
    public mutating func removeTrack(_ id: Int) throws(EditError) {
        guard let index = tracks.firstIndex(where: { $0.id == id }) else { throw .unknownTrack(id) }
        tracks.remove(at: index)
    }

    // MARK: Edits

    /// Inserts `sourceRange` of `asset` (source seconds) into one track at composition time `time`, at rate 1.
    ///
    /// Later segments of that track move right by `sourceRange.duration`; a segment containing `time`
    /// is split there (a scaled segment at the exactly mapped source time). Inserting after the track's
    /// end first fills the stretch up to `time` with an empty edit. Other tracks do not change.
    /// `sourceTrack` is the stream index in the asset's file (nil: the default stream of the track's kind).
    public mutating func insertTimeRange(_ sourceRange: TimeRange, of asset: String, sourceTrack: Int? = nil,
                                         into track: Int, at time: Time, pitch: Pitch = .keep) throws(EditError) {
        guard !asset.isEmpty else { throw .emptyAssetID }
        guard !sourceRange.start.isNegative else { throw .negativeTime(sourceRange.start) }
        guard !sourceRange.isEmpty else { throw .emptyRange }
        guard !time.isNegative else { throw .negativeTime(time) }
        guard let index = tracks.firstIndex(where: { $0.id == track }) else { throw .unknownTrack(track) }
        var segments = tracks[index].segments
        do {
            let end = tracks[index].end
            if time > end {
                segments.append(Segment(emptyTarget: try TimeRange(start: end, end: time)))
            } else {
                try Self.split(&segments, at: time)
            }
            let target = try TimeRange(start: time, duration: sourceRange.duration)
            let inserted = Segment(asset: asset, sourceTrack: sourceTrack, source: sourceRange, target: target, pitch: pitch)
            let later = segments.firstIndex { $0.target.start >= time } ?? segments.endIndex
            for position in later..<segments.endIndex {
                segments[position] = try Self.moved(segments[position], to: segments[position].target.start + sourceRange.duration)
            }
            segments.insert(inserted, at: later)
        } catch {
            throw .arithmetic(error)
        }
        tracks[index].segments = Self.normalized(segments)
    }

    /// Inserts an empty edit over `range` into every track that extends past `range.start`.
    ///
    /// Later segments move right by `range.duration`; a segment containing `range.start` is split there.
    /// A track ending at or before `range.start` does not change (it would only gain a trailing empty edit).
    public mutating func insertEmptyTimeRange(_ range: TimeRange) throws(EditError) {
        try checkEditRange(range)
        try editEveryTrack { (segments: inout [Segment]) throws(TimeError) in
            guard let last = segments.last, last.target.end > range.start else { return }
            try Self.split(&segments, at: range.start)
            let later = segments.firstIndex { $0.target.start >= range.start } ?? segments.endIndex
            for position in later..<segments.endIndex {
                segments[position] = try Self.moved(segments[position], to: segments[position].target.start + range.duration)
            }
            segments.insert(Segment(emptyTarget: range), at: later)
        }
    }

    /// Removes `range` from every track: what lies inside goes, later segments move left by `range.duration`.
    ///
    /// Segments crossing `range.start` or `range.end` are trimmed there, at exactly mapped source times.
    /// Parts of the range past a track's end remove nothing from it.
    public mutating func removeTimeRange(_ range: TimeRange) throws(EditError) {
        try checkEditRange(range)
        try editEveryTrack { (segments: inout [Segment]) throws(TimeError) in
            try Self.split(&segments, at: range.start)
            try Self.split(&segments, at: range.end)
            var kept: [Segment] = []
            kept.reserveCapacity(segments.count)
            for segment in segments {
                if segment.target.end <= range.start {
                    kept.append(segment)
                } else if segment.target.start >= range.end {
                    kept.append(try Self.moved(segment, to: segment.target.start - range.duration))
                }
            }
            segments = kept
        }
    }

    /// Scales `range` of every track to last `duration`: each segment inside it keeps its source range
    /// and gets a target range scaled by `duration / range.duration` about `range.start`, so its rate
    /// is multiplied by `range.duration / duration`. Segments crossing the range's ends are split there
    /// first; later segments move by `duration − range.duration`.
    ///
    /// A track ending inside the range scales up to its end only; one ending at or before `range.start` does not change.
    public mutating func scaleTimeRange(_ range: TimeRange, toDuration duration: Time) throws(EditError) {
        try checkEditRange(range)
        guard !duration.isNegative else { throw .negativeTime(duration) }
        guard !duration.isZero else { throw .emptyRange }
        let factor: Rational
        let shift: Time
        do {
            factor = try duration.ratio(to: range.duration)
            shift = try duration - range.duration
        } catch {
            throw .arithmetic(error)
        }
        /// `range.start + (t − range.start) × factor`: the new place of time `t` inside the range.
        func scaled(_ t: Time) throws(TimeError) -> Time {
            try range.start + (t - range.start).multiplied(by: factor)
        }
        try editEveryTrack { (segments: inout [Segment]) throws(TimeError) in
            try Self.split(&segments, at: range.start)
            try Self.split(&segments, at: range.end)
            for (position, segment) in segments.enumerated() where segment.target.end > range.start {
                if segment.target.start >= range.end {
                    segments[position] = try Self.moved(segment, to: segment.target.start + shift)
                } else {
                    let target = try TimeRange(start: scaled(segment.target.start), end: scaled(segment.target.end))
                    segments[position] = Self.retargeted(segment, to: target)
                }
            }
        }
    }

    // MARK: Checks

    private func checkNewTrackID(_ id: Int) throws(EditError) {
        guard id >= 1, id <= Int(Int32.max) else { throw .invalidTrackID(id) }
        guard !tracks.contains(where: { $0.id == id }) else { throw .duplicateTrackID(id) }
    }

    private func checkEditRange(_ range: TimeRange) throws(EditError) {
        guard !range.start.isNegative else { throw .negativeTime(range.start) }
        guard !range.isEmpty else { throw .emptyRange }
    }

    /// Applies `edit` to every track's segments; commits all tracks only when every track succeeded.
    private mutating func editEveryTrack(_ edit: (inout [Segment]) throws(TimeError) -> Void) throws(EditError) {
        var edited = tracks
        do {
            for index in edited.indices {
                var segments = edited[index].segments
                try edit(&segments)
                edited[index].segments = Self.normalized(segments)
            }
        } catch {
            throw .arithmetic(error)
        }
        tracks = edited
    }

    // MARK: Segment surgery

    /// Makes `t` a segment boundary: splits the segment with `start < t < end`, if any.
    private static func split(_ segments: inout [Segment], at t: Time) throws(TimeError) {
        guard let index = segments.firstIndex(where: { $0.target.start < t && t < $0.target.end }) else { return }
        let segment = segments[index]
        let headTarget = try TimeRange(start: segment.target.start, end: t)
        let tailTarget = try TimeRange(start: t, end: segment.target.end)
        guard let asset = segment.asset, let mapping = segment.mapping else {
            segments.replaceSubrange(index...index, with: [Segment(emptyTarget: headTarget), Segment(emptyTarget: tailTarget)])
            return
        }
        let cut = try mapping.sourceTime(atTarget: t)
        let head = Segment(asset: asset, sourceTrack: segment.sourceTrack,
                           source: try TimeRange(start: mapping.source.start, end: cut), target: headTarget, pitch: segment.pitch)
        let tail = Segment(asset: asset, sourceTrack: segment.sourceTrack,
                           source: try TimeRange(start: cut, end: mapping.source.end), target: tailTarget, pitch: segment.pitch)
        segments.replaceSubrange(index...index, with: [head, tail])
    }

    /// The segment with its target moved to start at `start`, same durations.
    private static func moved(_ segment: Segment, to start: Time) throws(TimeError) -> Segment {
        retargeted(segment, to: try TimeRange(start: start, duration: segment.target.duration))
    }

    /// The segment shown over `target` instead, same source.
    private static func retargeted(_ segment: Segment, to target: TimeRange) -> Segment {
        guard let asset = segment.asset, let source = segment.source else { return Segment(emptyTarget: target) }
        return Segment(asset: asset, sourceTrack: segment.sourceTrack, source: source, target: target, pitch: segment.pitch)
    }

    /// Drops zero-length segments, merges continuing neighbours, drops trailing empty edits.
    /// Expects contiguous segments in ascending order.
    private static func normalized(_ segments: [Segment]) -> [Segment] {
        var result: [Segment] = []
        result.reserveCapacity(segments.count)
        for segment in segments where !segment.target.isEmpty {
            if let last = result.last, let merged = merged(last, segment) {
                result[result.count - 1] = merged
            } else {
                result.append(segment)
            }
        }
        while result.last?.isEmpty == true { result.removeLast() }
        return result
    }

    /// One segment equal to `first` followed by `second`, when they continue each other.
    private static func merged(_ first: Segment, _ second: Segment) -> Segment? {
        guard first.target.end == second.target.start,
              let target = try? TimeRange(start: first.target.start, end: second.target.end) else { return nil }
        if first.isEmpty && second.isEmpty { return Segment(emptyTarget: target) }
        guard let asset = first.asset, asset == second.asset, first.sourceTrack == second.sourceTrack,
              first.pitch == second.pitch,
              let firstMapping = first.mapping, let secondMapping = second.mapping,
              firstMapping.source.end == secondMapping.source.start,
              let firstRate = try? firstMapping.rate, let secondRate = try? secondMapping.rate, firstRate == secondRate,
              let source = try? TimeRange(start: firstMapping.source.start, end: secondMapping.source.end)
        else { return nil }
        return Segment(asset: asset, sourceTrack: first.sourceTrack, source: source, target: target, pitch: first.pitch)
    }

    /// A track's segments in normal form: sorted, gaps filled with empty edits, checked.
    private static func normalTrack(from track: CompositionTrack) throws(EditError) -> [Segment] {
        var filled: [Segment] = []
        var end = Time.zero
        for segment in track.segments.sorted(by: { $0.target.start < $1.target.start }) {
            guard !segment.target.start.isNegative else { throw .negativeTime(segment.target.start) }
            guard !segment.target.isEmpty, segment.timing == .forward else { throw .invalidSegment(track: track.id) }
            if let source = segment.source {
                guard segment.asset != nil, !source.isEmpty, !source.start.isNegative else {
                    throw .invalidSegment(track: track.id)
                }
            } else if segment.asset != nil {
                throw .invalidSegment(track: track.id)
            }
            guard segment.target.start >= end else { throw .overlappingSegments(track: track.id) }
            do {
                if segment.target.start > end {
                    filled.append(Segment(emptyTarget: try TimeRange(start: end, end: segment.target.start)))
                }
            } catch {
                throw .arithmetic(error)
            }
            // Rebuilt so that `mapping` agrees with `source` and `target` even if they were edited directly.
            filled.append(retargeted(segment, to: segment.target))
            end = segment.target.end
        }
        return normalized(filled)
    }
}
