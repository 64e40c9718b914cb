import Foundation
import ReelModel

#if canImport(Glibc)
import Glibc
#endif

/// One file a command is about to write, from the path it resolved to until it is committed: the one place that
/// knows what can be wrong with a destination and how to say it (docs/outputs.md, "Files").
///
/// `reel validate` asks it for diagnostics (`diagnostic(_:at:)`), a render and every other writer for errors
/// (`check(…)`), and `--mkdir` for the folders it creates (`createFolder()`); `OutputFile` writes beside it and
/// commits onto it. Every fault is exit 73 and reads the same whoever finds it.
public struct OutputDestination: Sendable, Equatable {
    /// The file, absolute and normalised.
    public let path: String

    /// The destination `path` (absolute, or relative to the working directory).
    public init(_ path: String) {
        self.path = OutputPlacement.normalised(path)
    }

    /// The folder that holds it.
    public var folder: String { OutputPlacement.folder(of: path) }

    /// The hint of a missing output folder.
    public static let mkdirHint = "create it (mkdir -p), pass --mkdir to let reel create it, or pass -o to write elsewhere"

    /// What stops a write to the destination.
    public enum Fault: Sendable, Equatable {
        /// The folder does not exist (`--mkdir` creates it).
        case folderMissing
        /// The folder's place holds a file.
        case folderIsFile
        /// The folder cannot be written to.
        case folderNotWritable
        /// The destination is a directory.
        case isDirectory
        /// The destination exists and replacing it was not asked for (`--force`).
        case exists
        /// The destination would replace one of the command's inputs.
        case isInput(InputProtection.Input)
    }

    /// The first fault of the destination, in the order a person fixes them: the folder (missing ones only when
    /// `folderMustExist`), the destination's kind, an input it would replace (`project`'s, then `inputs`, each with
    /// its role), an existing file (only when `!overwrite`). Nil: it can be written.
    public func fault(overwrite: Bool, folderMustExist: Bool = true, project: CompiledProject? = nil,
                      inputs: [(role: String, path: String)] = []) -> Fault? {
        var status = stat()
        if stat(folder, &status) != 0 {
            if folderMustExist { return .folderMissing }
        } else if (status.st_mode & S_IFMT) != S_IFDIR {
            return .folderIsFile
        } else if access(folder, W_OK) != 0 {
            return .folderNotWritable
        }
        let exists = lstat(path, &status) == 0
        if exists, (status.st_mode & S_IFMT) == S_IFDIR { return .isDirectory }
        if let project, let input = InputProtection.clash(output: path, project: project) { return .isInput(input) }
        for input in inputs where input.path != "-" && InputProtection.isSameFile(path, input.path) {
            return .isInput(InputProtection.Input(role: input.role, path: OutputPlacement.normalised(input.path)))
        }
        if exists, !overwrite { return .exists }
        return nil
    }

    /// What a person reads about `fault`: the message and the hint.
    public func describe(_ fault: Fault) -> (message: String, hint: String) {
        switch fault {
        case .folderMissing:
            ("the output folder \(folder) does not exist", Self.mkdirHint)
        case .folderIsFile:
            ("the output folder \(folder) is a file, not a folder", "pass -o to write elsewhere")
        case .folderNotWritable:
            ("the output folder \(folder) is not writable", "pass -o to write elsewhere")
        case .isDirectory:
            ("\(path) is a directory", "name a file inside it")
        case .exists:
            ("\(path) exists; use --force to replace it", "or pass -o to write elsewhere")
        case .isInput(let input):
            ("\(path) is the file of \(input.role) (\(input.path)); an output never replaces an input, even with --force",
             "choose another output path")
        }
    }

    /// `fault` as a diagnostic at `jsonPath` (exit 73), for `reel validate`.
    public func diagnostic(_ fault: Fault, at jsonPath: JSONPath) -> Diagnostic {
        let (message, hint) = describe(fault)
        return Diagnostic(path: jsonPath, message: message, hint: hint, category: .cannotCreateOutput)
    }

    /// `fault` as the error that stops a write (exit 73), its hint on a second line.
    public func error(_ fault: Fault) -> RenderError {
        let (message, hint) = describe(fault)
        return RenderError(.cannotCreateOutput, message + "\n       hint: " + hint)
    }

    /// Throws the destination's first fault (`fault(…)`), if any.
    public func check(overwrite: Bool, folderMustExist: Bool = true, project: CompiledProject? = nil,
                      inputs: [(role: String, path: String)] = []) throws(RenderError) {
        if let fault = fault(overwrite: overwrite, folderMustExist: folderMustExist, project: project, inputs: inputs) {
            throw error(fault)
        }
    }

    /// Creates the destination's folder and any missing parents (`--mkdir`, as `mkdir -p`); returns the folders
    /// created, outermost first, for `removeFolders` to take back when the write fails. Creates nothing when one
    /// cannot be made.
    public func createFolder() throws(RenderError) -> [String] {
        var missing: [String] = []
        var next = URL(fileURLWithPath: folder)
        while !FileManager.default.fileExists(atPath: next.path), next.path != "/" {
            missing.insert(next.path, at: 0)
            next = next.deletingLastPathComponent()
        }
        for (index, created) in missing.enumerated() where mkdir(created, 0o777) != 0 && errno != EEXIST {
            let reason = String(cString: strerror(errno))
            Self.removeFolders(Array(missing[..<index]))
            throw RenderError(.cannotCreateOutput, "cannot create the output folder \(created) (--mkdir): \(reason)")
        }
        return missing
    }

    /// Why a finished file could not take the destination's place.
    public enum PlacementFailure: Error, Sendable {
        /// A file appeared at the destination while the output was being made (and replacing was not asked for).
        case appeared
        /// The move failed for this reason (`strerror`).
        case failed(String)
    }

    /// The commit: moves the finished file `temporary` (in the destination's folder) onto the destination. With
    /// `overwrite` a `rename(2)`; without, a `link(2)`, which fails atomically if the destination appeared
    /// meanwhile, so two writers racing for one file never clobber each other (on filesystems without hard links,
    /// a check and a rename). On success the temporary name is gone; on failure it is left for the caller to
    /// discard.
    public func place(_ temporary: String, overwrite: Bool) throws(PlacementFailure) {
        if overwrite {
            guard rename(temporary, path) == 0 else { throw .failed(String(cString: strerror(errno))) }
            return
        }
        if link(temporary, path) == 0 {
            unlink(temporary)
            return
        }
        let code = errno
        var status = stat()
        if code == EEXIST || lstat(path, &status) == 0 { throw .appeared }
        guard code == EPERM || code == ENOTSUP || code == EXDEV else { throw .failed(String(cString: strerror(code))) }
        guard rename(temporary, path) == 0 else { throw .failed(String(cString: strerror(errno))) }
    }

    /// Runs `write` once the folder of each of `outputs` exists: a missing folder is created when `create` is set
    /// (`--mkdir`, like `mkdir -p`), otherwise it is an error (exit 73) whose hint names `--mkdir`. When `write`
    /// fails, the folders created for it are removed again if they are still empty, so a failed command leaves
    /// nothing behind.
    public static func withFolders<Result>(of outputs: [String], create: Bool,
                                           _ write: () throws -> Result) throws -> Result {
        var created: [String] = []
        do {
            for output in outputs {
                let destination = OutputDestination(output)
                if let fault = destination.fault(overwrite: true, folderMustExist: !create),
                   fault == .folderMissing || fault == .folderIsFile {
                    throw destination.error(fault)
                }
                if create { created += try destination.createFolder() }
            }
            return try write()
        } catch {
            removeFolders(created)
            throw error
        }
    }

    /// Removes `folders` (outermost first, as `createFolder` returns them) again where they are still empty.
    public static func removeFolders(_ folders: [String]) {
        for folder in folders.reversed() { rmdir(folder) }
    }
}
