import Foundation
import ReelModel
import ReelTime

/// Writes a compiled project's composition as OpenTimelineIO JSON (`reel export-otio`, docs/interchange.md,
/// "Export").
///
/// The video tracks reel's compiler makes for one storyline (clips alternating between two tracks, overlapping
/// only where a transition blends them) become one OTIO video track: clips, gaps, and a transition at each
/// overlap — `SMPTE_Dissolve` when an opacity ramp draws it, `SMPTE_Wipe` for a crop ramp, `Custom_Transition`
/// otherwise — placed as a CMX dissolve is (the cut at the overlap's start, in_offset 0, out_offset = the
/// overlap). Video tracks that overlap otherwise are written as separate tracks without transitions. Each audio
/// track becomes an OTIO audio track of clips and gaps (its gain ramps are not written). A segment at a speed
/// other than 1 carries a `LinearTimeWarp` whose time_scalar is its rate; the clip's source_range lasts its
/// record duration, as OTIO counts it. Times are whole frames at the output frame rate where they fall on that
/// grid, else exact ticks (value = numerator, rate = timescale). Chapters and caption cues become markers on the
/// timeline's stack, chapters first. A clip of an entry of `compositions` becomes a nested `Stack` of the entry's
/// video tracks (written the same way, at its own rate), trimmed by the clip's `source_range`, when `facts` holds
/// the loaded entry; else a gap; in an audio track the stack holds the entry's audio tracks. The topmost video
/// tracks that each show a see-through entry whole, untouched (the upper layers of a stack `reel import` keeps)
/// are written as that entry's own tracks above the others, as a stack composites them.
public enum OTIOWriter {
    /// The OTIO JSON text of `project`, and warnings about what the format cannot hold. `facts` are the probed
    /// assets (`ProbedMedia.facts`), which hold the loaded children of composition assets.
    public static func write(_ project: CompiledProject, name: String, facts: [String: MediaFactsResult] = [:])
        -> (text: String, warnings: [String])
    {
        var writer = Writer(project: project, facts: facts)
        let document = writer.timeline(name: name)
        var said: Set<String> = []
        return (JSONWriter.write(document, pretty: true) + "\n", writer.warnings.filter { said.insert($0).inserted })
    }

    private struct Writer {
        let project: CompiledProject
        let facts: [String: MediaFactsResult]
        let fps: Rational
        var warnings: [String] = []

        init(project: CompiledProject, facts: [String: MediaFactsResult]) {
            self.project = project
            self.facts = facts
            self.fps = Rational(project.frameDuration.timescale, max(1, project.frameDuration.value))
        }

        func object(_ members: [(String, JSONValue)]) -> JSONValue {
            .object(JSONObject(values: members.map { (key: $0.0, value: $0.1) }))
        }

        func number(_ value: Double) -> JSONValue {
            .number(ExactTime.decimalText(value))
        }

        func rationalTime(_ time: Time) -> JSONValue {
            let value: JSONValue
            let rate: JSONValue
            if let frames = try? time.quotient(dividingBy: project.frameDuration, rounding: .down),
               (try? Time.frames(frames, frameDuration: project.frameDuration)) == time {
                value = .number(String(frames))
                rate = number(fps.doubleValue)
            } else {
                value = .number(String(time.value))
                rate = .number(String(time.timescale))
            }
            return object([("OTIO_SCHEMA", .string("RationalTime.1")), ("rate", rate), ("value", value)])
        }

        func timeRange(start: Time, duration: Time) -> JSONValue {
            object([("OTIO_SCHEMA", .string("TimeRange.1")), ("duration", rationalTime(duration)),
                    ("start_time", rationalTime(start))])
        }

        func common(_ name: String) -> [(String, JSONValue)] {
            [("name", .string(name)), ("metadata", object([])), ("effects", .array([])), ("markers", .array([])),
             ("enabled", .bool(true))]
        }

        mutating func timeline(name: String) -> JSONValue {
            let tracks = videoTracks() + audioTracks()
            var stackMembers = common("tracks")
            let markers = chapterMarkers() + captionMarkers()
            stackMembers = stackMembers.map { $0.0 == "markers" ? ("markers", .array(markers.map { JSON($0) })) : $0 }
            let stack = object([("OTIO_SCHEMA", .string("Stack.1"))] + stackMembers + [
                ("source_range", .null), ("children", .array(tracks.map { JSON($0) })),
            ])
            return object([
                ("OTIO_SCHEMA", .string("Timeline.1")), ("metadata", object([])), ("name", .string(name)),
                ("global_start_time", .null), ("tracks", stack),
            ])
        }

        /// The video tracks: one storyline with transitions, or separate tracks when they overlap otherwise; then,
        /// above them, the tracks of each see-through layer (`seeThroughLayers`), written the same way.
        mutating func videoTracks() -> [JSONValue] {
            var tracks: [JSONValue] = []
            let all = project.composition.tracks.filter { $0.kind == .video }
            let layers = seeThroughLayers(all)
            let video = all.filter { track in !layers.contains { $0.track == track.id } }
            if let merged = storyline(video) {
                tracks.append(track("Video", kind: "Video", items: merged))
            } else {
                warnings.append("the video tracks overlap outside transitions: written as \(video.count) separate OTIO tracks without transitions")
                for composed in video {
                    tracks.append(track(composed.name ?? "Video \(composed.id)", kind: "Video",
                                        items: plainItems(composed.segments, kind: .video)))
                }
            }
            for layer in layers {
                var inner = Writer(project: layer.child.compiled, facts: layer.child.facts)
                tracks += inner.videoTracks()
                warnings += inner.warnings
            }
            return tracks
        }

        /// Each audio track as an OTIO audio track of clips and gaps (a clip of a composition: a nested stack of its
        /// audio tracks); a warning when the mix has gains, which OTIO cannot hold.
        mutating func audioTracks() -> [JSONValue] {
            var tracks: [JSONValue] = []
            for composed in project.composition.tracks where composed.kind == .audio {
                tracks.append(track(composed.name ?? "Audio \(composed.id)", kind: "Audio",
                                    items: plainItems(composed.segments, kind: .audio)))
            }
            if !project.audioMix.inputs.isEmpty {
                warnings.append("audio gains (clip volumes, fades, cross-fades, ducking) are not written: OTIO has no volume automation")
            }
            return tracks
        }

        /// The topmost video tracks that each show, untouched, the whole of a see-through entry of `compositions`
        /// (how `reel import` keeps a stack's layers above its bottom one, and how a project says "these tracks over
        /// those" by hand): one segment of an inline composition whose background is transparent, at this
        /// composition's size and rate, from its start at time 0, forwards at speed 1, to its end, drawn in every
        /// instruction it spans at full opacity, with the identity transform, no crop, backdrop, effect or matte,
        /// and used as no other layer's matte. Such a track is the same picture as the entry's own tracks laid above
        /// the tracks under it, which is how an OTIO stack composites its children; bottom to top.
        func seeThroughLayers(_ video: [CompositionTrack]) -> [(track: Int, child: NestedComposition)] {
            var layers: [(track: Int, child: NestedComposition)] = []
            for track in video.reversed() {
                guard let child = seeThroughLayer(track) else { break }
                layers.insert((track.id, child), at: 0)
            }
            return layers
        }

        func seeThroughLayer(_ track: CompositionTrack) -> NestedComposition? {
            let shown = track.segments.filter { !$0.isEmpty }
            guard shown.count == 1, let segment = shown.first, let id = segment.asset, let source = segment.source,
                  case .composition(.inline)? = project.asset(id)?.source,
                  case .facts(let known)? = facts[id], let child = known.composition else { return nil }
            let canvas = child.compiled.videoComposition
            guard canvas.background.alpha == 0, canvas.renderSize == project.videoComposition.renderSize,
                  child.compiled.frameDuration == project.frameDuration, segment.timing == .forward,
                  source.start.isZero, segment.target.start.isZero, source.duration == segment.target.duration,
                  source.duration == child.compiled.duration else { return nil }
            for instruction in project.videoComposition.instructions
            where instruction.timeRange.intersection(segment.target) != nil {
                if instruction.layers.contains(where: { $0.matte?.track == track.id }) { return nil }
                guard let layer = instruction.layers.first(where: { $0.track == track.id }),
                      layer.opacity.keys.allSatisfy({ $0.values.allSatisfy { $0 == 1 } }),
                      layer.transform.keys.allSatisfy({ $0.values.allSatisfy { $0 == .identity } }),
                      layer.crop.isEmpty, layer.backdrop == nil, layer.effects.isEmpty, layer.matte == nil
                else { return nil }
            }
            return child
        }

        /// One marker per chapter on the timeline's stack (issue 39): its title as the name, its start as a marked
        /// range of length 0, `{"reel": {"chapter": true}}` in the metadata, colour GREEN.
        func chapterMarkers() -> [JSONValue] {
            project.composition.chapters.map { chapter in
                object([
                    ("OTIO_SCHEMA", .string("Marker.2")),
                    ("metadata", object([("reel", object([("chapter", .bool(true))]))])),
                    ("name", .string(chapter.title)),
                    ("color", .string("GREEN")),
                    ("marked_range", timeRange(start: chapter.at, duration: .zero)),
                    ("comment", .string("")),
                ])
            }
        }

        /// One marker per caption cue on the timeline's stack (in movie time): its text as the name, its time as the
        /// marked range, its file and language in the metadata. OTIO has no subtitle item, so a marker is the
        /// nearest it holds; styles and positions are not kept.
        func captionMarkers() -> [JSONValue] {
            var markers: [JSONValue] = []
            for entry in project.videoComposition.captions {
                var reel: [(String, JSONValue)] = [("captions", .string(entry.captions.file))]
                if let language = entry.captions.language { reel.append(("language", .string(language))) }
                for cue in entry.cues {
                    guard let duration = try? cue.end - cue.start else { continue }
                    markers.append(object([
                        ("OTIO_SCHEMA", .string("Marker.2")),
                        ("metadata", object([("reel", object(reel))])),
                        ("name", .string(cue.plainText)),
                        ("color", .string("PURPLE")),
                        ("marked_range", timeRange(start: cue.start, duration: duration)),
                        ("comment", .string("")),
                    ]))
                }
            }
            return markers
        }

        func track(_ name: String, kind: String, items: [JSONValue]) -> JSONValue {
            object([("OTIO_SCHEMA", .string("Track.1"))] + common(name) + [
                ("source_range", .null), ("kind", .string(kind)), ("children", .array(items.map { JSON($0) })),
            ])
        }

        func gap(_ duration: Time) -> JSONValue {
            object([("OTIO_SCHEMA", .string("Gap.1"))] + common("") + [
                ("source_range", timeRange(start: .zero, duration: duration)),
            ])
        }

        /// A clip for `segment` (of a track of `kind`) showing `recordDuration` of it from its source start.
        mutating func clip(_ segment: Segment, kind: TrackKind, recordDuration: Time) -> JSONValue {
            guard let assetID = segment.asset, let source = segment.source, let asset = project.asset(assetID) else {
                return gap(recordDuration)
            }
            var effects: [JSONValue] = []
            let rate = (try? source.duration.ratio(to: segment.target.duration)) ?? .one
            if rate != .one {
                effects.append(object([
                    ("OTIO_SCHEMA", .string("LinearTimeWarp.1")), ("name", .string("")), ("metadata", object([])),
                    ("effect_name", .string("LinearTimeWarp")), ("time_scalar", number(rate.doubleValue)),
                ]))
            }
            let reference: JSONValue
            switch asset.source {
            case .color(let color):
                reference = object([
                    ("OTIO_SCHEMA", .string("GeneratorReference.1")), ("name", .string(assetID)),
                    ("metadata", object([])), ("available_range", .null), ("available_image_bounds", .null),
                    ("generator_kind", .string("SolidColor")),
                    ("parameters", object([("color", .string(color.description))])),
                ])
            case .composition(.inline(let name)):
                // A composition written inside the project has no file to point at: a nested stack of its tracks.
                guard case .facts(let known)? = facts[assetID], let child = known.composition else {
                    warnings.append("composition \"\(name)\" was not loaded: its clip is written as a gap")
                    return gap(recordDuration)
                }
                var inner = Writer(project: child.compiled, facts: child.facts)
                let tracks = kind == .video ? inner.videoTracks() : inner.audioTracks()
                warnings += inner.warnings
                return object([("OTIO_SCHEMA", .string("Stack.1")), ("name", .string(name)), ("metadata", object([])),
                               ("effects", .array(effects.map { JSON($0) })), ("markers", .array([])),
                               ("enabled", .bool(true)),
                               ("source_range", timeRange(start: source.start, duration: recordDuration)),
                               ("children", .array(tracks.map { JSON($0) }))])
            case .file(let path, _, _, _, _), .image(let path), .composition(.file(let path, _)):
                let url = URL(fileURLWithPath: project.resolvedPath(path)).standardizedFileURL.absoluteString
                reference = object([
                    ("OTIO_SCHEMA", .string("ExternalReference.1")), ("name", .string(assetID)),
                    ("metadata", object([])), ("available_range", .null), ("available_image_bounds", .null),
                    ("target_url", .string(url)),
                ])
            }
            return object([
                ("OTIO_SCHEMA", .string("Clip.2")), ("name", .string(assetID)), ("metadata", object([])),
                ("effects", .array(effects.map { JSON($0) })), ("markers", .array([])), ("enabled", .bool(true)),
                ("source_range", timeRange(start: source.start, duration: recordDuration)),
                ("media_references", object([("DEFAULT_MEDIA", reference)])),
                ("active_media_reference_key", .string("DEFAULT_MEDIA")),
            ])
        }

        /// Segments of a track of `kind` laid end to end with gaps where the track is empty.
        mutating func plainItems(_ segments: [Segment], kind: TrackKind) -> [JSONValue] {
            var items: [JSONValue] = []
            var position = Time.zero
            for segment in segments where !segment.isEmpty {
                if segment.target.start > position, let gapLength = try? segment.target.start - position {
                    items.append(gap(gapLength))
                }
                items.append(clip(segment, kind: kind, recordDuration: segment.target.duration))
                position = segment.target.end
            }
            return items
        }

        /// The video tracks as one storyline with transitions, when their segments overlap only pairwise.
        mutating func storyline(_ tracks: [CompositionTrack]) -> [JSONValue]? {
            let segments = tracks.flatMap { $0.segments.filter { !$0.isEmpty } }.sorted {
                $0.target.start < $1.target.start
            }
            for (index, segment) in segments.enumerated() where index > 0 {
                let previous = segments[index - 1]
                if segment.target.end <= previous.target.end { return nil }
                if index > 1, segment.target.start < segments[index - 2].target.end { return nil }
                if segment.target.start < previous.target.start { return nil }
            }
            var items: [JSONValue] = []
            var position = Time.zero
            for (index, segment) in segments.enumerated() {
                let next = index + 1 < segments.count ? segments[index + 1] : nil
                let overlapsNext = next.map { $0.target.start < segment.target.end } ?? false
                let end = overlapsNext ? next!.target.start : segment.target.end
                if segment.target.start > position, let gapLength = try? segment.target.start - position {
                    items.append(gap(gapLength))
                }
                if let length = try? end - segment.target.start, length > .zero {
                    items.append(clip(segment, kind: .video, recordDuration: length))
                } else {
                    warnings.append("a clip lying entirely inside a transition at \(segment.target.start) s cannot be written as an OTIO clip; skipped")
                }
                position = end
                if overlapsNext, let next, let overlap = try? segment.target.end - next.target.start {
                    let type = transitionType(during: try? TimeRange(start: next.target.start, end: segment.target.end))
                    items.append(object([
                        ("OTIO_SCHEMA", .string("Transition.1")), ("name", .string("")), ("metadata", object([])),
                        ("transition_type", .string(type)), ("parameters", object([])),
                        ("in_offset", rationalTime(.zero)), ("out_offset", rationalTime(overlap)),
                    ]))
                }
            }
            return items
        }

        func transitionType(during range: TimeRange?) -> String {
            guard let range else { return "Custom_Transition" }
            let layers = project.videoComposition.instructions.filter { $0.timeRange.intersection(range) != nil }
                .flatMap(\.layers)
            if layers.contains(where: { !$0.opacity.keys.isEmpty }) { return "SMPTE_Dissolve" }
            if layers.contains(where: { !$0.crop.keys.isEmpty }) { return "SMPTE_Wipe" }
            return "Custom_Transition"
        }
    }
}
