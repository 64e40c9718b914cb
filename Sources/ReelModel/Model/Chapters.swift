import ReelTime

/// A chapter (issue 39): a title that starts at `at`. In `timeline.chapters` and `composition.chapters`, `at` is
/// movie time; on a clip it is the clip's source time, and the chapter follows the clip's trim and speed (as clip
/// captions do). A chapter lasts until the next one starts, the last one until the movie's end.
public struct Chapter: Sendable, Hashable {
    /// When it starts.
    public var at: Time
    /// Its title, as players list it.
    public var title: String
    /// Where it was written.
    public var path: JSONPath

    /// A chapter.
    public init(at: Time, title: String, path: JSONPath = .root) {
        self.at = at
        self.title = title
        self.path = path
    }
}

/// A chapter as a container holds it: [start, end) in the output's own time.
public struct ChapterMark: Sendable, Hashable {
    /// Where it starts and ends in the output.
    public var range: TimeRange
    /// Its title.
    public var title: String

    /// A mark.
    public init(range: TimeRange, title: String) {
        self.range = range
        self.title = title
    }

    /// The marks of `chapters` (movie time, in ascending order) in an output of `range` of the movie: each chapter
    /// lasts until the next one starts, the last until the range's end; times count from the range's start. The
    /// chapter running where the range starts starts at 0; chapters from the range's end on are left out.
    public static func marks(_ chapters: [Chapter], over range: TimeRange) -> [ChapterMark] {
        let sorted = chapters.sorted { $0.at < $1.at }
        var marks: [ChapterMark] = []
        for (index, chapter) in sorted.enumerated() where chapter.at < range.end {
            let next = index + 1 < sorted.count ? min(sorted[index + 1].at, range.end) : range.end
            guard next > range.start else { continue }
            let start = max(chapter.at, range.start)
            guard start < next, let from = try? start - range.start, let to = try? next - range.start,
                  let inOutput = try? TimeRange(start: from, end: to) else { continue }
            marks.append(ChapterMark(range: inOutput, title: chapter.title))
        }
        return marks
    }

    /// YouTube's chapter list: one line per chapter, `M:SS Title` (`H:MM:SS Title` from an hour on), the start
    /// rounded down to the second as YouTube reads it.
    public static func youTubeText(_ marks: [ChapterMark]) -> String {
        let hours = marks.contains { $0.range.start.seconds >= 3600 }
        return marks.map { mark in
            let whole = Int64((try? mark.range.start.quotient(dividingBy: Time(value: 1, timescale: 1), rounding: .down)) ?? 0)
            let (h, m, s) = (whole / 3600, whole / 60 % 60, whole % 60)
            let clock = hours ? "\(h):\(pad(m)):\(pad(s))" : "\(pad(whole / 60)):\(pad(s))"
            return clock + " " + mark.title
        }.joined(separator: "\n")
    }

    private static func pad(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
