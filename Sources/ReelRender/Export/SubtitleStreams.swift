import ReelMedia
import ReelModel
import ReelTime

/// One soft subtitle stream of an export: compiled captions whose mode is `stream` or `both`, as events in the
/// output's own time (docs/captions.md, "Subtitle streams").
struct SubtitleTrackPlan {
    /// One event: ASS event fields and text as FFmpeg's encoders read them, and its output time in milliseconds.
    struct Event {
        let line: String
        let start: Int64
        let end: Int64
    }

    let settings: SubtitleStreamSettings
    /// Ascending start.
    let events: [Event]

    /// The subtitle streams of `project` for an export of movie time [start, end) into container `container`
    /// (a muxer name). The codec follows the container: mov_text in MP4 and MOV, WebVTT in WebM, ASS in Matroska for
    /// ASS and SSA files and WebVTT there otherwise. A container that holds no text subtitles is `.unsupported`.
    static func plans(project: CompiledProject, from start: Time, to end: Time, container: String)
        throws(RenderError) -> [SubtitleTrackPlan]
    {
        let streamed = project.videoComposition.captions.filter { $0.captions.mode.streams }
        guard !streamed.isEmpty else { return [] }
        let anyMarkedDefault = streamed.contains { $0.captions.isDefault == true }
        var plans: [SubtitleTrackPlan] = []
        for (index, entry) in streamed.enumerated() {
            let codec: SubtitleCodec
            switch container {
            case "mp4", "mov": codec = .movText
            case "webm": codec = .webVTT
            case "matroska": codec = entry.assHeader != nil ? .ass : .webVTT
            default:
                throw RenderError(.unsupported, "\(entry.captions.path.key("mode")): subtitle streams need an MP4, MOV, "
                                      + "WebM or Matroska output, not \(container); use \"mode\": \"burn\" for this output")
            }
            guard codec.fits(formatName: container) else {
                throw RenderError(.unsupported, "the \(container) muxer of this FFmpeg cannot hold \(codec.rawValue) subtitles")
            }
            let header = entry.assHeader
                ?? CaptionScript.header(for: entry.captions.style, renderSize: project.videoComposition.renderSize, family: nil)
            // A transcript's highlight boxes are events of their own, drawn under the page; no text stream shows them.
            let shown = entry.cues.filter { $0.style != CaptionStyle.boxStyleName }
            let events = codec == .movText ? slices(shown, from: start, to: end) : cues(shown, from: start, to: end)
            let isDefault = entry.captions.isDefault ?? (!anyMarkedDefault && index == 0)
            plans.append(SubtitleTrackPlan(
                settings: SubtitleStreamSettings(codec: codec, header: header, language: entry.captions.language,
                                                 isDefault: isDefault),
                events: events))
        }
        return plans
    }

    /// Output milliseconds of movie time `t` in an export starting at `start`, to the nearest.
    private static func milliseconds(_ t: Time, from start: Time) -> Int64? {
        guard let offset = try? t - start else { return nil }
        return try? offset.count(atRate: 1000, rounding: .nearest)
    }

    private static func line(_ cue: CaptionCue, order: Int, text: String) -> String {
        ["\(order)", "\(cue.layer)", cue.style ?? "Default", cue.name.replacingOccurrences(of: ",", with: " "),
         "\(cue.marginLeft)", "\(cue.marginRight)", "\(cue.marginVertical)",
         cue.effect.replacingOccurrences(of: ",", with: " "), text].joined(separator: ",")
    }

    /// Each cue cut to [start, end), in start order (ties in file order); overlapping cues stay separate events.
    private static func cues(_ cues: [CaptionCue], from start: Time, to end: Time) -> [Event] {
        var events: [Event] = []
        for (order, cue) in cues.enumerated() {
            let from = max(cue.start, start), to = min(cue.end, end)
            guard from < to, let a = milliseconds(from, from: start), let b = milliseconds(to, from: start), a < b else {
                continue
            }
            events.append(Event(line: line(cue, order: order, text: cue.text), start: a, end: b))
        }
        return events.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element)
    }

    /// Timed text samples cannot overlap: the time is cut where any cue starts or ends, and each piece shows the
    /// cues over it, earlier-starting first, one above the other.
    private static func slices(_ cues: [CaptionCue], from start: Time, to end: Time) -> [Event] {
        var cuts = Set<Time>()
        for cue in cues where cue.start < end && start < cue.end {
            cuts.insert(max(cue.start, start))
            cuts.insert(min(cue.end, end))
        }
        let ordered = cuts.sorted()
        var events: [Event] = []
        for (a, b) in zip(ordered, ordered.dropFirst()) {
            let shown = cues.enumerated().filter { $0.element.start <= a && b <= $0.element.end }
                .sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }
            guard let first = shown.first, let from = milliseconds(a, from: start), let to = milliseconds(b, from: start),
                  from < to else { continue }
            let text = shown.map(\.element.text).joined(separator: "\\N")
            events.append(Event(line: line(first.element, order: events.count, text: text), start: from, end: to))
        }
        return events
    }
}

/// Writes a plan's events into its muxer stream as the export reaches their start, so they interleave with the
/// picture; `finish` writes the rest before the container's trailer.
final class SubtitleWriter {
    private let encoder: SubtitleEncoder
    private let events: [SubtitleTrackPlan.Event]
    private var next = 0

    init(plan: SubtitleTrackPlan, muxer: Muxer) throws(MediaError) {
        encoder = try muxer.addSubtitles(plan.settings)
        events = plan.events
    }

    /// Writes the events starting before `milliseconds` of output time.
    func write(before milliseconds: Int64) throws(MediaError) {
        while next < events.count, events[next].start < milliseconds {
            let event = events[next]
            try encoder.encode(line: event.line, startMilliseconds: event.start, endMilliseconds: event.end)
            next += 1
        }
    }

    /// Writes every event not yet written.
    func finish() throws(MediaError) {
        try write(before: .max)
    }
}
