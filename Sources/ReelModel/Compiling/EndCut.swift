import ReelTime

/// `output.end` earlier than the content's end (SPEC §2.1 `end`, issue 19.6): the composition is cut there, as a
/// trim of the whole timeline would cut it.
///
///     tracks     |====clip a====|====clip b=====|~~~music~~~~~~~|
///     end                              ^
///     result     |====clip a====|======|
///
/// A segment across the end keeps its rate: its target ends at `end` and its source at the source time that maps
/// there, so cuts stay frame- and sample-exact. Segments that start at or after `end` go. Instructions likewise: the
/// one across the end is shortened and its layers' keys with it (a linear ramp across the end becomes the part of
/// itself before the end, its end value the value it had there; keys from the end on go). Audio mix keys after the
/// end are kept (they are never heard). Titles and overlays are checked against the cut end like any other end.
struct EndCut: CompilerPart {
    let sink: DiagnosticSink
    let context: CompileContext

    /// The tracks of `composition` cut at `end` (nil, reported, when a cut time cannot be written exactly).
    func cut(_ tracks: [CompositionTrack], at end: Time, path: JSONPath) -> [CompositionTrack]? {
        var result: [CompositionTrack] = []
        for var track in tracks {
            var segments: [Segment] = []
            for segment in track.segments where segment.target.start < end {
                guard segment.target.end > end else {
                    segments.append(segment)
                    continue
                }
                guard let target = try? TimeRange(start: segment.target.start, end: end) else { return nil }
                guard let asset = segment.asset, let source = segment.source else {
                    segments.append(Segment(emptyTarget: target))
                    continue
                }
                // A reversed segment keeps the end of its source range (what plays first) and loses its start.
                guard let rate = try? source.duration.ratio(to: segment.target.duration),
                      let sourceLength = try? target.duration.multiplied(by: rate),
                      let cutSource = segment.timing == .reversed
                        ? try? TimeRange(start: source.end - sourceLength, end: source.end)
                        : try? TimeRange(start: source.start, duration: sourceLength),
                      writable(segment.timing == .reversed ? cutSource.start : cutSource.end, path,
                               what: "the source time where output.end cuts track \(track.id)")
                else { return nil }
                segments.append(Segment(asset: asset, sourceTrack: segment.sourceTrack, source: cutSource,
                                        target: target, pitch: segment.pitch, fit: segment.fit, timing: segment.timing))
            }
            track.segments = segments
            result.append(track)
        }
        return result
    }

    /// `instructions` cut at `end`, with their layers' keys.
    func cut(_ instructions: [VideoInstruction], at end: Time) -> [VideoInstruction]? {
        var result: [VideoInstruction] = []
        for var instruction in instructions where instruction.timeRange.start < end {
            if instruction.timeRange.end > end {
                guard let range = try? TimeRange(start: instruction.timeRange.start, end: end) else { return nil }
                instruction.timeRange = range
                for index in instruction.layers.indices {
                    var layer = instruction.layers[index]
                    guard let opacity = Self.cut(layer.opacity, at: end, default: 1, interpolate: { $0 + ($1 - $0) * $2 }),
                          let transform = Self.cut(layer.transform, at: end, default: .identity,
                                                   interpolate: AffineTransform.interpolate),
                          let crop = Self.cut(layer.crop, at: end, default: nil, interpolate: CropRect.interpolate)
                    else { return nil }
                    layer.opacity = opacity
                    layer.transform = transform
                    layer.crop = crop
                    instruction.layers[index] = layer
                }
            }
            result.append(instruction)
        }
        return result
    }

    /// The keys of `list` before `end`; a ramp across it ends there, at the value it has there. The layer keys
    /// compile makes are linear (eased animations are cut at every frame), so the part of a ramp is a ramp.
    static func cut<Value>(_ list: KeyList<Value>, at end: Time, default defaultValue: Value?,
                                   interpolate: @escaping (Value, Value, Double) -> Value) -> KeyList<Value>? {
        var cut = list
        cut.keys = []
        for key in list.keys where key.start < end {
            guard case .ramp(let range, let from, _, let easing) = key, range.end > end else {
                cut.keys.append(key)
                continue
            }
            guard let shortened = try? TimeRange(start: range.start, end: end) else { return nil }
            let atEnd = list.value(at: end, default: defaultValue ?? from, interpolate: interpolate)
            cut.keys.append(.ramp(shortened, from: from, to: atEnd, easing: easing))
        }
        return cut
    }
}
