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
        try OutputDestination(path).check(overwrite: overwrite)
        StalePartials.sweep(folder: folder)
        let name = StalePartials.name(for: url.lastPathComponent)
        return OutputFile(path: path, temporaryPath: url.deletingLastPathComponent().appendingPathComponent(name).path)
    }

    /// Moves the finished temporary file onto the destination (`OutputDestination.place`); removes it on failure.
    func commit(overwrite: Bool) throws(RenderError) {
        do {
            try OutputDestination(path).place(temporaryPath, overwrite: overwrite)
        } catch {
            discard()
            switch error {
            case .appeared:
                throw RenderError(.cannotCreateOutput, "\(path) appeared while rendering; use --force to replace it")
            case .failed(let reason):
                throw RenderError(.io, "cannot move the finished file to \(path): \(reason)")
            }
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
        let prepared = try PreparedOutput.prepare(path, overwrite: overwrite, project: project, inputs: inputs)
        onTemporaryFile?(prepared.temporaryPath)
        defer { onTemporaryFile?(nil) }
        do {
            try body(.file(prepared.target))
        } catch {
            prepared.discard()
            throw prepared.naming(error)
        }
        try prepared.commit(overwrite: overwrite)
    }

    /// Writes several files in one render (`outputs`, docs/outputs.md): every destination is checked and given its
    /// hidden temporary before anything renders; `body` gets the temporaries in order; on any failure every one is
    /// removed (`onTemporaryFiles` is told every temporary, then nothing, for a last-resort cleanup on signals). The
    /// files are moved into place only when `body` has finished all of them; if one cannot be (it
    /// appeared meanwhile without `--force`), the ones already moved by this render are removed again.
    static func writeAll(_ destinations: [(path: String, project: CompiledProject)], overwrite: Bool,
                         onTemporaryFiles: (([String]) -> Void)? = nil,
                         _ body: ([String]) throws(RenderError) -> Void) throws(RenderError) {
        var prepared: [PreparedOutput] = []
        do {
            for destination in destinations {
                prepared.append(try PreparedOutput.prepare(destination.path, overwrite: overwrite,
                                                           project: destination.project, inputs: []))
            }
        } catch {
            for output in prepared { output.discard() }
            throw error
        }
        onTemporaryFiles?(prepared.map(\.temporaryPath))
        defer { onTemporaryFiles?([]) }
        do {
            try body(prepared.map(\.target))
        } catch {
            for output in prepared { output.discard() }
            var named = error
            for output in prepared { named = output.naming(named) }
            throw named
        }
        var committed: [PreparedOutput] = []
        for (index, output) in prepared.enumerated() {
            do {
                try output.commit(overwrite: overwrite)
                committed.append(output)
            } catch {
                for later in prepared[(index + 1)...] { later.discard() }
                if !overwrite { for done in committed { done.removeCommitted() } }
                throw error
            }
        }
    }
}

/// One destination made ready for writing: a file's temporary beside it, an image sequence's or a segmented
/// package's hidden folder.
enum PreparedOutput {
    case file(OutputFile)
    case sequence(SequenceFolder, path: String)
    case package(PackageFolder)

    /// Checks `path` (never over an input, nor over an existing file without `overwrite`) and makes its temporary.
    static func prepare(_ path: String, overwrite: Bool, project: CompiledProject,
                        inputs: [String]) throws(RenderError) -> PreparedOutput {
        if let input = InputProtection.clash(output: path, project: project) {
            throw OutputDestination(path).error(.isInput(input))
        }
        if project.output.format?.isPictureOnly == true, case .pattern(let pattern) = FramePattern.parse(path) {
            return .sequence(try SequenceFolder.prepare(pattern, overwrite: overwrite), path: path)
        }
        if let input = InputProtection.clash(output: path, inputs: inputs) {
            throw RenderError(.cannotCreateOutput, "the output \(path) is the input \(input); an output never "
                              + "replaces an input, even with --force: choose another output path")
        }
        if project.output.format?.isSegmented == true {
            return .package(try PackageFolder.prepare(path, overwrite: overwrite, project: project))
        }
        return .file(try OutputFile.prepare(path: path, overwrite: overwrite))
    }

    /// What the muxer opens: the temporary file, or the pattern or playlist inside the hidden folder.
    var target: String {
        switch self {
        case .file(let file): file.temporaryPath
        case .sequence(let sequence, _): sequence.temporaryPattern
        case .package(let package): package.temporaryPlaylist
        }
    }

    /// The hidden file or folder, for a last-resort cleanup on signals.
    var temporaryPath: String {
        switch self {
        case .file(let file): file.temporaryPath
        case .sequence(let sequence, _): sequence.temporaryFolder
        case .package(let package): package.temporaryFolder
        }
    }

    /// `error` with the hidden names replaced by the ones the user asked for.
    func naming(_ error: RenderError) -> RenderError {
        switch self {
        case .file(let file):
            return RenderError(error.kind, error.message.replacingOccurrences(of: file.temporaryPath, with: file.path))
        case .sequence(let sequence, let path):
            return RenderError(error.kind, error.message.replacingOccurrences(of: sequence.temporaryPattern, with: path)
                .replacingOccurrences(of: sequence.temporaryFolder + "/", with: sequence.pattern.folder))
        case .package(let package):
            return RenderError(error.kind, error.message.replacingOccurrences(of: package.temporaryPlaylist, with: package.path)
                .replacingOccurrences(of: package.temporaryFolder + "/", with: package.folder + "/"))
        }
    }

    func discard() {
        switch self {
        case .file(let file): file.discard()
        case .sequence(let sequence, _): sequence.discard()
        case .package(let package): package.discard()
        }
    }

    func commit(overwrite: Bool) throws(RenderError) {
        switch self {
        case .file(let file): try file.commit(overwrite: overwrite)
        case .sequence(let sequence, _): try sequence.commit(overwrite: overwrite)
        case .package(let package): try package.commit(overwrite: overwrite)
        }
    }

    /// Removes what a successful commit put in place (another output of the same render failed to move).
    func removeCommitted() {
        switch self {
        case .file(let file): unlink(file.path)
        case .sequence(let sequence, _): sequence.removeCommitted()
        case .package(let package): package.removeCommitted()
        }
    }
}

/// The files of an HLS or DASH output (docs/outputs.md): the playlist or manifest and the segments the muxer
/// names after it (`NAME_init.mp4`, `NAME_00000.m4s`, …; DASH `NAME_init_0.m4s`, `NAME_0_00001.m4s`, …), written
/// by libavformat into a hidden folder beside them and moved into place once complete, the playlist last, so a
/// player never reads a playlist whose segments are missing. The same rules as an image sequence's hold: without
/// `--force` no file of the package may exist (checked before and, by `link(2)`, at each move; files already moved
/// are removed again if one appears); with `--force` the package's older files that the new one does not write (an
/// older, longer render's segments) are removed.
struct PackageFolder {
    /// The playlist or manifest as given.
    let path: String
    let folder: String
    /// The playlist's name without its extension: the stem of every segment name.
    let stem: String
    let temporaryFolder: String
    var temporaryPlaylist: String { temporaryFolder + "/" + (path as NSString).lastPathComponent }
    /// Files of the package already in the folder.
    let existing: [String]

    /// Whether `name` is the playlist or one of its segments.
    static func belongs(_ name: String, stem: String, playlist: String) -> Bool {
        name == playlist || (name.hasPrefix(stem + "_") && (name.hasSuffix(".m4s") || name == stem + "_init.mp4"))
    }

    static func prepare(_ path: String, overwrite: Bool, project: CompiledProject) throws(RenderError) -> PackageFolder {
        let probe = try OutputFile.prepare(path: path, overwrite: overwrite)
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let playlist = url.lastPathComponent
        let stem = url.deletingPathExtension().lastPathComponent
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let existing = names.filter { belongs($0, stem: stem, playlist: playlist) }.sorted()
        if !overwrite, let first = existing.first {
            throw RenderError(.cannotCreateOutput, "\(folder)/\(first) exists (a file of the package \(path)); use "
                              + "--force to replace the package")
        }
        let hidden = probe.temporaryPath
        guard mkdir(hidden, 0o755) == 0 else {
            throw RenderError(.cannotCreateOutput, "cannot create a temporary folder in \(folder): "
                              + String(cString: strerror(errno)))
        }
        return PackageFolder(path: path, folder: folder, stem: stem, temporaryFolder: hidden, existing: existing)
    }

    /// Moves the segments, then the playlist, into place; then removes the hidden folder.
    func commit(overwrite: Bool) throws(RenderError) {
        defer { discard() }
        let playlist = (path as NSString).lastPathComponent
        let written = ((try? FileManager.default.contentsOfDirectory(atPath: temporaryFolder)) ?? [])
            .filter { Self.belongs($0, stem: stem, playlist: playlist) }
            .sorted { ($0 == playlist ? 1 : 0, $0) < ($1 == playlist ? 1 : 0, $1) }
        try moveIntoPlace(written, from: temporaryFolder, to: { "\(folder)/\($0)" }, overwrite: overwrite,
                          replacing: existing, what: "package")
    }

    /// The files of the package now in the folder, removed (another output of the render failed to move).
    func removeCommitted() {
        let playlist = (path as NSString).lastPathComponent
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        where Self.belongs(name, stem: stem, playlist: playlist) {
            unlink("\(folder)/\(name)")
        }
    }

    func discard() {
        SequenceFolder.removeTemporaryFolder(temporaryFolder)
    }
}

/// The files of an image sequence (`frame_%05d.png`, docs/outputs.md): written by image2 into a hidden folder beside
/// them, then moved into place one by one once every frame is written.
///
/// The sequence as a whole cannot be replaced in one atomic step; what holds instead: a render that fails or is
/// interrupted leaves only the hidden folder, which is removed; without `--force`, no file of the pattern may exist
/// (checked before rendering, and again for each file at its move, by `link(2)`), and if one appears meanwhile the
/// files already moved are removed again, so nothing of the failed render stays; with `--force`, each file replaces
/// its namesake and the files of an older, longer sequence of the same pattern are removed, so the folder holds the
/// new sequence alone.
struct SequenceFolder {
    let pattern: FramePattern
    /// The folder the frames go to (the pattern's, or ".").
    let folder: String
    /// The hidden folder image2 writes into.
    let temporaryFolder: String
    /// The pattern inside the hidden folder, as given to image2.
    let temporaryPattern: String
    /// Files of the pattern that existed before the render (replaced or removed at the commit with `--force`).
    let existing: [String]

    /// Checks the folder and the files of the pattern already there, and creates the hidden folder.
    static func prepare(_ pattern: FramePattern, overwrite: Bool) throws(RenderError) -> SequenceFolder {
        let folder = pattern.folder.isEmpty ? "." : String(pattern.folder.dropLast())
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.isEmpty ? "/" : folder, isDirectory: &isDirectory),
              isDirectory.boolValue else {
            throw RenderError(.cannotCreateOutput, "output folder \(folder) does not exist")
        }
        guard access(folder.isEmpty ? "/" : folder, W_OK) == 0 else {
            throw RenderError(.cannotCreateOutput, "output folder \(folder) is not writable")
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "/" : folder)) ?? [])
        let existing = names.filter { pattern.frameNumber(ofFileName: $0) != nil }
            .sorted { pattern.frameNumber(ofFileName: $0)! < pattern.frameNumber(ofFileName: $1)! }
        if !overwrite, let first = existing.first {
            throw RenderError(.cannotCreateOutput, "\(pattern.folder)\(first) exists (\(existing.count) file(s) of the "
                              + "sequence \(pattern.folder)\(pattern.prefix)%0\(pattern.digits)d\(pattern.suffix)); "
                              + "use --force to replace the sequence")
        }
        let stem = (pattern.prefix + pattern.suffix).replacingOccurrences(of: "/", with: "_")
        StalePartials.sweep(folder: folder)
        let hidden = pattern.folder + StalePartials.name(for: stem)
        guard mkdir(hidden, 0o755) == 0 else {
            throw RenderError(.cannotCreateOutput, "cannot create a temporary folder in \(folder): "
                              + String(cString: strerror(errno)))
        }
        let digits = pattern.digits > 1 ? "%0\(pattern.digits)d" : "%d"
        return SequenceFolder(pattern: pattern, folder: folder, temporaryFolder: hidden,
                              temporaryPattern: "\(hidden)/\(pattern.prefix)\(digits)\(pattern.suffix)",
                              existing: existing)
    }

    /// Moves every written frame into place (see the type's rules), then removes the hidden folder.
    func commit(overwrite: Bool) throws(RenderError) {
        defer { discard() }
        let written = ((try? FileManager.default.contentsOfDirectory(atPath: temporaryFolder)) ?? [])
            .filter { pattern.frameNumber(ofFileName: $0) != nil }
        try moveIntoPlace(written, from: temporaryFolder, to: { "\(pattern.folder)\($0)" }, overwrite: overwrite,
                          replacing: existing, what: "sequence")
    }

    /// Removes the hidden folder and whatever is in it.
    func discard() {
        SequenceFolder.removeTemporaryFolder(temporaryFolder)
    }

    /// Removes the files of the pattern now in the folder (another output of the render failed to move).
    func removeCommitted() {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        where pattern.frameNumber(ofFileName: name) != nil {
            unlink("\(pattern.folder)\(name)")
        }
    }

    /// Removes a hidden folder of an image sequence and the files in it (also the last-resort cleanup on signals).
    static func removeTemporaryFolder(_ path: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] { unlink("\(path)/\(name)") }
        rmdir(path)
    }
}

/// Moves the files `names` of `temporaryFolder` to `destination(name)`, in order. With `overwrite` each replaces
/// what is there; without, a file never replaces one that exists (a hard link, or on filesystems without them a
/// check and a rename), and when one cannot be placed the files this call placed are removed again and the error
/// says whether one appeared meanwhile (`what` names the whole: "package", "sequence"). With `overwrite`, the
/// files of `existing` (an older package or sequence there) that the new one does not replace are removed, so an
/// older, longer sequence's frames do not follow the new ones.
func moveIntoPlace(_ names: [String], from temporaryFolder: String, to destination: (String) -> String,
                   overwrite: Bool, replacing existing: [String], what: String) throws(RenderError) {
    var moved: [String] = []
    for name in names {
        let from = "\(temporaryFolder)/\(name)", to = destination(name)
        do {
            try OutputDestination(to).place(from, overwrite: overwrite)
            if !overwrite { moved.append(to) }
        } catch {
            for file in moved { unlink(file) }
            switch error {
            case .appeared:
                throw RenderError(.cannotCreateOutput, "\(to) appeared while rendering; use --force to replace the \(what)")
            case .failed(let reason):
                throw RenderError(.io, "cannot move \(to) into place: \(reason)")
            }
        }
    }
    if overwrite {
        let kept = Set(names)
        for name in existing where !kept.contains(name) { unlink(destination(name)) }
    }
}
