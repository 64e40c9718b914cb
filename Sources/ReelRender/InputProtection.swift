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
    /// An input file that an output would replace.
    public struct Clash: Sendable, Equatable {
        /// The asset whose file it is.
        public let asset: String
        /// The asset's file as the project names it, made absolute.
        public let inputPath: String
    }

    /// The first asset of `project` whose file `outputPath` names, or nil when the output replaces no input.
    public static func clash(output outputPath: String, project: CompiledProject) -> Clash? {
        if project.output.format?.isPictureOnly == true, case .pattern(let pattern) = FramePattern.parse(outputPath) {
            return clash(sequence: pattern, project: project)
        }
        let output = FileName(outputPath)
        for asset in project.assets {
            let path: String
            switch asset.source {
            case .file(let file, _, _, _, _), .image(let file): path = project.resolvedPath(file)
            case .color: continue
            }
            if output.isSameFile(as: FileName(path)) { return Clash(asset: asset.id, inputPath: path) }
        }
        return nil
    }

    /// The first asset of `project` whose file is one of the image sequence `pattern`'s (in its folder, links
    /// resolved, with a name the pattern makes): the whole sequence is the output, so no input may be among it.
    private static func clash(sequence pattern: FramePattern, project: CompiledProject) -> Clash? {
        let folder = FileName(pattern.folder.isEmpty ? "./" : pattern.folder).resolved
        let outputFolder = folder.hasSuffix("/") ? folder : folder + "/"
        for asset in project.assets {
            let path: String
            switch asset.source {
            case .file(let file, _, _, _, _), .image(let file): path = project.resolvedPath(file)
            case .color: continue
            }
            let input = URL(fileURLWithPath: FileName(path).resolved)
            let inputFolder = input.deletingLastPathComponent().path
            if (inputFolder.hasSuffix("/") ? inputFolder : inputFolder + "/") == outputFolder,
               pattern.frameNumber(ofFileName: input.lastPathComponent) != nil {
                return Clash(asset: asset.id, inputPath: path)
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
            "\(outputPath) is the file of asset \"\(clash.asset)\" (\(clash.inputPath)); "
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
