import Foundation
import ReelMedia
import ReelModel
import ReelTime

/// What `reel cut` is asked to do: the inputs, the criteria and the settings that shape the cut.
public struct CutRequest: Sendable {
    /// The media files, in the order their clips follow each other.
    public var inputs: [String]
    /// `--silence`: the level below which sound counts as silence; nil when silence is not a criterion.
    public var silenceThreshold: SilenceThreshold?
    /// `--audio-track`: the stream (its index in the file, as an asset's `audioTrack`) whose sound is measured and
    /// kept; nil for the file's default audio stream.
    public var audioTrack: Int?
    /// `--channel`: the one channel (1 = the first) whose level decides silence; nil for the peak over all channels.
    public var channel: Int?
    /// Margins, shortest silence and clip, stretches kept or removed by hand in every input.
    public var settings: CutSettings
    /// Stretches kept (`--keep N=RANGES`) and removed (`--remove N=RANGES`) by hand in one input, by its index in
    /// `inputs`, on top of those of `settings`.
    public var keepIn: [Int: [TimeRange]] = [:]
    public var removeIn: [Int: [TimeRange]] = [:]
    /// Word-level transcripts (`--transcript`), by input: the first for the first input, and so on.
    public var transcripts: [String]
    /// Filler words and other words to cut, found in the transcripts.
    public var words: WordCriteria
    /// `--scenes`: the scene score (0–100, ffmpeg `scdet`'s) at which a new shot starts a new clip; nil when the
    /// cut does not split at shots.
    public var sceneThreshold: Double?
    /// `--still`: stretches at least this long over which the picture does not change are cut; nil when stillness
    /// is not a criterion.
    public var stillLength: Time?

    /// The settings of input `index`: those of every input with its own kept and removed stretches added.
    public func settings(ofInput index: Int) -> CutSettings {
        var own = settings
        own.keep += keepIn[index] ?? []
        own.remove += removeIn[index] ?? []
        return own
    }

    /// The threshold `--scenes` takes when given without one: `scdet`'s default.
    public static let defaultSceneThreshold = 10.0

    /// Creates a request.
    public init(inputs: [String], silenceThreshold: SilenceThreshold?, settings: CutSettings, transcripts: [String] = [],
                words: WordCriteria = WordCriteria(fillers: [], words: []), sceneThreshold: Double? = nil,
                stillLength: Time? = nil, audioTrack: Int? = nil, channel: Int? = nil) {
        self.inputs = inputs
        self.audioTrack = audioTrack
        self.channel = channel
        self.silenceThreshold = silenceThreshold
        self.settings = settings
        self.transcripts = transcripts
        self.words = words
        self.sceneThreshold = sceneThreshold
        self.stillLength = stillLength
    }

    /// Whether a criterion needs the pictures decoded.
    var looksAtPictures: Bool { sceneThreshold != nil || stillLength != nil }
}

/// `--silence`'s level: a peak level in dBFS, or a number of dB below (negative) the input's integrated loudness.
public enum SilenceThreshold: Sendable, Equatable {
    /// A peak below this many dBFS is silent (`--silence -35`).
    case peak(Double)
    /// A peak below the input's integrated loudness (LUFS, BS.1770) plus this many dB is silent (`--silence -25LU`).
    case belowLoudness(Double)
}

/// One input as analysed and planned: its facts and its pieces.
public struct CutInput: Sendable {
    /// The file as given on the command line.
    public let path: String
    /// Whether the cut follows a video stream (clips on the storyline) or an audio-only file (audio tracks).
    public let hasVideo: Bool
    /// How far the source runs, in source seconds: the video stream's duration (else the container's) when there is
    /// video, otherwise the decoded sound's length (else the container's duration).
    public let duration: Time
    /// The instants its cuts fall on.
    public let grid: CutGrid
    /// The kept and removed pieces, in order, covering [0, duration).
    public let pieces: [CutPiece]
    /// With `--scenes`: the first instant of every shot after the first, in source seconds.
    public internal(set) var shotStarts: [Time] = []
    /// What the analysis noticed without failing (a transcript running past the media), one line each.
    public let warnings: [String]
    /// The audio stream chosen by `--audio-track` (written on the project's asset); nil for the default stream.
    public var audioTrack: Int?
    /// With silence as a criterion: the peak level in dBFS below which sound was silent, and the integrated
    /// loudness it was taken from when `--silence` was relative to it.
    public var silenceLevel: Double?
    public var loudness: Double?
}

/// Reads each input once, decoding only what the criteria need (for silence and words: its best audio stream, no
/// pictures; for shots and stillness: its best video stream, no sound), and plans its cut (`CutPlanner`). Nothing
/// is written here.
public enum CutAnalysis {
    /// Analyses and plans every input of `request`, in order. Errors name the input and, when the input lacks what a
    /// criterion needs, the option (`--silence` on a file without sound).
    public static func run(_ request: CutRequest, policy: MediaPolicy, cancellation: CancellationFlag? = nil)
        throws(RenderError) -> [CutInput]
    {
        var analysed: [CutInput] = []
        for (index, path) in request.inputs.enumerated() {
            let transcript = index < request.transcripts.count ? request.transcripts[index] : nil
            analysed.append(try analyse(path, transcript: transcript, request: request,
                                        settings: request.settings(ofInput: index),
                                        opener: MediaFileOpener(policy: policy), policy: policy,
                                        cancellation: cancellation))
        }
        return analysed
    }

    static func analyse(_ path: String, transcript: String?, request: CutRequest, settings: CutSettings,
                        opener: any SourceOpener,
                        policy: MediaPolicy, cancellation: CancellationFlag?) throws(RenderError) -> CutInput {
        let info: MediaInfo
        do {
            info = try MediaProbe.probe(path: path, policy: policy)
        } catch {
            throw located(error, path)
        }
        let video = info.bestVideoStream
        let audio: StreamInfo?
        if let chosen = request.audioTrack {
            guard let stream = info.streams.first(where: { $0.index == chosen }), stream.type == .audio else {
                let audioIndexes = info.streams.filter { $0.type == .audio }.map { String($0.index) }
                throw RenderError(.invalid, "\(path): --audio-track \(chosen): stream \(chosen) is not an audio stream (" +
                                  (audioIndexes.isEmpty ? "the file has none" : "its audio streams: \(audioIndexes.joined(separator: ", "))") + ")")
            }
            audio = stream
        } else {
            audio = info.bestAudioStream
        }
        guard video != nil || audio != nil else {
            throw RenderError(.invalid, "\(path): the file has neither a video nor an audio stream")
        }
        // A clip without `out` runs to this end in the compiler too (the video stream's duration, else the
        // container's); an audio-only file's end is its last decoded sample when the sound was read.
        var duration = video?.duration ?? info.duration ?? .zero
        var candidates: [CutCandidate] = []
        var silenceLevel: Double?
        var loudness: Double?
        if let threshold = request.silenceThreshold {
            guard let audio, audio.sampleRate > 0, audio.channels > 0 else {
                throw RenderError(.invalid, "\(path): --silence needs sound, and the file has no audio stream")
            }
            if let channel = request.channel, channel > audio.channels {
                throw RenderError(.invalid, "\(path): --channel \(channel): the audio stream has \(audio.channels) channel\(audio.channels == 1 ? "" : "s")")
            }
            func open() throws(RenderError) -> any AudioSourceReader {
                do {
                    return try opener.openAudio(path: path, stream: audio.index, sampleRate: audio.sampleRate,
                                                channels: audio.channels)
                } catch {
                    throw located(error, path)
                }
            }
            let rate = Int64(audio.sampleRate)
            let expected = info.duration.flatMap { try? $0.count(atRate: rate, rounding: .up) }
            switch threshold {
            case .peak(let level):
                silenceLevel = level
            case .belowLoudness(let offset):
                // The level is relative to the whole sound's loudness, so the sound is read once more before.
                let measured = try SilenceDetector.integratedLoudness(reading: open(), of: path, sampleRate: audio.sampleRate,
                                                                      channels: audio.channels, channel: request.channel,
                                                                      expectedSamples: expected, cancellation: cancellation)
                guard let measured else {
                    throw RenderError(.invalid, "\(path): --silence \(formattedLU(offset)): the sound is below BS.1770's −70 LUFS gate, so it has no loudness to be relative to; give --silence in dBFS")
                }
                loudness = measured
                silenceLevel = min(0, measured + offset)
            }
            let detector = SilenceDetector(thresholdDecibels: silenceLevel ?? -35, minimumLength: request.settings.minimumSilence,
                                           channel: request.channel)
            let (silences, sampleCount) = try detector.silences(
                reading: open(), of: path, sampleRate: audio.sampleRate, channels: audio.channels,
                expectedSamples: expected, cancellation: cancellation)
            candidates += silences
            if video == nil { duration = Time(value: sampleCount, timescale: rate) }
        }
        var shotStarts: [Time] = []
        if request.looksAtPictures {
            guard let video else {
                let option = request.sceneThreshold != nil ? "--scenes" : "--still"
                throw RenderError(.invalid, "\(path): \(option) needs pictures, and the file has no video stream")
            }
            let reader: VideoReader
            do {
                reader = try VideoReader(path: path, streamIndex: video.index, policy: policy)
            } catch {
                throw located(error, path)
            }
            let scanner = PictureScanner(sceneThreshold: request.sceneThreshold, stillLength: request.stillLength)
            let findings = try scanner.scan(reader, of: path, end: duration, cancellation: cancellation)
            candidates += findings.stills
            shotStarts = findings.shotStarts
        }
        var warnings: [String] = []
        if let transcript, !request.words.isEmpty {
            let words = try readTranscript(transcript, warnings: &warnings)
            if let last = words.last, last.end > duration, duration > .zero {
                warnings.append("\(transcript): its words run to \(last.end) s, past the end of \(path) at \(duration) s")
            }
            candidates += request.words.candidates(in: words)
        }
        let grid: CutGrid
        if let video {
            guard let rate = video.frameRate ?? video.averageFrameRate, rate > .zero, let frameDuration = try? rate.inverse
            else {
                throw RenderError(.invalid, "\(path): the video stream states no frame rate to cut on")
            }
            grid = .frames(start: max(video.start ?? .zero, .zero), frameDuration: Time(frameDuration))
        } else if let audio, audio.sampleRate > 0 {
            grid = .samples(rate: Int64(audio.sampleRate))
        } else {
            throw RenderError(.invalid, "\(path): the audio stream states no sample rate")
        }
        guard duration > .zero else { throw RenderError(.invalid, "\(path): the file states no duration") }
        do {
            // A shot starts on the frame boundary nearest its picture's time (containers round times to their ticks).
            let shots = try shotStarts.map { start throws(TimeError) in try grid.nearest(start) }
                .filter { $0 > .zero && $0 < duration }
            let pieces = try CutPlanner.plan(duration: duration, candidates: candidates, settings: settings,
                                             grid: grid, shotStarts: shots)
            var input = CutInput(path: path, hasVideo: video != nil, duration: duration, grid: grid, pieces: pieces,
                                 shotStarts: shots, warnings: warnings)
            input.audioTrack = request.audioTrack
            input.silenceLevel = silenceLevel
            input.loudness = loudness
            return input
        } catch {
            throw RenderError(.invalid, "\(path): the cut's times cannot be represented exactly (\(error))")
        }
    }

    /// A relative level as written: "-25LU".
    static func formattedLU(_ value: Double) -> String {
        (value == value.rounded() ? String(Int(value)) : String(value)) + "LU"
    }

    /// A media error as an error naming `path` once (media errors often name their file already).
    static func located(_ error: MediaError, _ path: String) -> RenderError {
        let failure = RenderError(media: error)
        return failure.message.hasPrefix(path) ? failure : RenderError(failure.kind, "\(path): \(failure.message)")
    }

    /// The timed words of a transcript in any shape `captions` reads (`TranscriptReader`); its warnings are added to
    /// `warnings`, an unreadable or unknown file is an error naming it.
    private static func readTranscript(_ path: String, warnings: inout [String]) throws(RenderError) -> [TranscriptWord] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RenderError(.missingInput, "--transcript \(path): no such file, or it cannot be read")
        }
        let (words, problems) = TranscriptReader.read(Array(data), file: path)
        warnings += problems.filter { $0.severity == .warning }.map { "--transcript \($0)" }
        guard let words else {
            let reasons = problems.filter { $0.severity == .error }.map(\.message).joined(separator: "; ")
            throw RenderError(.invalid, "--transcript \(path): \(reasons)")
        }
        return words
    }
}
