import Foundation
import ReelModel
import ReelTime

/// The interchange formats reel reads.
public enum InterchangeFormat: String, Sendable {
    /// OpenTimelineIO JSON (`.otio`).
    case otio
    /// CMX 3600 edit decision list (`.edl`).
    case edl

    /// The format a file name's extension names, or nil for anything else (a reel JSON project).
    public init?(path: String) {
        let lower = path.lowercased()
        if lower.hasSuffix(".otio") {
            self = .otio
        } else if lower.hasSuffix(".edl") {
            self = .edl
        } else {
            return nil
        }
    }
}

/// How an interchange file is imported: the command line's `--frame-rate`, `--media-dir`, `--relink` and
/// `--missing-media`.
public struct InterchangeOptions: Sendable {
    /// The EDL's frame rate when the list does not state it (ignored for OTIO, whose times carry their rate).
    public var frameRate: Rational?
    /// Folders searched for media by name.
    public var mediaDirectories: [String]
    /// Name/URL → path map (already read from `--relink`).
    public var relinkMap: [String: String]
    /// The folder the relink map's relative paths are relative to (the map file's folder).
    public var relinkBase: String
    /// What a missing medium is.
    public var missingMedia: MissingMediaPolicy
    /// Whether the timeline's markers become `timeline.chapters` (`--markers-as-chapters`).
    public var markersAsChapters = false
    /// The size and rate of the kept stacks' compositions: the canvas the flattened import renders at. With it, a
    /// nested OTIO stack in a video track becomes an entry of `compositions`; without it (or with
    /// `--flatten-stacks`), nested stacks are flattened in place.
    public var canvas: ImportCanvas?
    /// Said as a warning when nested stacks were flattened because their canvas could not be told.
    public var flattenReason: String?

    /// Options; the defaults resolve media only through the file's own locators.
    public init(frameRate: Rational? = nil, mediaDirectories: [String] = [], relinkMap: [String: String] = [:],
                relinkBase: String = "", missingMedia: MissingMediaPolicy = .error) {
        self.frameRate = frameRate
        self.mediaDirectories = mediaDirectories
        self.relinkMap = relinkMap
        self.relinkBase = relinkBase
        self.missingMedia = missingMedia
    }
}

/// The picture size and frame rate a kept stack's composition is written with.
public struct ImportCanvas: Sendable, Hashable {
    public var width: Int
    public var height: Int
    public var frameRate: Rational

    public init(width: Int, height: Int, frameRate: Rational) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
    }
}

/// An imported file as a reel project: the editing-form document, the problems found, and where each generated
/// clip came from (so that the project's own diagnostics can name the EDL line or OTIO path).
public struct ImportedProject: Sendable {
    /// The edit as read.
    public let edit: ImportedEdit
    /// The reel project (editing form); present even when there are errors, as far as it could be built.
    public let document: JSONValue
    /// Import problems: the edit's own, then relinking's.
    public let diagnostics: [Diagnostic]
    /// Generated JSON path prefix → origin in the imported file.
    let origins: [(path: String, origin: ImportOrigin)]

    /// Whether any import diagnostic is an error.
    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    /// The document as pretty JSON text with a final newline.
    public var text: String { JSONWriter.write(document, pretty: true) + "\n" }

    /// Diagnostics about the generated project, each told which imported clip it concerns:
    /// "… (from edit.edl:12, event 003)".
    public func annotate(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        diagnostics.map { diagnostic in
            let path = diagnostic.path.description
            guard diagnostic.origin == nil,
                  let match = origins.filter({ path == $0.path || path.hasPrefix($0.path + ".") || path.hasPrefix($0.path + "[") })
                    .max(by: { $0.path.count < $1.path.count })
            else { return diagnostic }
            var annotated = diagnostic
            annotated.message += " (imported from \(match.origin))"
            return annotated
        }
    }
}

/// Reading OpenTimelineIO files and CMX 3600 EDLs, and writing OpenTimelineIO (docs/interchange.md).
public enum Interchange {
    /// Reads an interchange file's edit: tracks, pieces, transitions and problems, before relinking.
    /// With `keepStacks`, a nested OTIO stack in a video track is one piece showing an `ImportedComposition`.
    public static func read(_ bytes: [UInt8], format: InterchangeFormat, fileName: String, frameRate: Rational? = nil,
                            keepStacks: Bool = false) -> ImportedEdit
    {
        switch format {
        case .otio: OTIOReader.read(bytes, file: fileName, keepStacks: keepStacks)
        case .edl: CMXImporter.importList(bytes, file: fileName, frameRate: frameRate)
        }
    }

    /// Reads an interchange file and builds the equivalent reel project.
    ///
    /// - Parameters:
    ///   - baseDirectory: the imported file's folder (relative OTIO `target_url`s resolve against it).
    ///   - projectDirectory: the folder the project will live in; asset paths inside it are written relative.
    public static func importProject(_ bytes: [UInt8], format: InterchangeFormat, fileName: String,
                                     baseDirectory: String, projectDirectory: String,
                                     options: InterchangeOptions = InterchangeOptions()) -> ImportedProject {
        var edit = read(bytes, format: format, fileName: fileName, frameRate: options.frameRate,
                        keepStacks: options.canvas != nil)
        if let reason = options.flattenReason {
            var diagnostic = Diagnostic(.warning, path: .root, message: "nested stacks flattened: \(reason)")
            diagnostic.origin = DiagnosticOrigin(file: fileName)
            edit.diagnostics.append(diagnostic)
        }
        let resolver = MediaResolver(mediaDirectories: options.mediaDirectories, relinkMap: options.relinkMap,
                                     relinkBase: options.relinkBase, baseDirectory: baseDirectory)
        var builder = ProjectBuilder(edit: edit, resolver: resolver, missingMedia: options.missingMedia,
                                     projectDirectory: projectDirectory)
        builder.markersAsChapters = options.markersAsChapters
        builder.canvas = options.canvas
        let document = builder.build()
        let markerDiagnostics = options.markersAsChapters ? edit.markerDiagnostics : []
        return ImportedProject(edit: edit, document: document, diagnostics: edit.diagnostics + markerDiagnostics + builder.diagnostics,
                               origins: builder.origins)
    }
}
