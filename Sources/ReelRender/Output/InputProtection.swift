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
            case .file(let file, _, _, _, _), .image(let file), .composition(.file(let file, _)):
                add("asset \"\(asset.id)\"", file)
            case .color, .composition(.inline): continue
            }
        }
        for file in project.videoComposition.inputFiles(includingCaptionsWithCues: true) {
            add("the \(file.kind.rawValue) of \(file.path)", file.written)
        }
        return inputs
    }

    /// The first input of `project` (`inputs(of:)`) that the output `outputPath` would replace, or nil: the file
    /// itself, or for an image sequence any file of its pattern, for an HLS or DASH package any file of the package
    /// (its init segment or a media segment, `PackageFolder.belongs`).
    public static func clash(output outputPath: String, project: CompiledProject) -> Input? {
        let inputs = inputs(of: project)
        if project.output.format?.isPictureOnly == true, case .pattern(let pattern) = FramePattern.parse(outputPath) {
            let folder = FileName(pattern.folder.isEmpty ? "./" : pattern.folder).resolved
            return first(of: inputs, in: folder) { pattern.frameNumber(ofFileName: $0) != nil }
        }
        let output = FileName(outputPath)
        if let same = inputs.first(where: { output.isSameFile(as: FileName($0.path)) }) { return same }
        guard project.output.format?.isSegmented == true else { return nil }
        let playlist = URL(fileURLWithPath: output.resolved)
        let stem = playlist.deletingPathExtension().lastPathComponent
        return first(of: inputs, in: playlist.deletingLastPathComponent().path) {
            PackageFolder.belongs($0, stem: stem, playlist: playlist.lastPathComponent)
        }
    }

    /// The first of `inputs` that lies in `folder` (links resolved) under a name `isOutputName` accepts.
    private static func first(of inputs: [Input], in folder: String, named isOutputName: (String) -> Bool) -> Input? {
        let outputFolder = URL(fileURLWithPath: folder).standardizedFileURL.path
        return inputs.first { candidate in
            let input = URL(fileURLWithPath: FileName(candidate.path).resolved)
            return input.deletingLastPathComponent().standardizedFileURL.path == outputFolder
                && isOutputName(input.lastPathComponent)
        }
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
