import ReelModel
import ReelTime

/// Where something in an imported file was written: a line of an EDL or a JSON path in an OTIO file.
public struct ImportOrigin: Sendable, Hashable, CustomStringConvertible {
    /// The file's name as given on the command line (for messages).
    public var file: String
    /// The 1-based line of an EDL.
    public var line: Int?
    /// The path inside an OTIO document.
    public var jsonPath: JSONPath?
    /// The EDL event number as written ("003").
    public var event: String?

    /// An origin in `file`.
    public init(file: String, line: Int? = nil, jsonPath: JSONPath? = nil, event: String? = nil) {
        self.file = file
        self.line = line
        self.jsonPath = jsonPath
        self.event = event
    }

    /// `edit.edl:12`, `edit.otio` (the JSON path goes into a diagnostic's `path`).
    public var label: String {
        line.map { "\(file):\($0)" } ?? file
    }

    /// `edit.edl:12 (event 003)` or `edit.otio $.tracks.children[0]`.
    public var description: String {
        var text = label
        if let jsonPath { text += " \(jsonPath)" }
        if let event { text += " (event \(event))" }
        return text
    }

    /// A diagnostic located here.
    func diagnostic(_ severity: Severity, _ message: String, hint: String? = nil,
                    category: DiagnosticCategory = .invalid) -> Diagnostic {
        var diagnostic = Diagnostic(severity, path: jsonPath ?? .root,
                                    message: (event.map { "event \($0): " } ?? "") + message,
                                    hint: hint, category: category)
        diagnostic.origin = DiagnosticOrigin(file: file, line: line)
        return diagnostic
    }
}

/// The media an imported clip names, before relinking.
public struct MediaLink: Sendable, Hashable {
    /// A path or URL written in the file (OTIO `target_url`, EDL `* SOURCE FILE:` / `* FROM CLIP:`), if any.
    public var locator: String?
    /// Names to look the medium up by under `--media-dir` and in a relink map, most specific first
    /// (clip name, then reel name).
    public var names: [String]

    /// A link with a locator and lookup names.
    public init(locator: String?, names: [String]) {
        self.locator = locator
        self.names = names
    }
}

/// What a piece of an imported track shows.
public enum PieceContent: Sendable, Hashable {
    /// A medium to be relinked; `audio` says whether the clip's own sound plays.
    case media(MediaLink)
    /// Black picture and silence (EDL reel `BL`, an OTIO gap a transition fades through).
    case black
    /// A solid colour, `#RRGGBB` (OTIO generator references for solid colours).
    case color(String)
    /// Media the file does not locate at all (OTIO `MissingReference`, an empty `target_url`).
    case missing
    /// A nested OTIO stack kept whole: it becomes an entry of the project's `compositions`, shown by a clip of it
    /// (the piece's source time is the stack's own time).
    indirect case composition(ImportedComposition)
}

/// A nested OTIO `Stack` kept as a composition (docs/interchange.md, "Nested stacks"): its layers laid out in its
/// own time from 0, untrimmed (the piece showing it carries the stack's `source_range` as its source start and
/// duration, and its time effects as speed or freeze).
public struct ImportedComposition: Sendable, Hashable {
    /// The stack's name ("" when it has none).
    public var name: String
    /// Its children as layers, bottom first; the project shows the topmost at each instant, as for the timeline.
    public var layers: [ImportedTrack]
    /// The length of its content: the longest layer.
    public var duration: Time
    /// Where the stack was written.
    public var origin: ImportOrigin

    /// A composition of layers.
    public init(name: String, layers: [ImportedTrack], duration: Time, origin: ImportOrigin) {
        self.name = name
        self.layers = layers
        self.duration = duration
        self.origin = origin
    }
}

extension ImportedComposition {
    /// Whether a clip of the composition (`piece`: source start and speed in the composition's time) can start
    /// `before` early and run on `after` longer (record time) showing what the flattened composition would show
    /// there: the topmost item at each edge of the shown range continues through the handle in the composition's
    /// own layout (so its media handles are the composition's frames), with no transition of the composition's
    /// own reaching into the handle. A freeze is not extended (it is flattened beside a transition).
    func holdsHandles(of piece: ImportedPiece, before: Time, after: Time) -> Bool {
        guard !piece.freeze, let used = try? piece.recordDuration.multiplied(by: piece.speed),
              let end = try? piece.sourceStart + used,
              let headStart = try? piece.sourceStart - before.multiplied(by: piece.speed),
              let tailEnd = try? end + after.multiplied(by: piece.speed),
              !headStart.isNegative, tailEnd <= duration
        else { return false }
        var ignored: [Diagnostic] = []
        let items = flattened(layers, frameDuration: Time(seconds: 1), diagnostics: &ignored).pieces
        if before > .zero {
            guard let first = items.first(where: { $0.recordStart <= piece.sourceStart && $0.recordEnd > piece.sourceStart }),
                  first.recordStart <= headStart,
                  (first.transitionIn.map { (try? first.recordStart + $0.outOffset) ?? first.recordEnd } ?? .zero) <= headStart
            else { return false }
        }
        if after > .zero {
            guard let last = items.first(where: { $0.recordStart < end && $0.recordEnd >= end }), last.recordEnd >= tailEnd,
                  !items.contains(where: { next in
                      guard next.recordStart >= end, let transition = next.transitionIn,
                            let windowStart = try? next.recordStart - transition.inOffset else { return false }
                      return windowStart < tailEnd
                  })
            else { return false }
        }
        return true
    }
}

/// How an imported transition changes the pictures.
public enum ImportedTransitionKind: Sendable, Hashable {
    /// SMPTE_Dissolve, EDL `D`.
    case dissolve
    /// A straight-edge wipe whose edge travels in the direction (EDL `W001`, toucan wipes).
    case wipe(TransitionDirection)
}

/// A transition into a piece, placed around the cut at the piece's record start as OpenTimelineIO does: the window
/// is [cut − inOffset, cut + outOffset); the outgoing piece runs on for `outOffset` and the incoming one starts
/// `inOffset` early (both from their handles). An EDL dissolve has inOffset 0 and outOffset = its length.
public struct ImportedTransition: Sendable, Hashable {
    /// What it does to the pictures.
    public var kind: ImportedTransitionKind
    /// Record time before the cut (≥ 0).
    public var inOffset: Time
    /// Record time after the cut (≥ 0).
    public var outOffset: Time
    /// Where it was written.
    public var origin: ImportOrigin
    /// Whether the outgoing side is black whatever precedes the cut (an EDL pair whose zero-length line is reel
    /// `BL`): a fade in from black, not a blend with the previous clip.
    public var fromBlack = false

    /// The whole window's length, in + out.
    public var duration: Time { (try? inOffset + outOffset) ?? inOffset }
}

/// One placed piece of an imported track: record range, source position and what it shows.
public struct ImportedPiece: Sendable, Hashable {
    /// The clip's name (EDL clip name or reel, OTIO name).
    public var name: String
    /// Where it was written.
    public var origin: ImportOrigin
    /// Record (timeline) start, seconds from the start of the imported timeline.
    public var recordStart: Time
    /// Record duration (> 0, or 0 for a black piece that only carries a fade at the end of a track).
    public var recordDuration: Time
    /// What it shows.
    public var content: PieceContent
    /// Source time shown at `recordStart` (media time, seconds).
    public var sourceStart: Time
    /// Source seconds per record second (> 0); 1 is normal speed.
    public var speed: Rational = .one
    /// A freeze frame: the frame at `sourceStart` held for the whole record duration; its sound is muted.
    public var freeze = false
    /// The transition into this piece from the piece ending at `recordStart`, if any.
    public var transitionIn: ImportedTransition?
    /// Whether the piece's own sound plays with its picture (EDL `AA/V`); video-track pieces are silent otherwise.
    public var withAudio = false
    /// Whether the medium is a still image (OTIO still references, EDL `.jpg` clips).
    public var isStill = false
    /// Markers on the clip in its media's time (OTIO clip markers, EDL locators inside the event's source range),
    /// which `--markers-as-chapters` places where the piece shows them.
    public var markers: [ImportedMarker] = []

    /// The record end, exclusive.
    public var recordEnd: Time { (try? recordStart + recordDuration) ?? recordStart }

    /// The piece's markers at the record times where it shows them: source offset / speed after the record start
    /// (a freeze shows only its held instant).
    public var markersInTimelineTime: [ImportedMarker] {
        markers.compactMap { marker in
            guard let offset = try? marker.at - sourceStart, !offset.isNegative else { return nil }
            if freeze { return offset.isZero ? ImportedMarker(at: recordStart, name: marker.name) : nil }
            guard let shown = try? offset.divided(by: speed), shown < recordDuration,
                  let at = try? recordStart + shown else { return nil }
            return ImportedMarker(at: at, name: marker.name)
        }
    }
}

/// A named instant: a marker or locator, in the time of what carries it (a clip's media, or the timeline).
public struct ImportedMarker: Sendable, Hashable {
    public var at: Time
    public var name: String

    public init(at: Time, name: String) {
        self.at = at
        self.name = name
    }
}

/// One track of an imported timeline: pieces in record order, not overlapping; the stretches between them are gaps.
public struct ImportedTrack: Sendable, Hashable {
    /// Video or audio.
    public var kind: TrackKind
    /// The track's name (OTIO track name, EDL channel such as `V` or `A1`).
    public var name: String
    /// Pieces in ascending record order.
    public var pieces: [ImportedPiece]
    /// The track's length when it ends with a gap (OTIO counts trailing gaps); nil: the end of its last piece.
    public var duration: Time?

    /// A track of pieces.
    public init(kind: TrackKind, name: String, pieces: [ImportedPiece], duration: Time? = nil) {
        self.kind = kind
        self.name = name
        self.pieces = pieces
        self.duration = duration
    }

    /// An item of the track as OpenTimelineIO lists it: clips, gaps between them, transitions at cuts.
    public enum Item: Sendable, Hashable {
        /// A piece (black pieces included).
        case piece(ImportedPiece)
        /// Record time with nothing on this track.
        case gap(Time)
        /// A transition at a cut (before the piece that follows it in the list).
        case transition(ImportedTransition)
    }

    /// The track as a sequence: a leading gap from `start`, gaps between pieces, and transitions before the
    /// pieces they lead into.
    public func items(from start: Time = .zero) -> [Item] {
        var items: [Item] = []
        var position = start
        for piece in pieces {
            if piece.recordStart > position, let gap = try? piece.recordStart - position {
                items.append(.gap(gap))
            }
            if let transition = piece.transitionIn { items.append(.transition(transition)) }
            items.append(.piece(piece))
            position = piece.recordEnd
        }
        if end > position, let gap = try? end - position { items.append(.gap(gap)) }
        return items
    }

    /// The end of the track: its duration, or the end of its last piece, or 0.
    public var end: Time { max(pieces.map(\.recordEnd).max() ?? .zero, duration ?? .zero) }
}

/// An edit read from an OTIO file or an EDL, in reel's terms but before relinking and before it becomes a project.
public struct ImportedEdit: Sendable {
    /// The timeline's name (OTIO name, EDL `TITLE:`).
    public var name: String
    /// The frame rate the edit is cut at (EDL list rate, OTIO timeline rate), exact.
    public var frameRate: Rational
    /// Whether the file states the frame rate; when it does not (an OTIO file whose times are all in ticks, such as
    /// rate 24000), the project leaves `output.frameRate` to the first clip's stream.
    public var frameRateIsStated = true
    /// Video tracks, bottom first (OTIO stack order).
    public var videoTracks: [ImportedTrack]
    /// Audio tracks.
    public var audioTracks: [ImportedTrack]
    /// The record timecode of timeline time 0 (EDL first record in, OTIO `global_start_time`), seconds.
    public var startTime: Time
    /// Every problem found, errors and warnings, in file order.
    public var diagnostics: [Diagnostic]
    /// Markers and locators kept as text (`name @ time`), for `reel import`'s metadata.
    public var markers: [String]
    /// The timeline's own markers with their times (OTIO markers on the top-level stack and its tracks, EDL
    /// locators on the record side, in timeline time), which `--markers-as-chapters` turns into chapters.
    public var timedMarkers: [ImportedMarker] = []
    /// Markers that could not be placed (an EDL locator whose timecode is in neither of its event's ranges): said
    /// only when markers are asked for, so that an import that does not want them does not fail on them.
    public var markerDiagnostics: [Diagnostic] = []

    /// Whether any diagnostic is an error.
    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    /// Whether a nested stack was kept as a composition (read with `keepStacks`).
    public var hasCompositions: Bool {
        (videoTracks + audioTracks).contains { track in
            track.pieces.contains { if case .composition = $0.content { true } else { false } }
        }
    }

    /// Every marker in timeline time, in time order: the timeline's own first, then each piece's where the piece
    /// shows its instant (a marker in a part of the clip that was trimmed away is left out).
    public var markersInTimelineTime: [ImportedMarker] {
        let placed = timedMarkers + (videoTracks + audioTracks).flatMap { $0.pieces.flatMap(\.markersInTimelineTime) }
        return placed.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
    }

    /// The length of the edit: the end of the last piece on any track.
    public var duration: Time {
        (videoTracks + audioTracks).map(\.end).max() ?? .zero
    }
}
