import Foundation
import ReelTime

/// Captions (docs/captions.md): caption files read and their cues placed on the movie timeline, for the
/// timeline's clips and for the explicit form.
struct CaptionCompiler: CompilerPart {
    let sink: DiagnosticSink
    let context: CompileContext

    /// Timeline captions (file time + `at` = movie time) and clip captions (file time + `at` = the clip's source
    /// time, retimed as the clip's picture is), as compiled captions in movie time: clip captions first, in clip
    /// order (clips carrying the same captions share one entry), then the timeline's, later ones drawn on top. Nil
    /// after an error (already reported).
    func compileCaptions(_ timeline: Timeline, placed: [PlacedItem], audioTracks: [ResolvedAudioTrack] = [],
                         duration: Time, renderSize: PixelSize) -> [CompiledCaptions]?
    {
        var compiled: [CompiledCaptions] = []
        var valid = true
        // Clips that carry the same captions (the same file or transcript, `at`, look and stream settings — a cut
        // made by `reel cut` attaches its input's to every piece) give one entry: one libass track, one subtitle
        // stream, their cues in clip order.
        // A transcript's words are retimed first and paged afterwards, in movie time: a page holds only words the
        // clips keep, so a filler word a cut removed does not stay in the text around it.
        var entries: [(captions: Captions, document: CaptionDocument, words: [TranscriptWord]?, cues: [CaptionCue],
                       shown: Set<Int>, ranges: [TimeRange], noun: String)] = []
        // What carries source-timed captions: the clips, then the extra audio tracks (which play their source once,
        // at rate 1, from `at`).
        var carriers: [(captions: Captions, source: TimeRange, target: TimeRange, noun: String)] = []
        for item in placed {
            guard case .clip(let placedClip) = item, let written = placedClip.clip.captions else { continue }
            carriers.append((written, placedClip.resolved.source, placedClip.target, "clip"))
        }
        for resolved in audioTracks {
            guard let written = resolved.track.captions,
                  let target = try? TimeRange(start: resolved.track.at, duration: resolved.source.duration) else { continue }
            carriers.append((written, resolved.source, target, "track"))
        }
        for (written, source, target, noun) in carriers {
            var key = written
            let captions = written
            let index: Int
            if let found = entries.firstIndex(where: { key.path = $0.captions.path; return $0.captions == key }) {
                index = found
            } else {
                var words: [TranscriptWord]?
                if captions.isTranscript {
                    guard let read = transcriptWords(captions) else {
                        valid = false
                        continue
                    }
                    words = read
                }
                guard let document = words == nil ? captionDocument(captions, renderSize: renderSize)
                    : CaptionDocument(format: .webVTT, cues: words!.enumerated().map {
                        CaptionCue(start: $1.start, end: $1.end, text: $1.text, number: $0 + 1, line: 0)
                    })
                else {
                    valid = false
                    continue
                }
                entries.append((captions, document, words, [], [], [], noun))
                index = entries.count - 1
            }
            let shared = entries[index].captions
            let mapping = TimeMapping(source: source, target: target)
            entries[index].ranges.append(source)
            for (number, cue) in entries[index].document.cues.enumerated() {
                // A word without length (some recognisers give them) is kept where its instant falls in the clip.
                if entries[index].words != nil, cue.start == cue.end {
                    guard let at = try? cue.start + shared.at, source.contains(at),
                          let movie = try? mapping.targetTime(atSource: at) else { continue }
                    var moved = cue
                    moved.start = movie
                    moved.end = movie
                    entries[index].cues.append(moved)
                    entries[index].shown.insert(number)
                    continue
                }
                guard let start = try? cue.start + shared.at, let end = try? cue.end + shared.at,
                      let sourceRange = try? TimeRange(start: start, end: end),
                      let kept = sourceRange.intersection(source), !kept.isEmpty,
                      let movieStart = try? mapping.targetTime(atSource: kept.start),
                      let movieEnd = try? mapping.targetTime(atSource: kept.end), movieStart < movieEnd
                else { continue }
                var moved = cue
                moved.start = movieStart
                moved.end = movieEnd
                entries[index].cues.append(moved)
                entries[index].shown.insert(number)
            }
        }
        for index in entries.indices where entries[index].words != nil {
            // The retimed cues are the clips' words: page them now.
            let words = entries[index].cues.map { TranscriptWord(text: $0.text, start: $0.start, end: $0.end) }
            // Pieces of one word left on both sides of a cut stay two words.
            let captions = entries[index].captions
            entries[index].cues = TranscriptPager.cues(words, style: captions.style, highlight: captions.highlight,
                                                        renderSize: renderSize, measure: context.measure ?? TranscriptPager.estimate)
        }
        for entry in entries {
            let captions = entry.captions
            // Cues between the clips of one entry went with the stretches an edit removed: only those beyond its
            // clips' span (before the earliest in, after the latest out) are reported.
            let first = entry.ranges.map(\.start).min() ?? .zero, last = entry.ranges.map(\.end).max() ?? .zero
            let outside = entry.document.cues.enumerated().filter { number, cue in
                guard !entry.shown.contains(number) else { return false }
                guard let start = try? cue.start + captions.at, let end = try? cue.end + captions.at else { return true }
                return end <= first || start >= last
            }.count
            if outside > 0 {
                let carrier = entry.noun
                let ranges = entry.ranges.map {
                    "\(describeTime($0.start, frameDuration: nil))–\(describeTime($0.end, frameDuration: nil))"
                }
                let shownRanges = ranges.count > 3 ? ranges.prefix(3).joined(separator: ", ") + ", …" : ranges.joined(separator: ", ")
                sink.append(Diagnostic(
                    .warning, path: captions.path.key(captions.isTranscript ? "transcript" : "file"),
                    message: "\(outside) of \(entry.document.cues.count) \(entry.words == nil ? "cues" : "words") of \(captions.file) lie beyond the source "
                        + (ranges.count == 1 ? "range of the \(carrier)" : "ranges of the \(ranges.count) \(carrier)s") + " showing them "
                        + "(\(shownRanges)) and are not shown",
                    hint: "check the \(carrier)'s in and out points, or the captions' \"at\" (the source time of the file's zero)"))
            }
            var retimed = captions
            retimed.at = .zero
            retimed.cues = entry.cues
            compiled.append(CompiledCaptions(captions: retimed, assHeader: entry.document.assHeader))
        }
        for captions in timeline.captions {
            guard let document = captionDocument(captions, renderSize: renderSize) else {
                valid = false
                continue
            }
            var cues: [CaptionCue] = []
            for cue in document.cues {
                guard let start = try? cue.start + captions.at, let end = try? cue.end + captions.at else { continue }
                var moved = cue
                moved.start = start
                moved.end = end
                cues.append(moved)
            }
            var placedCaptions = captions
            placedCaptions.at = .zero
            placedCaptions.cues = cues
            compiled.append(CompiledCaptions(captions: placedCaptions, assHeader: document.assHeader))
        }
        guard valid else { return nil }
        return compiled.map { cutAtEnd($0, duration: duration) }
    }

    /// Explicit-form captions: the cues as written (or, without `cues`, the file's shifted by `at`), and the ASS
    /// header read from the file for ASS scripts. Nil after an error.
    func compileExplicitCaptions(_ list: [CompiledCaptions], duration: Time, renderSize: PixelSize)
        -> [CompiledCaptions]?
    {
        var compiled: [CompiledCaptions] = []
        var valid = true
        for entry in list {
            var captions = entry.captions
            let format = captions.format ?? CaptionFormat(fileName: captions.file)
            if captions.cues != nil, format != .ass {
                compiled.append(cutAtEnd(CompiledCaptions(captions: captions, assHeader: nil), duration: duration))
                continue
            }
            guard let document = captionDocument(captions, renderSize: renderSize) else {
                valid = false
                continue
            }
            if captions.cues == nil {
                captions.cues = document.cues.compactMap { cue in
                    guard let start = try? cue.start + captions.at, let end = try? cue.end + captions.at else { return nil }
                    var moved = cue
                    moved.start = start
                    moved.end = end
                    return moved
                }
                captions.at = .zero
            }
            compiled.append(cutAtEnd(CompiledCaptions(captions: captions, assHeader: document.assHeader), duration: duration))
        }
        return valid ? compiled : nil
    }

    /// The words of a transcript `captions` names, its problems reported as diagnostics at `transcript`; nil when it
    /// is missing or refused. `checked`: the file was already checked as an input.
    private func transcriptWords(_ captions: Captions, checked: Bool = false) -> [TranscriptWord]? {
        let reference = InputFileReference(kind: .transcript, written: captions.file, path: captions.path.key("transcript"))
        if !checked, let refused = LocalInputFile.diagnostic(for: reference, resolvedPath: project.resolvedPath) {
            sink.append(refused)
            return nil
        }
        let bytes = FileManager.default.contents(atPath: project.resolvedPath(captions.file)).map { [UInt8]($0) } ?? []
        let (words, problems) = TranscriptReader.read(bytes, file: captions.file)
        for problem in problems {
            var diagnostic = Diagnostic(problem.severity, path: captions.path.key("transcript"),
                                        message: (problem.cue.map { "word \($0): " } ?? "") + problem.message)
            diagnostic.origin = problem.origin
            sink.append(diagnostic)
        }
        return words
    }

    /// The caption file of `captions` read, its problems reported as diagnostics at `captions.file` placed by the
    /// file's line and cue; nil when the file is missing or refused. SubRip cues that overlap are reported once
    /// (SubRip has no layers; they are drawn stacked, as libass does).
    func captionDocument(_ captions: Captions, renderSize: PixelSize) -> CaptionDocument? {
        let filePath = captions.path.key(captions.isTranscript ? "transcript" : "file")
        let path = project.resolvedPath(captions.file)
        let reference = InputFileReference(kind: captions.isTranscript ? .transcript : .captionFile,
                                           written: captions.file, path: filePath)
        // Told without opening the file: a FIFO would block the read.
        if let refused = LocalInputFile.diagnostic(for: reference, resolvedPath: project.resolvedPath) {
            sink.append(refused)
            return nil
        }
        if captions.isTranscript {
            guard let words = transcriptWords(captions, checked: true) else { return nil }
            let cues = TranscriptPager.cues(words, style: captions.style, highlight: captions.highlight,
                                            renderSize: renderSize, measure: context.measure ?? TranscriptPager.estimate)
            return CaptionDocument(format: .webVTT, cues: cues)
        }
        if captions.format == nil, captions.file.lowercased().hasSuffix(".json") {
            // Read as SubRip, a transcript is a heap of "no timing line" warnings; say what it is instead.
            error(filePath, "\(captions.file) is a JSON file, not a caption file (SubRip, WebVTT or ASS)",
                  hint: "name a word-level transcript with \"transcript\": {\"transcript\": \"\(captions.file)\"}")
            return nil
        }
        let reading = CaptionReader.read(path: path, file: captions.file, format: captions.format,
                                         encoding: captions.encoding)
        for problem in reading.problems {
            var diagnostic = Diagnostic(
                problem.severity, path: filePath,
                message: (problem.cue.map { "cue \($0): " } ?? "") + problem.message,
                hint: problem.severity == .error ? "fix the caption file, or give its \"format\" or \"encoding\"" : nil)
            diagnostic.origin = problem.origin
            sink.append(diagnostic)
        }
        guard var document = reading.document else { return nil }
        // WebVTT cue settings become the cue's alignment and position tags and its margins at this render size.
        for index in document.cues.indices {
            guard let settings = document.cues[index].settings else { continue }
            let placement = settings.placement(renderSize: renderSize, style: captions.style)
            document.cues[index].text = placement.tags + document.cues[index].text
            document.cues[index].marginLeft = placement.marginLeft
            document.cues[index].marginRight = placement.marginRight
            document.cues[index].settings = nil
        }
        if document.format == .subRip {
            let ordered = document.cues.sorted { $0.start < $1.start }
            if let index = ordered.indices.dropFirst().first(where: { ordered[$0].start < ordered[$0 - 1].end }) {
                var warning = Diagnostic(
                    .warning, path: filePath,
                    message: "cue \(ordered[index].number) starts before cue \(ordered[index - 1].number) ends; "
                        + "SubRip cues should not overlap (both are shown, stacked)",
                    hint: "end the earlier cue first, or use an ASS file, whose layers allow overlaps")
                warning.origin = DiagnosticOrigin(file: captions.file, line: ordered[index].line)
                sink.append(warning)
            }
        }
        return document
    }

    /// `compiled` with cues starting at or after the composition's end dropped and ones running past it cut there,
    /// with one warning naming how many.
    private func cutAtEnd(_ compiled: CompiledCaptions, duration: Time) -> CompiledCaptions {
        var result = compiled
        var dropped = 0
        var cues: [CaptionCue] = []
        for cue in compiled.cues {
            if cue.start >= duration {
                dropped += 1
                continue
            }
            var kept = cue
            if kept.end > duration { kept.end = duration }
            cues.append(kept)
        }
        if dropped > 0 {
            sink.append(Diagnostic(
                .warning, path: compiled.captions.path.key(compiled.captions.isTranscript ? "transcript" : "file"),
                message: "\(dropped) cues of \(compiled.captions.file) start at or after the composition's end at "
                    + "\(describeTime(duration, frameDuration: nil)) and are not shown",
                time: duration, hint: "set output.end later to show them, or move the captions with \"at\""))
        }
        result.captions.cues = cues
        return result
    }
}
