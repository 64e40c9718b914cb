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
            PATTERN names the files: %d is replaced by the index of the time in the list, counted from 0 as \
            image-sequence outputs count their frames, %03d by the index padded with zeros to 3 digits (any width, as printf); %% is a percent sign. With a single \
            time it may name one file. The extension (.png, .jpg, .jpeg) picks the format. As with \
            render, an existing file is replaced only with --force (checked for every file before the first \
            is written), an input is never replaced, and each file is written atomically. Frames are always \
            decoded exactly, so --exact changes nothing. --size W keeps the render's aspect; PNG pictures may \
            have odd sides, JPEG ones are even.

            --sheet COLSxROWS tiles the pictures into a contact sheet, each over its timecode (HH:MM:SS:FF of \
            its frame): by default one picture at the middle of every video instruction (on the frame holding \
            it), or at --at or --every times. --size is then a tile's size (default 320 pixels wide, or the \
            render's width if smaller). More pictures than cells need a pattern with %d: one sheet per \
            COLS × ROWS pictures.

            Examples:
              reel thumbnail project.json --at 0,2.5,00:00:05:12 -o shot-%d.png
              reel thumbnail project.json --every 10 -o contact-%03d.jpg --size 320x180
              reel thumbnail project.json --at 1 -o small.png --size 101
              reel thumbnail project.json --at 48f -o poster.png
              reel thumbnail project.json --sheet 4x3 -o sheet.png
              reel thumbnail project.json --sheet 5x4 --every 30 -o sheet-%d.jpg --size 256x144
            """ + "\n\n" + exitCodesHelp)

    @Argument(help: "The project file, or - for standard input.")
    var project: String

    @Option(help: "Comma-separated times (every form a project accepts; a bare number is seconds).")
    var at: String?

    @Option(help: "Take a picture every T seconds from 0 to the end.")
    var every: String?

    @Option(name: .shortAndLong, help: "Output file pattern with %d or %03d, or one file for one time.")
    var output: String

    @Flag(help: "Replace output files that exist.")
    var force = false

    @Flag(help: "Create the output folder if it does not exist.")
    var mkdir = false

    @Option(help: "Picture size WxH, or W to keep the render's aspect (default: the render size).")
    var size: String?

    @Flag(help: "Decode to the exact frame (always the case).")
    var exact = false

    @Option(help: ArgumentHelp("Tile the pictures into contact sheets of COLS × ROWS with timecodes (default times: "
                                   + "the middle of every instruction).", valueName: "COLSxROWS"))
    var sheet: String?

    /// `--sheet COLSxROWS` as numbers (1…64 each), when well formed.
    private var sheetShape: (columns: Int, rows: Int)? {
        guard let sheet else { return nil }
        let parts = sheet.lowercased().split(separator: "x", omittingEmptySubsequences: false).map(wholeNumber)
        guard parts.count == 2, let columns = parts[0], let rows = parts[1], (1...64).contains(columns),
              (1...64).contains(rows) else { return nil }
        return (columns, rows)
    }

    @OptionGroup var media: MediaOptions

    @OptionGroup var interchange: InterchangeArguments

    func validate() throws {
        if sheet == nil, (at == nil) == (every == nil) { throw Exit.report(.usage("give exactly one of --at and --every")) }
        if sheet != nil, at != nil, every != nil { throw Exit.report(.usage("give at most one of --at and --every")) }
        if let sheet, sheetShape == nil {
            throw Exit.report(.usage("--sheet \(sheet): write COLSxROWS with 1 to 64 of each (e.g. --sheet 4x3)"))
        }
        if ImageFormat(pathExtensionOf: output) == nil {
            throw Exit.report(.usage("the output pattern must end in .png, .jpg or .jpeg"))
        }
        if let size, ThumbnailSize(size, allowsOddSides: format == .png) == nil {
            throw Exit.report(.usage(format == .png
                ? "--size takes WxH or W, 1 to 8192 pixels, e.g. 320x180 or 320"
                : "--size takes WxH or W with even sides from 2 to 8192 for JPEG, e.g. 320x180 or 320"))
        }
        do {
            _ = try FilePattern(output)
        } catch {
            throw Exit.report(.usage(error.message))
        }
        if sheet == nil, let at, let failure = patternFailure(timeCount: at.split(separator: ",").count) {
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
        let times = at == nil && every == nil
            ? ContactSheet.instructionMidpoints(of: compiled)
            : try requestedTimes(frameRate: compiled.output.frameRate, duration: compiled.duration)
        let shape = sheetShape
        let fileCount = shape.map { (times.count + $0.columns * $0.rows - 1) / ($0.columns * $0.rows) } ?? times.count
        if let failure = patternFailure(timeCount: fileCount) { throw failure }
        if let outside = times.first(where: { $0.isNegative || $0 >= compiled.duration }) {
            throw CommandFailure.usage("--at: \(describeTime(outside, frameDuration: compiled.frameDuration)) is outside "
                                       + "the composition, which runs from "
                                       + describeSpan(.zero, compiled.duration, frameDuration: compiled.frameDuration)
                                       + "; a picture needs 0 ≤ time < end")
        }
        let pattern = try FilePattern(output)
        let paths = (0..<fileCount).map { pattern.path(index: FramePattern.firstNumber + $0) }
        let sheetTile = ThumbnailSize(String(min(320, compiled.encodedSize.width) & (format == .png ? ~0 : ~1)),
                                      allowsOddSides: format == .png)
        let pictureSize = (size.flatMap { ThumbnailSize($0, allowsOddSides: format == .png) } ?? (shape == nil ? nil : sheetTile))?
            .pixels(renderSize: compiled.encodedSize, allowsOddSides: format == .png)
        // Checked for every file before the first is written: a picture never replaces a source, nor an existing
        // file without --force.
        for path in paths {
            try OutputTarget.refuseInputs(path, inputs: [project])
            try OutputTarget.refuseAssets(path, of: compiled)
            try OutputTarget.refuseExisting(path, force: force)
        }
        let generator = try ImageGenerator(project: compiled, facts: catalog.facts, policy: policy)
        try OutputDestination.withFolders(of: paths, create: mkdir) {
            if let shape, let pictureSize {
                let layout = ContactSheet(columns: shape.columns, rows: shape.rows, tile: pictureSize)
                for (index, path) in paths.enumerated() {
                    let page = Array(times.dropFirst(index * layout.capacity).prefix(layout.capacity))
                    let labels = page.map { ContactSheet.timecode($0, frameDuration: compiled.frameDuration) }
                    let image = try layout.image(times: page, labels: labels, generator: generator, format: format,
                                                 isCancelled: { Interrupts.cancellation.isCancelled })
                    try TextOutputFile.write(Data(image), to: path, overwrite: force)
                }
                return
            }
            for (time, path) in zip(times, paths) {
                if Interrupts.cancellation.isCancelled { throw CommandFailure.interrupted }
                let image = try generator.image(at: time, size: pictureSize, format: format)
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

    /// Refuses more than one time (or none) unless the output is a pattern with %d (or %03d) to number the files.
    private func patternFailure(timeCount: Int) -> CommandFailure? {
        guard timeCount != 1, (try? FilePattern(output))?.numbersFiles != true else { return nil }
        return .usage("\(timeCount) \(sheet == nil ? "times" : "sheets") need a pattern with %d or %03d, not \(output)")
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
            return ContactSheet.times(every: step, before: duration)
        } catch let error as TimeParseError {
            throw CommandFailure.usage(error.message + "\n       hint: " + TimeSyntax.writtenForms)
        } catch let error as TimeError {
            throw CommandFailure.usage("time out of range: \(error)")
        }
    }
}

/// A `--size` value: `WxH`, or `W` alone to keep the render's aspect.
struct ThumbnailSize: Equatable {
    var width: Int
    var height: Int?

    /// Parses "320x180" or "320"; sides 1…8192 (2…8192 and even unless `allowsOddSides`).
    init?(_ text: String, allowsOddSides: Bool) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2 else { return nil }
        let sides = parts.map { part in part.allSatisfy(\.isASCII) ? Int(part) : nil }
        guard let width = sides[0], Self.isValid(width, allowsOddSides: allowsOddSides) else { return nil }
        if parts.count == 2 {
            guard let height = sides[1], Self.isValid(height, allowsOddSides: allowsOddSides) else { return nil }
            self.height = height
        } else {
            self.height = nil
        }
        self.width = width
    }

    private static func isValid(_ side: Int, allowsOddSides: Bool) -> Bool {
        allowsOddSides ? (1...8192).contains(side) : (2...8192).contains(side) && side % 2 == 0
    }

    /// The picture size: a missing height is width × render height / render width, rounded to the nearest pixel
    /// (half up), at least 1; rounded down to even (at least 2) when sides must be even.
    func pixels(renderSize: PixelSize, allowsOddSides: Bool) -> PixelSize {
        if let height { return PixelSize(width: width, height: height) }
        let exact = (2 * width * renderSize.height + renderSize.width) / (2 * renderSize.width)
        let height = allowsOddSides ? max(1, min(exact, 8192)) : max(2, min(exact, 8192) & ~1)
        return PixelSize(width: width, height: height)
    }
}

/// A thumbnail file pattern: `%d` or a printf width (`%03d`, `%4d`) numbers the files, `%%` is a percent sign.
struct FilePattern {
    /// A pattern with a `%` that is neither `%%` nor a `%d` conversion.
    struct Failure: Error {
        let message: String
    }

    private enum Piece {
        case text(String)
        case index(width: Int, zeroPadded: Bool)
    }

    private let pieces: [Piece]

    /// Whether the pattern holds a number conversion (else it names one file).
    var numbersFiles: Bool {
        pieces.contains { if case .index = $0 { true } else { false } }
    }

    init(_ pattern: String) throws(Failure) {
        var pieces: [Piece] = []
        var text = ""
        var characters = pattern[...]
        while let character = characters.popFirst() {
            guard character == "%" else {
                text.append(character)
                continue
            }
            if characters.first == "%" {
                characters.removeFirst()
                text.append("%")
                continue
            }
            let zeroPadded = characters.first == "0"
            let digits = characters.prefix { $0.isASCII && $0.isNumber }
            characters = characters.dropFirst(digits.count)
            guard characters.popFirst() == "d", let width = digits.isEmpty ? 0 : Int(digits), width <= 32 else {
                throw Failure(message: "the output pattern \(pattern) has a % that is not %d, %0Nd (N ≤ 32) or %%")
            }
            pieces.append(.text(text))
            text = ""
            pieces.append(.index(width: width, zeroPadded: zeroPadded))
        }
        pieces.append(.text(text))
        self.pieces = pieces
    }

    /// The file name for `index` (counted from `FramePattern.firstNumber`, 0).
    func path(index: Int) -> String {
        pieces.map { piece in
            switch piece {
            case .text(let text): return text
            case .index(let width, let zeroPadded):
                let digits = String(index)
                let padding = String(repeating: zeroPadded ? "0" : " ", count: max(0, width - digits.count))
                return padding + digits
            }
        }.joined()
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
