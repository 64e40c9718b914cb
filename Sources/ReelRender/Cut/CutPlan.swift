import ReelTime

/// Why `reel cut` leaves a stretch of a source out (docs/format.md, "reel cut").
public enum CutReason: String, Sendable, Hashable {
    /// The sound stayed below `--silence` for at least `--min-silence`.
    case silence
    /// Named by `--remove`.
    case removed
    /// A kept piece shorter than `--min-clip` between two removed stretches.
    case short
    /// The picture did not change for at least `--still`.
    case still
    /// A filler word or phrase of the transcript (`--fillers`).
    case filler
    /// A word or phrase named by `--remove-words`.
    case word

    /// Whether the stretch is a transcript's word, which is cut whole (its cut widens to the grid).
    var isWord: Bool { self == .filler || self == .word }

    /// Whether the stretch was measured (silence, stillness): it gives up the margins at its ends, and is dropped
    /// when shorter than its criterion's shortest length.
    var isMeasured: Bool { self == .silence || self == .still }
}

/// A stretch of one source that a criterion wants out, in the source's time (seconds from the media's start).
public struct CutCandidate: Sendable, Hashable {
    /// The stretch, start inclusive, end exclusive.
    public var range: TimeRange
    /// Which criterion found it.
    public var reason: CutReason
    /// For silence: the highest peak level inside the stretch, in dBFS (−∞ for digital silence).
    public var level: Double?
    /// For words: the words as the transcript writes them.
    public var text: String?

    /// Creates a candidate.
    public init(range: TimeRange, reason: CutReason, level: Double? = nil, text: String? = nil) {
        self.range = range
        self.reason = reason
        self.level = level
        self.text = text
    }
}

/// The instants a cut may fall on: a video's frame boundaries, or an audio-only source's sample boundaries.
public enum CutGrid: Sendable, Hashable {
    /// Frame k starts at `start + k × frameDuration` (source seconds).
    case frames(start: Time, frameDuration: Time)
    /// Sample k starts at k / rate seconds.
    case samples(rate: Int64)

    /// The last grid instant at or before `t` (never before the grid's first instant).
    func floor(_ t: Time) throws(TimeError) -> Time { try snap(t, .down) }

    /// The first grid instant at or after `t`.
    func ceiling(_ t: Time) throws(TimeError) -> Time { try snap(t, .up) }

    /// The grid instant nearest `t` (the later one halfway between two).
    func nearest(_ t: Time) throws(TimeError) -> Time {
        let below = try floor(t), above = try ceiling(t)
        return try (t - below) < (above - t) ? below : above
    }

    private func snap(_ t: Time, _ rounding: Rounding) throws(TimeError) -> Time {
        switch self {
        case .frames(let start, let frameDuration):
            guard t > start else { return start }
            let index = try (t - start).quotient(dividingBy: frameDuration, rounding: rounding)
            return try start + Time.frames(index, frameDuration: frameDuration)
        case .samples(let rate):
            guard !t.isNegative else { return .zero }
            return Time(value: try t.count(atRate: rate, rounding: rounding), timescale: rate)
        }
    }
}

/// What decides the cut, besides the analysis: the margins, the shortest silence and clip, and stretches forced
/// in or out by hand.
public struct CutSettings: Sendable, Hashable {
    /// Silences shorter than this are kept.
    public var minimumSilence: Time
    /// Sound kept before each cut's end, where the sound comes back (`--margin-before`).
    public var marginBefore: Time
    /// Sound kept after each cut's start, where the sound stops (`--margin-after`).
    public var marginAfter: Time
    /// Kept pieces shorter than this between two cuts are cut too (0: only empty pieces go).
    public var minimumClip: Time
    /// Stretches never cut (`--keep`), source seconds.
    public var keep: [TimeRange]
    /// Stretches always cut (`--remove`), source seconds.
    public var remove: [TimeRange]

    /// The defaults of `reel cut`: silences of at least 0.5 s, 0.2 s of margin each side, no shortest clip.
    public init(minimumSilence: Time = Time(value: 1, timescale: 2), marginBefore: Time = Time(value: 1, timescale: 5),
                marginAfter: Time = Time(value: 1, timescale: 5), minimumClip: Time = .zero,
                keep: [TimeRange] = [], remove: [TimeRange] = []) {
        self.minimumSilence = minimumSilence
        self.marginBefore = marginBefore
        self.marginAfter = marginAfter
        self.minimumClip = minimumClip
        self.keep = keep
        self.remove = remove
    }
}

/// One piece of a source after planning: kept, or removed with the candidates that removed it.
public struct CutPiece: Sendable, Hashable {
    /// The piece, in source seconds; pieces of one plan are in order and cover the source without overlap.
    public var range: TimeRange
    /// Whether the piece stays in the cut.
    public var kept: Bool
    /// For a removed piece, the reasons, in order of first appearance (several when criteria overlapped).
    public var reasons: [CutReason]
    /// For a removed piece with silence among its reasons: the highest peak level found in it, in dBFS.
    public var level: Double?
    /// For a removed piece with words among its reasons: the words, in order.
    public var words: [String] = []

    /// Folds `other`, which starts at or before this piece's end, into this removed piece.
    mutating func absorb(_ other: CutPiece) throws(TimeError) {
        if other.range.end > range.end { range = try TimeRange(start: range.start, end: other.range.end) }
        for reason in other.reasons where !reasons.contains(reason) { reasons.append(reason) }
        level = CutPlanner.maxLevel(level, other.level)
        words += other.words
    }
}

/// Turns the candidates of one source into kept and removed pieces (pure: no media is read here).
///
/// In order: silences shorter than `minimumSilence` are dropped; each remaining silence and still stretch gives up
/// `marginAfter` at its start and `marginBefore` at its end (not at the source's start or end);
/// `remove` stretches and words join as they are; `keep` stretches are taken out of every candidate; overlapping or touching
/// candidates merge; each removed stretch shrinks to the grid (its start rounds up, its end down, so the cut never
/// takes sound the margins keep), except one holding words, which widens to it (no part of a filler stays); a
/// stretch reaching the source's end keeps that end; kept pieces shorter than
/// `minimumClip` between two removals are removed too (reason `short`), unless `keep` names them.
public enum CutPlanner {
    /// The pieces of a source `duration` long, in order, covering [0, duration).
    ///
    /// `shotStarts` (`--scenes`) split the kept pieces they fall in: each becomes one piece per shot, so the
    /// project has one clip per shot.
    public static func plan(duration: Time, candidates: [CutCandidate], settings: CutSettings, grid: CutGrid,
                            shotStarts: [Time] = []) throws(TimeError) -> [CutPiece]
    {
        var wanted: [CutCandidate] = []
        for candidate in candidates {
            guard candidate.reason.isMeasured else {
                wanted.append(candidate)
                continue
            }
            // Still stretches come from the scan at least `--still` long already.
            if candidate.reason == .silence, candidate.range.duration < settings.minimumSilence { continue }
            let start = candidate.range.start.isZero ? candidate.range.start : try candidate.range.start + settings.marginAfter
            let end = candidate.range.end >= duration ? candidate.range.end : try candidate.range.end - settings.marginBefore
            guard start < end else { continue }
            wanted.append(CutCandidate(range: try TimeRange(start: start, end: end), reason: candidate.reason,
                                       level: candidate.level))
        }
        for range in settings.remove { wanted.append(CutCandidate(range: range, reason: .removed)) }
        for range in settings.keep {
            var remaining: [CutCandidate] = []
            for candidate in wanted { remaining += try subtract(range, from: candidate) }
            wanted = remaining
        }

        var removals: [CutPiece] = []
        for candidate in wanted.sorted(by: { $0.range.start < $1.range.start }) {
            let start = max(candidate.range.start, .zero)
            let end = min(candidate.range.end, duration)
            guard start < end else { continue }
            let piece = CutPiece(range: try TimeRange(start: start, end: end), kept: false, reasons: [candidate.reason],
                                 level: candidate.level, words: candidate.text.map { [$0] } ?? [])
            if let last = removals.last, start <= last.range.end {
                try removals[removals.count - 1].absorb(piece)
            } else {
                removals.append(piece)
            }
        }

        // Silences and hand-made removals shrink to the grid (their margins stay whole); words widen to it (no part
        // of a filler stays).
        var snapped: [CutPiece] = []
        for var removal in removals {
            let widen = removal.reasons.contains { $0.isWord }
            let start = widen ? try grid.floor(removal.range.start) : try grid.ceiling(removal.range.start)
            let end = removal.range.end >= duration ? duration
                : widen ? min(try grid.ceiling(removal.range.end), duration) : try grid.floor(removal.range.end)
            guard start < end else { continue }
            removal.range = try TimeRange(start: start, end: end)
            if let last = snapped.last, start <= last.range.end {
                try snapped[snapped.count - 1].absorb(removal)
            } else {
                snapped.append(removal)
            }
        }
        return try split(try pieces(duration: duration, removals: snapped, settings: settings), at: shotStarts)
    }

    /// `pieces` with every kept piece cut in two at each of `instants` strictly inside it.
    private static func split(_ pieces: [CutPiece], at instants: [Time]) throws(TimeError) -> [CutPiece] {
        guard !instants.isEmpty else { return pieces }
        let sorted = instants.sorted()
        var result: [CutPiece] = []
        for piece in pieces {
            guard piece.kept else {
                result.append(piece)
                continue
            }
            var start = piece.range.start
            for instant in sorted where instant > start && instant < piece.range.end {
                result.append(CutPiece(range: try TimeRange(start: start, end: instant), kept: true, reasons: []))
                start = instant
            }
            result.append(CutPiece(range: try TimeRange(start: start, end: piece.range.end), kept: true, reasons: []))
        }
        return result
    }

    /// The kept pieces between `removals`, with kept pieces under `minimumClip` folded into their neighbours.
    private static func pieces(duration: Time, removals: [CutPiece], settings: CutSettings) throws(TimeError) -> [CutPiece] {
        var result: [CutPiece] = []
        var position = Time.zero
        func append(_ piece: CutPiece) throws(TimeError) {
            if let last = result.last, !last.kept, !piece.kept {
                try result[result.count - 1].absorb(piece)
            } else {
                result.append(piece)
            }
        }
        let bounds: [CutPiece?] = removals.map { $0 } + [nil]
        for removal in bounds {
            let keptEnd = removal?.range.start ?? duration
            if position < keptEnd {
                let kept = try TimeRange(start: position, end: keptEnd)
                let forced = settings.keep.contains { $0.intersection(kept) != nil }
                if kept.duration < settings.minimumClip, !forced, !removals.isEmpty {
                    try append(CutPiece(range: kept, kept: false, reasons: [.short], level: nil))
                } else {
                    try append(CutPiece(range: kept, kept: true, reasons: [], level: nil))
                }
            }
            if let removal {
                try append(removal)
                position = removal.range.end
            }
        }
        return result
    }

    /// `candidate` without the stretch `keep`: nothing, itself, or one or two pieces of it.
    private static func subtract(_ keep: TimeRange, from candidate: CutCandidate) throws(TimeError) -> [CutCandidate] {
        guard candidate.range.intersection(keep) != nil else { return [candidate] }
        var pieces: [CutCandidate] = []
        if candidate.range.start < keep.start {
            var before = candidate
            before.range = try TimeRange(start: candidate.range.start, end: keep.start)
            pieces.append(before)
        }
        if keep.end < candidate.range.end {
            var after = candidate
            after.range = try TimeRange(start: keep.end, end: candidate.range.end)
            pieces.append(after)
        }
        return pieces
    }

    static func maxLevel(_ a: Double?, _ b: Double?) -> Double? {
        guard let a else { return b }
        guard let b else { return a }
        return max(a, b)
    }
}
