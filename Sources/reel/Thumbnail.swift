import ArgumentParser
import Foundation
import ReelMedia
import ReelModel
import ReelRender
import ReelTime

/// `reel thumbnail`: composited pictures of a project at chosen times, as PNG or JPEG files.
struct Thumbnail: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write composited frames of a project at given times as PNG or JPEG.",
        discussion: """
            PATTERN names the files: %d is replaced by the 1-based index of the time in the list; with a \
            single time it may name one file. The extension (.png, .jpg, .jpeg) picks the format. As with \
            render, an existing file is replaced only with --force (checked for every file before the first \
            is written), an input is never replaced, and each file is written atomically. Frames are always \
            decoded exactly, so --exact changes nothing.

            Examples:
              reel thumbnail project.json --at 0,2.5,00:00:05:12 -o shot-%d.png
              reel thumbnail project.json --every 10 -o contact-%d.jpg --size 320x180
              reel thumbnail project.json --at 48f -o poster.png
            """ + "\n\n" + exitCodesHelp)

    @Argument(help: "The project file, or - for standard input.")
    var project: String

    @Option(help: "Comma-separated times (every form a project accepts; a bare number is seconds).")
    var at: String?

    @Option(help: "Take a picture every T seconds from 0 to the end.")
    var every: String?

    @Option(name: .shortAndLong, help: "Output file pattern with %d, or one file for one time.")
    var output: String

    @Flag(help: "Replace output files that exist.")
    var force = false

    @Flag(help: "Create the output folder if it does not exist.")
    var mkdir = false

    @Option(help: "Picture size WxH (default: the render size).")
    var size: String?

    @Flag(help: "Decode to the exact frame (always the case).")
    var exact = false

    @OptionGroup var media: MediaOptions

    @OptionGroup var interchange: InterchangeArguments

    func validate() throws {
        if (at == nil) == (every == nil) { throw ValidationError("give exactly one of --at and --every") }
        if let size, parseSize(size) == nil { throw ValidationError("--size takes WxH, e.g. 320x180") }
        if ImageFormat(pathExtensionOf: output) == nil {
            throw ValidationError("the output pattern must end in .png, .jpg or .jpeg")
        }
        if let at, let failure = patternFailure(timeCount: at.split(separator: ",").count) {
            throw Exit.report(failure)
        }
    }

    func run() throws {
        media.applyLogLevel()
        let policy = media.policy
        let loaded = try loadProject(project, interchange, policy: policy)
        Exit.report(loaded.diagnostics, file: ProjectFile(argument: project))
        guard let compiled = loaded.compiled, let catalog = loaded.catalog else {
            throw CommandFailure.rejected(loaded.diagnostics)
        }
        // Times are read with the project's frame rate, and --every needs its duration: these flag problems can
        // only be found now.
        let times = try requestedTimes(frameRate: compiled.output.frameRate, duration: compiled.duration)
        if let failure = patternFailure(timeCount: times.count) { throw failure }
        if let outside = times.first(where: { $0.isNegative || $0 >= compiled.duration }) {
            throw CommandFailure.usage("--at: \(describeTime(outside, frameDuration: compiled.frameDuration)) is outside "
                                       + "the composition, which runs from "
                                       + describeSpan(.zero, compiled.duration, frameDuration: compiled.frameDuration)
                                       + "; a picture needs 0 ≤ time < end")
        }
        let paths = times.indices.map { output.replacingOccurrences(of: "%d", with: String($0 + 1)) }
        // Checked for every file before the first is written: a picture never replaces a source, nor an existing
        // file without --force.
        for path in paths {
            try OutputTarget.refuseInputs(path, inputs: [project])
            try OutputTarget.refuseAssets(path, of: compiled)
            try OutputTarget.refuseExisting(path, force: force)
        }
        let generator = try ImageGenerator(project: compiled, facts: catalog.facts, policy: policy)
        try OutputTarget.withFolders(of: paths, create: mkdir) {
            for (time, path) in zip(times, paths) {
                if Interrupts.cancellation.isCancelled { throw CommandFailure.interrupted }
                let image = try generator.image(at: time, size: size.flatMap(parseSize), format: format)
                try TextOutputFile.write(Data(image), to: path, overwrite: force)
            }
        }
        MediaOptions.reportConcealments(in: policy)
    }

    /// The picture format the output's extension names; `validate()` refuses any other extension.
    private var format: ImageFormat {
        guard let format = ImageFormat(pathExtensionOf: output) else {
            preconditionFailure("validate() accepts only .png, .jpg and .jpeg outputs")
        }
        return format
    }

    /// Refuses more than one time (or none) unless the output is a pattern with %d to number the files.
    private func patternFailure(timeCount: Int) -> CommandFailure? {
        guard timeCount != 1, !output.contains("%d") else { return nil }
        return .usage("\(timeCount) times need a pattern with %d, not \(output)")
    }

    private func requestedTimes(frameRate: Rational?, duration: Time) throws -> [Time] {
        do {
            if let at {
                return try at.split(separator: ",").map {
                    try ProjectLoader.parseCommandLineTime(String($0).trimmingCharacters(in: .whitespaces), frameRate: frameRate)
                }
            }
            guard let every else { return [] }
            let step = try ProjectLoader.parseCommandLineTime(every, frameRate: frameRate)
            guard step > .zero else { throw CommandFailure.usage("--every must be positive") }
            var times: [Time] = []
            var time = Time.zero
            while time < duration, times.count < 100_000 {
                times.append(time)
                time = try time + step
            }
            return times
        } catch let error as TimeParseError {
            throw CommandFailure.usage(error.message)
        } catch let error as TimeError {
            throw CommandFailure.usage("time out of range: \(error)")
        }
    }
}

/// "320x180" → 320×180 (even sides, 2…8192).
func parseSize(_ text: String) -> PixelSize? {
    let parts = text.lowercased().split(separator: "x")
    guard parts.count == 2, let width = wholeNumber(parts[0]), let height = wholeNumber(parts[1]),
        (2...8192).contains(width), (2...8192).contains(height), width % 2 == 0, height % 2 == 0
    else { return nil }
    return PixelSize(width: width, height: height)
}

/// A whole number typed on the command line: ASCII digits only (`Int("+5")` would take a sign; reel's number
/// forms take none), nil otherwise or when too large.
func wholeNumber(_ text: Substring) -> Int? {
    guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
    return Int(text)
}
