import Foundation
import ReelModel
import ReelRender

#if canImport(Glibc)
import Glibc
#endif

/// What every command that writes a file checks first, so they all follow `render`'s rule (SPEC §7): an input
/// is never replaced (not even with `--force`), an existing file needs `--force`, and a missing folder is an error
/// (exit 73) unless `--mkdir` asks for it to be created. The writes themselves are atomic (`TextOutputFile`,
/// `ExportSession`: a temporary file beside the destination, renamed on success).
enum OutputTarget {
    /// The hint of the "output folder does not exist" error.
    static let mkdirHint = "create it (mkdir -p), or pass --mkdir to let reel create it"

    /// Refuses `output` when it names one of `inputs` (the project file, parts to join, an EDL being imported),
    /// compared as `InputProtection` compares files (symbolic and hard links included). Exit 73.
    static func refuseInputs(_ output: String, inputs: [String]) throws {
        for input in inputs where input != "-" && InputProtection.isSameFile(output, input) {
            throw CommandFailure(.cannotCreate, "\(output) is \(input), an input of this command; an output never "
                                 + "replaces an input, even with --force: choose another output path")
        }
    }

    /// Refuses `output` when it names a file of one of `project`'s assets. Exit 73.
    static func refuseAssets(_ output: String, of project: CompiledProject) throws {
        if let clash = InputProtection.clash(output: output, project: project) {
            throw InputProtection.error(output: output, clash: clash)
        }
    }

    /// Refuses an existing `output` without `force` (exit 73), before any work is done.
    static func refuseExisting(_ output: String, force: Bool) throws {
        var status = stat()
        guard lstat(output, &status) == 0 else { return }
        if (status.st_mode & S_IFMT) == S_IFDIR {
            throw CommandFailure(.cannotCreate, "\(output) is a directory; name a file inside it")
        }
        if !force { throw CommandFailure(.cannotCreate, "\(output) exists; use --force to replace it") }
    }

    /// Runs `write` once the folder of each of `outputs` exists: a missing folder is created when `create` is set
    /// (`--mkdir`, like `mkdir -p`), otherwise it is an error (exit 73) whose hint names `--mkdir`. When `write`
    /// fails, the folders created for it are removed again if they are still empty, so a failed command leaves
    /// nothing behind.
    static func withFolders<Result>(of outputs: [String], create: Bool, _ write: () throws -> Result) throws -> Result {
        var created: [String] = []
        do {
            for output in outputs {
                created += try prepareFolder(of: output, create: create)
            }
            return try write()
        } catch {
            for folder in created.reversed() { rmdir(folder) }
            throw error
        }
    }

    /// Makes sure the folder of `output` exists; returns the folders it created, outermost first.
    private static func prepareFolder(of output: String, create: Bool) throws -> [String] {
        let folder = URL(fileURLWithPath: output).standardizedFileURL.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw CommandFailure(.cannotCreate, "the output folder \(folder) is a file, not a folder")
            }
            return []
        }
        guard create else {
            throw CommandFailure(.cannotCreate, "the output folder \(folder) does not exist\n       hint: \(mkdirHint)")
        }
        var missing: [String] = []
        var next = URL(fileURLWithPath: folder)
        while !FileManager.default.fileExists(atPath: next.path), next.path != "/" {
            missing.insert(next.path, at: 0)
            next = next.deletingLastPathComponent()
        }
        for (index, path) in missing.enumerated() where Glibc.mkdir(path, 0o777) != 0 && errno != EEXIST {
            let reason = String(cString: strerror(errno))
            for created in missing[..<index].reversed() { rmdir(created) }
            throw CommandFailure(.cannotCreate, "cannot create the output folder \(path) (--mkdir): \(reason)")
        }
        return missing
    }
}
