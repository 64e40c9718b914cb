import ArgumentParser
import Foundation
import ReelInterchange
import ReelMedia
import ReelModel
import ReelRender
import ReelTime

/// `reel cut`: analyses media and writes an editing-form project whose clips keep what is wanted (docs/format.md,
/// "reel cut"). The analysis and the project are ReelRender's (`CutAnalysis`, `CutProject`); this is flags in,
/// files out.
struct Cut: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Cut silences, filler words and still pictures out of media, or split it at its shots: write a project.",
        discussion: """
            Each input is read once (its sound for silence and words, its pictures for --scenes and --still) \
            and becomes its kept clips, in order, with exact source in and out points on the video's frame \
            boundaries (on sample boundaries for audio-only inputs) and a 10 ms audio fade on each side of every \
            cut. Silence (--silence, default -35 dBFS, or relative to the input's loudness: -25LU) is the \
            criterion unless --fillers, --remove-words, --scenes or --still name another; name --silence too for \
            both. --scenes splits each kept stretch into one clip \
            per shot. The project validates and renders like any other; nothing is written unless the analysis \
            succeeds.

            Examples:
              reel cut talk.mp4 -o talk-cut.json
              reel cut talk.mp4 --silence -40 --min-silence 0.8 --margin 0.1 -o - | reel render - -o cut.mp4
              reel cut interview.mov --audio-track 2 --channel 1 --silence -25LU -o interview-cut.json
              reel cut a.mp4 b.mp4 --remove 0..2.5 --report cuts.json -o both.json
              reel cut a.mp4 b.mp4 --remove 2=10..14 --keep a.mp4=30..33 -o both.json
              reel cut talk.mp4 --transcript talk.words.json --fillers --silence -35 -o talk-cut.json
              reel cut lecture.mp4 --speed-silence 4 -o lecture-fast.json
              reel cut film.mp4 --scenes -o shots.json
              reel cut screencast.mp4 --still 2 --silence -40 -o screencast-cut.json
            """ + "\n\n" + exitCodesHelp)

    @Argument(help: "The media files; each becomes its clips, in order.")
    var inputs: [String]

    @Option(name: .shortAndLong, help: "The project file to write (- for standard output).")
    var output: String

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Cut sound whose peak stays below DB dBFS (default -35; e.g. -40 or -40dB), or N dB below the input's "
            + "integrated loudness (e.g. -25LU).", valueName: "DB"))
    var silence: String?

    @Option(name: .customLong("audio-track"), help: ArgumentHelp(
        "Measure and keep this audio stream (its index in the file, as an asset's audioTrack; default: the file's "
            + "default audio stream).", valueName: "N"))
    var audioTrack: Int?

    @Option(help: ArgumentHelp("Decide silence by this channel alone (1 = the first; default: the peak over all).",
                               valueName: "C"))
    var channel: Int?

    @Option(name: .customLong("min-silence"), help: ArgumentHelp(
        "Only silences at least this long are cut (default 0.5, at least 0.01).", valueName: "T"))
    var minSilence: String?

    @Option(help: ArgumentHelp("Sound kept on each side of a cut (default 0.2).", valueName: "T"))
    var margin: String?

    @Option(name: .customLong("margin-before"), help: ArgumentHelp(
        "Sound kept before the sound comes back, at a cut's end (default: --margin).", valueName: "T"))
    var marginBefore: String?

    @Option(name: .customLong("margin-after"), help: ArgumentHelp(
        "Sound kept after the sound stops, at a cut's start (default: --margin).", valueName: "T"))
    var marginAfter: String?

    @Option(name: .customLong("min-clip"), help: ArgumentHelp(
        "Kept pieces shorter than this between cuts are cut too (default 0).", valueName: "T"))
    var minClip: String?

    @Option(help: ArgumentHelp(
        "Stretches never cut, in source time: A..B[,C..D…] in every input, or INPUT=A..B… in one (its number, 1 for "
            + "the first, or its path as given) (repeatable).", valueName: "RANGES"))
    var keep: [String] = []

    @Option(help: ArgumentHelp(
        "Stretches always cut, in source time: A..B[,C..D…] in every input, or INPUT=A..B… in one (repeatable).",
        valueName: "RANGES"))
    var remove: [String] = []

    @Option(name: .customLong("speed-silence"), help: ArgumentHelp(
        "Play the silences at this speed (0.01 to 100, e.g. 4) instead of cutting them.", valueName: "X"))
    var speedSilence: String?

    @Option(help: ArgumentHelp(
        "A word-level transcript (any shape `captions` reads) of an input, in input order (repeatable).",
        valueName: "FILE"))
    var transcript: [String] = []

    @Option(name: .customLong("caption-file"), help: ArgumentHelp(
        "A SubRip, WebVTT or ASS caption file of an input, in input order (repeatable): its cues follow the cuts.",
        valueName: "FILE"))
    var captionFile: [String] = []

    @Option(help: ArgumentHelp(
        "Show each input's captions (its --caption-file, else its --transcript) on its clips, following the cuts: "
            + "burn, stream or both (default burn when --caption-file is given).", valueName: "MODE"))
    var captions: String?

    @Option(help: ArgumentHelp(
        "Cut filler words found in the transcript: --fillers alone for um, uh, er, ah, hmm, \"you know\", "
            + "\"I mean\"; --fillers=WORD,WORD for others.", valueName: "LIST"))
    var fillers: String?

    @Option(name: .customLong("remove-words"), help: ArgumentHelp(
        "Cut these words or phrases wherever the transcript has them: WORD,PHRASE,….", valueName: "LIST"))
    var removeWords: String?

    @Option(help: ArgumentHelp(
        "One clip per shot: split where the scene score (0-100, as ffmpeg's scdet) reaches THRESHOLD; --scenes "
            + "alone for 10. Keeps everything unless another criterion cuts.", valueName: "THRESHOLD"))
    var scenes: String?

    @Option(help: ArgumentHelp(
        "Cut stretches at least T long over which the picture does not change (the margins stay).", valueName: "T"))
    var still: String?

    @Option(help: ArgumentHelp("Also write a JSON report of every removed range, its reason and level, and totals.",
                               valueName: "FILE"))
    var report: String?

    @Option(help: ArgumentHelp("Also write the cut as an OpenTimelineIO timeline, for editors.", valueName: "FILE"))
    var otio: String?

    @Option(help: ArgumentHelp("Also write the kept pieces as a CMX 3600 edit decision list, for editors.",
                               valueName: "FILE"))
    var edl: String?

    @Flag(help: "Replace the project (and report) file if it exists.")
    var force = false

    @Flag(help: "Create the output folder if it does not exist.")
    var mkdir = false

    @OptionGroup var media: MediaOptions

    func validate() throws {
        _ = try request()
        _ = try silenceSpeed()
        let written = [("-o", output), ("--report", report), ("--otio", otio), ("--edl", edl)]
        for (index, (flag, file)) in written.enumerated() {
            guard let file else { continue }
            if index > 0, file == "-" { throw Exit.report(.usage("\(flag) -: give a file (only -o may be standard output)")) }
            if let earlier = written[..<index].first(where: { $0.1 == file }) {
                throw Exit.report(.usage("\(flag) \(file): the same file as \(earlier.0)"))
            }
        }
        _ = try captionsPerInput(projectDirectory: "/")
        if edl != nil, speedSilence != nil {
            throw Exit.report(.usage("--edl lists the kept pieces at speed 1: it cannot hold --speed-silence's fast clips"))
        }
    }

    /// The clip `captions` object of each input (nil: none) with `--captions`/`--caption-file`: the input's caption
    /// file, else its transcript, in the mode asked for; paths as the project writes them.
    private func captionsPerInput(projectDirectory: String) throws -> [JSONValue?] {
        if captionFile.count > inputs.count {
            throw Exit.report(.usage("--caption-file: \(captionFile.count) caption files for \(inputs.count) inputs (one per input, in order)"))
        }
        guard captions != nil || !captionFile.isEmpty else { return inputs.map { _ in nil } }
        let mode = captions ?? CaptionMode.burn.rawValue
        guard CaptionMode(rawValue: mode) != nil else {
            throw Exit.report(.usage("--captions \(mode): burn, stream or both"))
        }
        return try inputs.indices.map { index in
            let source: (key: String, file: String)
            if index < captionFile.count {
                source = ("file", captionFile[index])
            } else if index < transcript.count {
                source = ("transcript", transcript[index])
            } else {
                throw Exit.report(.usage("--captions: \(inputs[index]) has neither a --caption-file nor a --transcript"))
            }
            return .object(JSONObject(values: [
                (source.key, .string(CutProject.written(source.file, in: projectDirectory))), ("mode", .string(mode)),
            ]))
        }
    }

    /// The request the flags make; a flag that does not parse is a usage error naming it.
    private func request() throws -> CutRequest {
        func time(_ text: String?, _ flag: String, default fallback: Time) throws -> Time {
            guard let text else { return fallback }
            do {
                return try ProjectLoader.parseCommandLineTime(text, frameRate: nil)
            } catch {
                throw Exit.report(.usage("\(flag) \(text): \(error.message)"))
            }
        }
        let defaults = CutSettings()
        let shortestSilence = try time(minSilence, "--min-silence", default: defaults.minimumSilence)
        // Shorter runs below the threshold are the zero crossings of loud sound, not pauses.
        if shortestSilence < Time(value: 1, timescale: 100) {
            throw Exit.report(.usage("--min-silence \(minSilence ?? ""): at least 0.01 s (10 ms)"))
        }
        let bothMargins = try time(margin, "--margin", default: defaults.marginBefore)
        let kept = try handRanges(keep, "--keep"), removed = try handRanges(remove, "--remove")
        let settings = CutSettings(
            minimumSilence: shortestSilence,
            marginBefore: try time(marginBefore, "--margin-before", default: bothMargins),
            marginAfter: try time(marginAfter, "--margin-after", default: bothMargins),
            minimumClip: try time(minClip, "--min-clip", default: defaults.minimumClip),
            keep: kept[nil] ?? [], remove: removed[nil] ?? [])
        let words = WordCriteria(fillers: list(fillers, default: WordCriteria.englishFillers),
                                 words: list(removeWords, default: []))
        if !words.isEmpty, transcript.isEmpty {
            throw Exit.report(.usage("--fillers and --remove-words need the words' times: give --transcript FILE"))
        }
        if transcript.count > inputs.count {
            throw Exit.report(.usage("--transcript: \(transcript.count) transcripts for \(inputs.count) inputs (one per input, in order)"))
        }
        let stillLength = try still.map { text in try time(text, "--still", default: .zero) }
        if let stillLength, stillLength <= .zero {
            throw Exit.report(.usage("--still \(still ?? ""): a length above 0 (e.g. 2 or 1.5)"))
        }
        // Silence is the criterion when none is named; named with others, all apply.
        let othersNamed = !words.isEmpty || scenes != nil || stillLength != nil
        let silenceThreshold = silence != nil || !othersNamed ? try threshold() : nil
        if let audioTrack, audioTrack < 0 {
            throw Exit.report(.usage("--audio-track \(audioTrack): a stream index, 0 or more"))
        }
        if let channel, channel < 1 {
            throw Exit.report(.usage("--channel \(channel): a channel number, 1 for the first"))
        }
        if channel != nil, silenceThreshold == nil {
            throw Exit.report(.usage("--channel chooses the channel silence is measured on: name --silence too"))
        }
        var request = CutRequest(inputs: inputs, silenceThreshold: silenceThreshold, settings: settings,
                                 transcripts: transcript, words: words, sceneThreshold: try sceneThreshold(),
                                 stillLength: stillLength, audioTrack: audioTrack, channel: channel)
        for case let (input?, ranges) in kept { request.keepIn[input] = ranges }
        for case let (input?, ranges) in removed { request.removeIn[input] = ranges }
        return request
    }

    /// The stretches of every `--keep` or `--remove` value, by input index (nil: every input). A value is
    /// `RANGES` or `INPUT=RANGES`; INPUT is the input's number (1 for the first) or its path as given. Ranges never
    /// contain `=`, so the last one separates them.
    private func handRanges(_ values: [String], _ flag: String) throws -> [Int?: [TimeRange]] {
        var found: [Int?: [TimeRange]] = [:]
        for value in values {
            guard let separator = value.lastIndex(of: "=") else {
                found[nil, default: []] += try ranges(value, flag)
                continue
            }
            let name = String(value[..<separator])
            let index: Int
            if let given = inputs.firstIndex(of: name) {
                index = given
            } else if let number = Int(name.trimmingCharacters(in: .whitespaces)), number >= 1, number <= inputs.count {
                index = number - 1
            } else {
                throw Exit.report(.usage("\(flag) \(value): \(name) is not one of the \(inputs.count) inputs: give its "
                                         + "number (1 for the first) or its path as given, as in \(flag) 2=10..12"))
            }
            found[index, default: []] += try ranges(String(value[value.index(after: separator)...]), flag)
        }
        return found
    }

    /// A comma-separated list of words and phrases; `default` for `Cut.defaultList` (the flag given alone).
    private func list(_ text: String?, default fallback: [String]) -> [String] {
        guard let text else { return [] }
        if text == Cut.defaultList { return fallback }
        return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `--scenes`' threshold: scdet's default when the flag is given alone, else a number from 0 to 100.
    private func sceneThreshold() throws -> Double? {
        guard let scenes else { return nil }
        if scenes == Cut.defaultList { return CutRequest.defaultSceneThreshold }
        guard let value = Double(scenes.trimmingCharacters(in: .whitespaces)), value.isFinite, value > 0, value <= 100
        else {
            throw Exit.report(.usage("--scenes \(scenes): a scene score above 0 and at most 100 (e.g. 10), or no value"))
        }
        return value
    }

    /// `--speed-silence`'s speed, exactly (a plain decimal number from 0.01 to 100).
    private func silenceSpeed() throws -> Rational? {
        guard let speedSilence else { return nil }
        guard let speed = try? ProjectLoader.parseCommandLineTime(speedSilence, frameRate: nil).rational,
              speed >= Rational(1, 100), speed <= Rational(100)
        else {
            throw Exit.report(.usage("--speed-silence \(speedSilence): a speed from 0.01 to 100 (e.g. 4)"))
        }
        return speed
    }

    /// What stands for "the default list" when `--fillers` is given without a value.
    static let defaultList = "\u{0}default"

    /// The command line with `--fillers` or `--scenes` given alone written as `--fillers=<default>`, since
    /// swift-argument-parser has no options with an optional value. `--fillers` is alone when last or before another
    /// option or an existing file; `--scenes` unless a number follows that names no file.
    static func expandingOptionalValues(_ arguments: [String]) -> [String] {
        guard arguments.first == "cut" else { return arguments }
        var result: [String] = []
        for (index, argument) in arguments.enumerated() {
            let next = index + 1 < arguments.count ? arguments[index + 1] : nil
            let nextIsFile = next.map { FileManager.default.fileExists(atPath: $0) } ?? false
            if argument == "--fillers", next.map({ $0.hasPrefix("-") || nextIsFile }) ?? true {
                result.append("--fillers=" + defaultList)
            } else if argument == "--scenes", next.map({ Double($0) == nil || nextIsFile }) ?? true {
                result.append("--scenes=" + defaultList)
            } else {
                result.append(argument)
            }
        }
        return result
    }

    /// `--silence`'s threshold: a number in dBFS, optionally followed by dB or dBFS, from -150 to 0; or a number
    /// followed by LU, from -60 to 0, relative to the input's integrated loudness.
    private func threshold() throws -> SilenceThreshold {
        guard let silence else { return .peak(-35) }
        var text = silence.trimmingCharacters(in: .whitespaces)
        let lower = text.lowercased()
        if lower.hasSuffix("lu") {
            text.removeLast(2)
            guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, value >= -60, value <= 0 else {
                throw Exit.report(.usage("--silence \(silence): a level relative to the loudness from -60LU to 0LU (e.g. -25LU)"))
            }
            return .belowLoudness(value)
        }
        if lower.hasSuffix("dbfs") {
            text.removeLast(4)
        } else if lower.hasSuffix("db") {
            text.removeLast(2)
        }
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, value >= -150, value <= 0 else {
            throw Exit.report(.usage("--silence \(silence): a level in dBFS from -150 to 0 (e.g. -35 or -40dB), or relative to the loudness (e.g. -25LU)"))
        }
        return .peak(value)
    }

    /// The cut project, compiled as every command compiles a project, as an OpenTimelineIO timeline named after
    /// the first input.
    private func timeline(of project: String, in directory: String) throws -> String {
        let loaded = ProjectLoader.load(Array(project.utf8), baseDirectory: directory, probe: true, policy: media.policy)
        guard let compiled = loaded.compiled else { throw CommandFailure.rejected(loaded.diagnostics) }
        let name = URL(fileURLWithPath: inputs[0]).deletingPathExtension().lastPathComponent
        let (text, warnings) = OTIOWriter.write(compiled, name: name)
        for warning in warnings { printError("warning: --otio: \(warning)") }
        return text
    }

    /// Ranges A..B separated by commas, in source seconds.
    private func ranges(_ text: String, _ flag: String) throws -> [TimeRange] {
        return try text.split(separator: ",", omittingEmptySubsequences: false).map { part in
            let bounds = part.components(separatedBy: "..")
            guard bounds.count == 2,
                  let start = try? ProjectLoader.parseCommandLineTime(bounds[0].trimmingCharacters(in: .whitespaces), frameRate: nil),
                  let end = try? ProjectLoader.parseCommandLineTime(bounds[1].trimmingCharacters(in: .whitespaces), frameRate: nil),
                  start < end, let range = try? TimeRange(start: start, end: end)
            else {
                throw Exit.report(.usage("\(flag) \(part): write START..END with START before END (e.g. \(flag) 2..5.5,10..12)"))
            }
            return range
        }
    }

    func run() throws {
        media.applyLogLevel()
        let request = try request()
        let files = (output == "-" ? [] : [output]) + [report, otio, edl].compactMap { $0 }
        for file in files {
            try OutputTarget.refuseInputs(file, inputs: inputs + transcript + captionFile)
            try OutputTarget.refuseExisting(file, force: force)
        }
        let analysed = try CutAnalysis.run(request, policy: media.policy, cancellation: Interrupts.cancellation)
        // Asset paths are written relative to the project's own folder when the media lie inside it.
        let projectDirectory = output == "-"
            ? FileManager.default.currentDirectoryPath
            : URL(fileURLWithPath: output).standardizedFileURL.deletingLastPathComponent().path
        for warning in analysed.flatMap(\.warnings) { printError("warning: " + warning) }
        let project = try CutProject.json(analysed, projectDirectory: projectDirectory, silenceSpeed: try silenceSpeed(),
                                          captions: try captionsPerInput(projectDirectory: projectDirectory))
        var texts: [(text: String, path: String)] = output == "-" ? [] : [(project, output)]
        if let report { texts.append((CutProject.report(analysed), report)) }
        if let otio { texts.append((try timeline(of: project, in: projectDirectory), otio)) }
        if let edl {
            let title = URL(fileURLWithPath: inputs[0]).deletingPathExtension().lastPathComponent
            texts.append((try CutProject.edl(analysed, title: title), edl))
        }
        try OutputDestination.withFolders(of: files, create: mkdir) {
            try TextOutputFile.write(texts, overwrite: force)
        }
        if output == "-" { Console.writeOutput(Array(project.utf8)) }
    }
}
