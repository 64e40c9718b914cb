import Foundation
import ReelMedia
import ReelModel

#if canImport(Glibc)
import Glibc
#endif

/// The file an export writes: a temporary file beside the destination, renamed onto it only on success.
///
/// Without overwrite the final step is `link(2)`, which fails atomically if the destination appeared while
/// rendering, so two renders racing for one output never clobber each other.
struct OutputFile {
    /// The destination path as given.
    let path: String
    /// The hidden temporary file in the destination's folder.
    let temporaryPath: String

    /// Checks the destination and picks the temporary path; creates nothing.
    static func prepare(path: String, overwrite: Bool) throws(RenderError) -> OutputFile {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw RenderError(.cannotCreateOutput, "output folder \(folder) does not exist")
        }
        guard access(folder, W_OK) == 0 else {
            throw RenderError(.cannotCreateOutput, "output folder \(folder) is not writable")
        }
        var status = stat()
        if lstat(path, &status) == 0 {
            if (status.st_mode & S_IFMT) == S_IFDIR {
                throw RenderError(.cannotCreateOutput, "\(path) is a directory")
            }
            if !overwrite {
                throw RenderError(.cannotCreateOutput, "\(path) exists; use --force to replace it")
            }
        }
        let name = ".\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).reel-partial"
        return OutputFile(path: path, temporaryPath: url.deletingLastPathComponent().appendingPathComponent(name).path)
    }

    /// Moves the finished temporary file onto the destination.
    func commit(overwrite: Bool) throws(RenderError) {
        if overwrite {
            guard rename(temporaryPath, path) == 0 else {
                let reason = String(cString: strerror(errno))
                discard()
                throw RenderError(.io, "cannot move the finished file to \(path): \(reason)")
            }
            return
        }
        if link(temporaryPath, path) == 0 {
            discard()
            return
        }
        let code = errno
        if code == EEXIST {
            discard()
            throw RenderError(.cannotCreateOutput, "\(path) appeared while rendering; use --force to replace it")
        }
        // Filesystems without hard links: fall back to a check and a rename.
        guard code == EPERM || code == ENOTSUP || code == EXDEV else {
            discard()
            throw RenderError(.io, "cannot move the finished file to \(path): \(String(cString: strerror(code)))")
        }
        var status = stat()
        guard lstat(path, &status) != 0 else {
            discard()
            throw RenderError(.cannotCreateOutput, "\(path) appeared while rendering; use --force to replace it")
        }
        guard rename(temporaryPath, path) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw RenderError(.io, "cannot move the finished file to \(path): \(reason)")
        }
    }

    /// Removes the temporary file (if it exists).
    func discard() {
        unlink(temporaryPath)
    }
}

extension OutputFile {
    /// Writes `destination` through `body`, the one way every render, part and join reaches the disk (SPEC §7).
    ///
    /// A file is never one of `project`'s inputs nor one of `inputs`; it is written to a temporary file beside it
    /// (announced through `onTemporaryFile` for a last-resort cleanup on signals), renamed into place only when `body`
    /// succeeds and removed on any failure, and messages name the file the user asked for, not the hidden one.
    /// Standard output is written directly.
    static func write(_ destination: ExportDestination, overwrite: Bool, project: CompiledProject,
                      inputs: [String] = [], onTemporaryFile: ((String?) -> Void)? = nil,
                      _ body: (MuxerDestination) throws(RenderError) -> Void) throws(RenderError) {
        guard case .file(let path) = destination else {
            return try body(.standardOutput)
        }
        if let clash = InputProtection.clash(output: path, project: project) {
            throw InputProtection.error(output: path, clash: clash)
        }
        if let input = InputProtection.clash(output: path, inputs: inputs) {
            throw RenderError(.cannotCreateOutput, "the output \(path) is the input \(input); an output never "
                              + "replaces an input, even with --force: choose another output path")
        }
        let file = try prepare(path: path, overwrite: overwrite)
        onTemporaryFile?(file.temporaryPath)
        defer { onTemporaryFile?(nil) }
        do {
            try body(.file(file.temporaryPath))
        } catch {
            file.discard()
            throw RenderError(error.kind, error.message.replacingOccurrences(of: file.temporaryPath, with: path))
        }
        try file.commit(overwrite: overwrite)
    }
}
