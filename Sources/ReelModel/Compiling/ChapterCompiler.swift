import ReelTime

/// Chapters (issue 39): the timeline's, in movie time, and each clip's, in its source time, placed where that
/// source instant plays (as clip captions are: `TimeMapping` of the clip's source range onto its target), then
/// checked against the composition's end. The explicit form's `composition.chapters` are checked the same way.
struct ChapterCompiler: CompilerPart {
    let sink: DiagnosticSink
    let context: CompileContext

    /// Every chapter of `timeline` and its clips in movie time, ascending; nil after an error. A clip's chapter
    /// outside the clip's source range is left out with a warning.
    func compileChapters(_ timeline: Timeline, placed: [PlacedItem], duration: Time) -> [Chapter]? {
        var chapters = timeline.chapters
        for case .clip(let placedClip) in placed {
            let source = placedClip.resolved.source
            let mapping = TimeMapping(source: source, target: placedClip.target)
            for chapter in placedClip.clip.chapters {
                guard source.contains(chapter.at), let movieTime = try? mapping.targetTime(atSource: chapter.at) else {
                    sink.append(Diagnostic(
                        .warning, path: chapter.path.key("at"),
                        message: "the chapter at source time \(describeTime(chapter.at, frameDuration: nil)) lies outside "
                            + "the clip's source range \(describeTime(source.start, frameDuration: nil))–"
                            + "\(describeTime(source.end, frameDuration: nil)) and is left out",
                        hint: "a clip's chapters are in its source time: give a time from in to out"))
                    continue
                }
                var placedChapter = chapter
                placedChapter.at = movieTime
                chapters.append(placedChapter)
            }
        }
        return checked(chapters, duration: duration)
    }

    /// `chapters` (movie time) sorted, those from `duration` on left out with a warning; nil after reporting two
    /// chapters at one time.
    func checked(_ chapters: [Chapter], duration: Time) -> [Chapter]? {
        let sorted = chapters.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
        var kept: [Chapter] = []
        var valid = true
        for chapter in sorted {
            guard chapter.at < duration else {
                sink.append(Diagnostic(
                    .warning, path: chapter.path.key("at"),
                    message: "the chapter \"\(chapter.title)\" starts at \(describeTime(chapter.at, frameDuration: nil)), "
                        + "at or after the movie's end (\(describeTime(duration, frameDuration: nil))), and is left out",
                    hint: "start it before \(describeTime(duration, frameDuration: nil))"))
                continue
            }
            if let previous = kept.last, previous.at == chapter.at {
                error(chapter.path.key("at"),
                      "the chapter \"\(chapter.title)\" starts at \(describeTime(chapter.at, frameDuration: nil)), as "
                        + "\"\(previous.title)\" (\(previous.path)) does",
                      hint: "give each chapter its own start, or merge their titles")
                valid = false
                continue
            }
            kept.append(chapter)
        }
        return valid ? kept : nil
    }
}
