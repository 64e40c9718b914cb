internal import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// The noise profile libavfilter's `afftdn` learns from a stretch of sound with its `sample_noise` command: fifteen
/// band levels in dB, the values its `band_noise` option takes with `noise_type=custom`. afftdn keeps the profile to
/// itself and prints it (`bn=…`, one line per channel) at the info log level; the sampler runs afftdn over the
/// stretch and reads that line, so the profile is afftdn's own arithmetic, and a render using it matches
/// `afftdn=nt=custom:bn=…` with the values `ffmpeg -af "asendcmd=…sn start…sn stop,afftdn"` prints for the same stretch.
///
/// afftdn works in windows of `window(sampleRate:)` samples that advance by a quarter of that. Only windows lying
/// wholly inside the stretch are sampled: the first three blocks fill the window unsampled, `sn start` is sent
/// before the block that completes it, `sn stop` before the last whole block (which is still sampled); samples after
/// the last whole block are not. Several channels: the mean of the channels' profiles (afftdn's custom profile is one
/// for every channel); one channel: exactly its profile.
public final class NoiseSampler {
    /// afftdn's window at `sampleRate`, in samples: round(0.05 s).
    public static func window(sampleRate: Int) -> Int { Int((Double(sampleRate) * 0.05).rounded()) }

    private let graph: AudioFilterGraph
    private let channels: Int
    private let startAt: Int
    private let stopAt: Int
    private var pushed = 0
    /// The thread whose log is being read, from `sn stop` (afftdn prints the profile at the block after it) on.
    private var capturing: pthread_t?
    private let discard: [UnsafeMutablePointer<Float>]
    private static let discardCapacity = 4096

    /// A sampler of a stretch `sampleCount` samples long, at `sampleRate` Hz in `channels` channels, through afftdn
    /// with `options` (its option string, e.g. `nr=12:nf=-50`). The stretch must hold at least two whole windows.
    public init(options: String, sampleRate: Int, channels: Int, sampleCount: Int) throws(MediaError) {
        let window = Self.window(sampleRate: sampleRate)
        let advance = max(1, window / 4)
        let firstSampledEnd = (window + advance - 1) / advance * advance
        let lastWholeEnd = sampleCount / advance * advance
        // Start and stop before one block would cancel each other: at least two sampled blocks.
        guard lastWholeEnd > firstSampledEnd else {
            throw MediaError(.unsupported, "a noise stretch of \(sampleCount) samples holds fewer than two whole \(window)-sample afftdn windows")
        }
        startAt = firstSampledEnd - advance
        stopAt = lastWholeEnd - advance
        self.channels = channels
        graph = try AudioFilterGraph(filters: [("afftdn", options)], sampleRate: sampleRate, channels: channels)
        discard = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: Self.discardCapacity) }
    }

    deinit {
        if let capturing { _ = LogCapture.end(capturing) }
        for plane in discard { plane.deallocate() }
    }

    /// Adds the stretch's next `count` samples per channel. Call `push` and `profile()` on one thread.
    public func push(_ planes: [UnsafePointer<Float>], count: Int) throws(MediaError) {
        var done = 0
        while done < count {
            // A command takes effect at afftdn's next block, so every block before it must have run first.
            if pushed == startAt { try drain(); try graph.send("sample_noise", argument: "start", to: "afftdn") }
            if pushed == stopAt, capturing == nil {
                try drain()
                try graph.send("sample_noise", argument: "stop", to: "afftdn")
                capturing = LogCapture.begin()
            }
            let next = [startAt, stopAt].filter { $0 > pushed }.min() ?? Int.max
            let run = min(count - done, next - pushed)
            try graph.push(planes.map { $0 + done }, count: run)
            pushed += run
            done += run
            try drain()
        }
    }

    /// The learned profile, afftdn's fifteen band levels (dB), once the whole stretch was pushed.
    public func profile() throws(MediaError) -> [Double] {
        guard let thread = capturing, pushed > stopAt else { throw MediaError(.internal, "the noise stretch was not pushed whole") }
        try graph.finishInput()
        try drain()
        capturing = nil
        let printed = LogCapture.end(thread)
        let lines = printed.components(separatedBy: "bn=").dropFirst().map { line in
            line.prefix { $0 != "\n" }.split(separator: " ").compactMap { Double($0) }
        }
        guard lines.count == channels, lines.allSatisfy({ $0.count == 15 }) else {
            throw MediaError(.unsupported, "afftdn did not report the noise profile it learned (FFmpeg \(LibraryVersions.ffmpegRelease))")
        }
        return (0..<15).map { band in lines.map { $0[band] }.reduce(0, +) / Double(channels) }
    }

    /// Pulls and drops everything the graph has ready.
    private func drain() throws(MediaError) {
        while try graph.pull(into: discard, maxCount: Self.discardCapacity) > 0 {}
    }
}

/// What libav* prints at the info level on a capturing thread, taken instead of printed; everything else (other
/// levels, other threads) goes on to FFmpeg's own printer, as without the capture. The forwarding callback is
/// installed at the first capture and stays (FFmpeg's default callback cannot be named as a C function pointer
/// from Swift to put it back).
private enum LogCapture {
    static let texts = Locked<(installed: Bool, texts: [pthread_t: String])>((false, [:]))

    /// Starts capturing the calling thread's info messages; returns the thread.
    static func begin() -> pthread_t {
        let thread = pthread_self()
        texts.withLock { state in
            if !state.installed { av_log_set_callback(captureCallback) }
            state.installed = true
            state.texts[thread] = ""
        }
        return thread
    }

    /// Stops capturing `thread`'s messages and returns them.
    static func end(_ thread: pthread_t) -> String {
        texts.withLock { $0.texts.removeValue(forKey: thread) ?? "" }
    }
}

private func captureCallback(_ object: UnsafeMutableRawPointer?, _ level: Int32, _ format: UnsafePointer<CChar>?,
                             _ arguments: CVaListPointer?) {
    guard let arguments else { return }
    let thread = pthread_self()
    guard level == AV_LOG_INFO, let format, LogCapture.texts.withLock({ $0.texts[thread] != nil }) else {
        av_log_default_callback(object, level, format, arguments)
        return
    }
    var buffer = [CChar](repeating: 0, count: 512)
    _ = vsnprintf(&buffer, buffer.count, format, arguments)
    let piece = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    LogCapture.texts.withLock { $0.texts[thread]? += piece }
}
