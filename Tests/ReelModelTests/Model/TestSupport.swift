import ReelModel
import ReelTime

/// Reads a project document given as text.
func readProject(_ text: String) -> (project: Project?, diagnostics: [Diagnostic]) {
    ProjectReader.read(text, baseDirectory: "/projects")
}

/// The human form of every diagnostic found reading `text`.
func readErrors(_ text: String) -> [String] {
    readProject(text).diagnostics.map(\.humanText)
}

/// Facts for a video file with optional audio: `duration` seconds, `width`×`height`, constant `rate`.
func videoFacts(duration: Time, width: Int = 1280, height: Int = 720, rate: Rational = Rational(30),
                averageRate: Rational? = nil, audio: Bool = true) -> MediaFactsResult {
    .facts(MediaFacts(
        duration: duration,
        video: MediaFacts.VideoFacts(streamIndex: 0, duration: duration,
                                     displaySize: PixelSize(width: width, height: height),
                                     frameRate: rate, averageFrameRate: averageRate ?? rate),
        audio: audio ? MediaFacts.AudioFacts(streamIndex: 1, duration: duration) : nil))
}

/// Facts for an audio-only file.
func audioFacts(duration: Time) -> MediaFactsResult {
    .facts(MediaFacts(duration: duration, audio: MediaFacts.AudioFacts(streamIndex: 0, duration: duration)))
}

/// Reads and compiles; the reader must accept the document.
func compileProject(_ text: String, facts: [String: MediaFactsResult])
    -> (compiled: CompiledProject?, diagnostics: [Diagnostic]) {
    let (project, readDiagnostics) = readProject(text)
    guard let project else { return (nil, readDiagnostics) }
    let (compiled, diagnostics) = ProjectCheck.run(project, facts: facts)
    return (compiled, readDiagnostics + diagnostics)
}

/// Whole seconds, or value/timescale.
func t(_ value: Int64, _ timescale: Int64 = 1) -> Time {
    Time(value: value, timescale: timescale)
}

/// [start, end) in exact seconds.
func range(_ start: Time, _ end: Time) -> TimeRange {
    // Test inputs are always ordered.
    (try? TimeRange(start: start, end: end)) ?? TimeRange.emptyForTests
}

extension TimeRange {
    static let emptyForTests = try! TimeRange(start: .zero, duration: .zero)
}

/// The (source, target) of each segment of a track; nil source for empty edits.
func segmentRanges(_ track: CompositionTrack) -> [(source: TimeRange?, target: TimeRange)] {
    track.segments.map { ($0.source, $0.target) }
}
