import Foundation
import ReelModel

#if canImport(Glibc)
import Glibc
#endif

/// Keeps renders from replacing their own sources: an output that names one of the project's input files is
/// refused, with or without `--force`.
///
/// Two names are the same file when they resolve to the same path once symbolic links and `.`/`..` are
/// resolved, or when both exist and share a device and inode (a hard link, a bind mount).
public enum InputProtection {
    /// A file the project reads.
    public struct Input: Sendable, Equatable {
        /// What it is, for messages: `asset "logo"`, `the LUT of $.timeline.clips[0].effects[0]`, ….
        public let role: String
        /// The file as the project names it, made absolute against its folder.
        public let path: String
    }

    /// An input file that an output would replace.
    public struct Clash: Sendable, Equatable {
        /// What the input is, for messages (`Input.role`).
        public let role: String
        /// The input's file as the project names it, made absolute.
        public let inputPath: String
    }

    /// Every file `project` reads (docs/outputs.md, "Inputs are never replaced"): the files of its assets, the
    /// LUTs of its effects, its caption and transcript files, and the font files of its titles and captions.
    public static func inputs(of project: CompiledProject) -> [Input] {
        var inputs: [Input] = []
        func add(_ role: String, _ written: String) {
            let path = project.resolvedPath(written)
            if !inputs.contains(where: { $0.path == path }) { inputs.append(Input(role: role, path: path)) }
        }
        for asset in project.assets {
            switch asset.source {
            case .file(let file, _, _, _, _), .image(let file): add("asset \"\(asset.id)\"", file)
            case .color: continue
            }
        }
        for file in project.videoComposition.inputFiles(includingCaptionsWithCues: true) {
            add("the \(file.kind.rawValue) of \(file.path)", file.written)
        }
        return inputs
    }

    /// The first input of `project` (`inputs(of:)`) whose file `outputPath` names, or nil when the output replaces
    /// no input. For an image sequence, the whole pattern is the output: no input may be among its files.
    public static func clash(output outputPath: String, project: CompiledProject) -> Clash? {
        let inputs = inputs(of: project)
        if project.output.format?.isPictureOnly == true, case .pattern(let pattern) = FramePattern.parse(outputPath) {
            return clash(sequence: pattern, inputs: inputs)
        }
        let output = FileName(outputPath)
        for input in inputs where output.isSameFile(as: FileName(input.path)) {
            return Clash(role: input.role, inputPath: input.path)
        }
        if project.output.format?.isSegmented == true { return clash(package: outputPath, inputs: inputs) }
        return nil
    }

    /// The first of `inputs` that is a file of the HLS or DASH package whose playlist is `playlistPath` (its init
    /// segment or one of its media segments, `PackageFolder.belongs`): the render replaces all of them.
    private static func clash(package playlistPath: String, inputs: [Input]) -> Clash? {
        let playlist = URL(fileURLWithPath: FileName(playlistPath).resolved)
        let folder = playlist.deletingLastPathComponent().path
        let stem = playlist.deletingPathExtension().lastPathComponent
        for candidate in inputs {
            let input = URL(fileURLWithPath: FileName(candidate.path).resolved)
            if input.deletingLastPathComponent().path == folder,
               PackageFolder.belongs(input.lastPathComponent, stem: stem, playlist: playlist.lastPathComponent) {
                return Clash(role: candidate.role, inputPath: candidate.path)
            }
        }
        return nil
    }

    /// The first of `inputs` whose file is one of the image sequence `pattern`'s (in its folder, links resolved,
    /// with a name the pattern makes): the whole sequence is the output, so no input may be among it.
    private static func clash(sequence pattern: FramePattern, inputs: [Input]) -> Clash? {
        let folder = FileName(pattern.folder.isEmpty ? "./" : pattern.folder).resolved
        let outputFolder = folder.hasSuffix("/") ? folder : folder + "/"
        for candidate in inputs {
            let input = URL(fileURLWithPath: FileName(candidate.path).resolved)
            let inputFolder = input.deletingLastPathComponent().path
            if (inputFolder.hasSuffix("/") ? inputFolder : inputFolder + "/") == outputFolder,
               pattern.frameNumber(ofFileName: input.lastPathComponent) != nil {
                return Clash(role: candidate.role, inputPath: candidate.path)
            }
        }
        return nil
    }

    /// The first of `inputs` (files a command reads besides the project's assets, such as the parts a join copies)
    /// that `outputPath` names, or nil.
    public static func clash(output outputPath: String, inputs: [String]) -> String? {
        inputs.first { isSameFile(outputPath, $0) }
    }

    /// Whether `first` and `second` name the same file: the same path once links and `.`/`..` are resolved, or
    /// (both existing) the same device and inode. For outputs checked against inputs that are not assets (the
    /// project file itself, parts to join).
    public static func isSameFile(_ first: String, _ second: String) -> Bool {
        FileName(first).isSameFile(as: FileName(second))
    }

    /// The error an export reports for `clash`: exit 73, naming the output and the input.
    public static func error(output outputPath: String, clash: Clash) -> RenderError {
        RenderError(
            .cannotCreateOutput,
            "\(outputPath) is the file of \(clash.role) (\(clash.inputPath)); "
                + "an output never replaces an input, even with --force: choose another output path")
    }

    /// A path with what the file system says about it.
    private struct FileName {
        /// The path with symbolic links resolved as far as they exist (the last component may not exist yet).
        let resolved: String
        /// Device and inode, when the path names an existing file.
        let identity: (device: UInt64, inode: UInt64)?

        init(_ path: String) {
            var status = stat()
            identity = stat(path, &status) == 0 ? (UInt64(status.st_dev), UInt64(status.st_ino)) : nil
            if let real = Self.realPath(path) {
                resolved = real
            } else {
                // Not there yet: resolve its folder and keep its name.
                let url = URL(fileURLWithPath: path)
                let folder = Self.realPath(url.deletingLastPathComponent().path)
                    ?? url.deletingLastPathComponent().standardizedFileURL.path
                resolved = (folder.hasSuffix("/") ? folder : folder + "/") + url.lastPathComponent
            }
        }

        func isSameFile(as other: FileName) -> Bool {
            if resolved == other.resolved { return true }
            guard let mine = identity, let theirs = other.identity else { return false }
            return mine == theirs
        }

        private static func realPath(_ path: String) -> String? {
            guard let pointer = realpath(path, nil) else { return nil }
            defer { free(pointer) }
            return String(cString: pointer)
        }
    }
}
