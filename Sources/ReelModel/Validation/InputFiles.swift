import Foundation
import ReelCodecs

#if canImport(Glibc)
import Glibc
#endif

/// A file a project reads besides its media assets (which are probed): a caption file, a transcript, a LUT or a
/// font file, with the JSON path of the key that names it.
public struct InputFileReference: Sendable, Hashable {
    /// What the file is, as messages name it.
    public enum Kind: String, Sendable {
        case captionFile = "caption file"
        case transcript = "transcript"
        case lut = "LUT file"
        case font = "font file"
        case denoiseModel = "rnnoise model file"
        case maskImage = "mask image"
    }

    /// What the file is.
    public var kind: Kind
    /// The path as written in the project (relative to its folder, or absolute).
    public var written: String
    /// The key that names it: `$.timeline.captions[0].file`, `$.timeline.clips[2].effects[0].file`, ….
    public var path: JSONPath

    /// A file of `kind` written `written` at `path`.
    public init(kind: Kind, written: String, path: JSONPath) {
        self.kind = kind
        self.written = written
        self.path = path
    }
}

extension Project {
    /// Every caption file, transcript, LUT and font file the project names, in document order as far as the
    /// model keeps it (clips, their captions and effects, then overlays, titles and timeline captions, then the
    /// explicit form's layers, titles and captions). A file named twice is listed twice, at each path.
    public var inputFiles: [InputFileReference] {
        var found: [InputFileReference] = []
        func captions(_ captions: Captions) {
            found.append(InputFileReference(kind: captions.isTranscript ? .transcript : .captionFile,
                                            written: captions.file,
                                            path: captions.path.key(captions.isTranscript ? "transcript" : "file")))
            if let font = captions.style.font, captions.style.fontIsFile {
                found.append(InputFileReference(kind: .font, written: font, path: captions.path.key("style").key("font")))
            }
        }
        func effects(_ effects: [LayerEffect]) {
            for effect in effects {
                if case .lut(let file) = effect.kind {
                    found.append(InputFileReference(kind: .lut, written: file, path: effect.path.key("file")))
                }
                if case .mask(let mask) = effect.kind, let file = mask.image {
                    found.append(InputFileReference(kind: .maskImage, written: file, path: effect.path.key("image")))
                }
            }
        }
        func titles(_ layers: [MovieLayer]) {
            for layer in layers {
                guard case .text(let style) = layer.content, let font = style.font, style.fontIsFile else { continue }
                found.append(InputFileReference(kind: .font, written: font, path: layer.path.key("font")))
            }
        }
        func audioEffects(_ effects: [AudioEffect]) {
            for effect in effects {
                if let file = effect.modelFile {
                    found.append(InputFileReference(kind: .denoiseModel, written: file, path: effect.path.key("modelFile")))
                }
            }
        }
        if let timeline {
            for item in timeline.items {
                guard case .clip(let clip) = item else { continue }
                if let written = clip.captions { captions(written) }
                effects(clip.effects)
                audioEffects(clip.audioEffects)
            }
            for track in timeline.audio { audioEffects(track.effects) }
            for overlay in timeline.trackOverlays { effects(overlay.effects) }
            titles(timeline.titles)
            timeline.captions.forEach(captions)
        }
        if let videoComposition { found += videoComposition.inputFiles(includingCaptionsWithCues: false) }
        for input in audioMix?.inputs ?? [] { audioEffects(input.effects) }
        audioEffects(output.audio?.effects ?? [])
        return found
    }
}

extension VideoComposition {
    /// The caption files, transcripts, LUTs and font files of the explicit form: its layers' effects, its titles
    /// and its captions. Explicit SubRip and WebVTT captions with their cues written need no file to render; they
    /// are listed only `includingCaptionsWithCues` (their file is still the user's, which no output may replace).
    public func inputFiles(includingCaptionsWithCues: Bool) -> [InputFileReference] {
        var found: [InputFileReference] = []
        for instruction in instructions {
            for layer in instruction.layers {
                for effect in layer.effects {
                    if case .lut(let file) = effect.kind {
                        found.append(InputFileReference(kind: .lut, written: file, path: effect.path.key("file")))
                    }
                    if case .mask(let mask) = effect.kind, let file = mask.image {
                        found.append(InputFileReference(kind: .maskImage, written: file, path: effect.path.key("image")))
                    }
                }
            }
        }
        for layer in titles {
            guard case .text(let style) = layer.content, let font = style.font, style.fontIsFile else { continue }
            found.append(InputFileReference(kind: .font, written: font, path: layer.path.key("font")))
        }
        for entry in captions {
            let captions = entry.captions
            let format = captions.format ?? CaptionFormat(fileName: captions.file)
            if includingCaptionsWithCues || captions.cues == nil || format == .ass {
                found.append(InputFileReference(kind: captions.isTranscript ? .transcript : .captionFile,
                                                written: captions.file,
                                                path: captions.path.key(captions.isTranscript ? "transcript" : "file")))
            }
            if let font = captions.style.font, captions.style.fontIsFile {
                found.append(InputFileReference(kind: .font, written: font, path: captions.path.key("style").key("font")))
            }
        }
        return found
    }
}

/// Why a local file cannot be read, told from `stat(2)` and `access(2)` without opening it: opening a FIFO blocks
/// until a writer comes, so a FIFO, a directory, a device or a socket is refused before anything opens it, as media
/// files are (`ReelMedia`'s input check).
public enum LocalInputFile {
    /// A problem with a file: the message's end (after the file's name) and the exit status it calls for.
    public struct Problem: Sendable, Hashable {
        /// "is missing", "is a FIFO, not a regular file", "cannot be read: Permission denied".
        public var message: String
        /// `.missingInput` (66) for a missing or unreadable file, `.invalid` (65) for one that is not a regular file.
        public var category: DiagnosticCategory
    }

    /// The problem with the file at `path` (absolute, or relative to the working directory), nil when it is a
    /// regular file this process may read.
    public static func problem(at path: String) -> Problem? {
        switch LocalFileState(path: path) {
        case .readable: return nil
        case .missing: return Problem(message: "is missing", category: .missingInput)
        case .unreadable(let reason): return Problem(message: "cannot be read: \(reason)", category: .missingInput)
        case .notRegular(let what):
            return Problem(message: what == "not a regular file" ? "is not a regular file" : "is \(what), not a regular file",
                           category: .invalid)
        }
    }

    /// The diagnostic for `reference` when its file (resolved with `resolvedPath`) cannot be read; nil when it can.
    public static func diagnostic(for reference: InputFileReference, resolvedPath: (String) -> String) -> Diagnostic? {
        guard let problem = problem(at: resolvedPath(reference.written)) else { return nil }
        let hint = problem.category == .missingInput
            ? "check the path (relative paths start at the project's folder)"
            : "name a regular file; reel does not read \(reference.kind.rawValue)s from pipes or devices"
        return Diagnostic(path: reference.path, message: "\(reference.kind.rawValue) \(reference.written) \(problem.message)",
                          hint: hint, category: problem.category)
    }
}
