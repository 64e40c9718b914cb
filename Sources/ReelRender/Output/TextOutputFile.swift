import Foundation

/// Writing a small file (an imported project, an exported OTIO file, a thumbnail) the way exports write media: to a
/// temporary file beside the destination, renamed onto it only when complete, never over an existing file
/// without `overwrite`.
public enum TextOutputFile {
    /// Writes `text` to `path` atomically; errors are `.cannotCreateOutput` (exists, missing or unwritable
    /// folder) or `.io`.
    public static func write(_ text: String, to path: String, overwrite: Bool) throws(RenderError) {
        try write(Data(text.utf8), to: path, overwrite: overwrite)
    }

    /// Writes `bytes` to `path` atomically, as `write(_:to:overwrite:)` writes text.
    public static func write(_ bytes: Data, to path: String, overwrite: Bool) throws(RenderError) {
        let file = try OutputFile.prepare(path: path, overwrite: overwrite)
        guard FileManager.default.createFile(atPath: file.temporaryPath, contents: bytes) else {
            file.discard()
            throw RenderError(.io, "cannot write \(path)")
        }
        try file.commit(overwrite: overwrite)
    }

    /// Writes several texts as `write(_:to:overwrite:)` writes one, together: every file is written to its temporary
    /// file first, and only when all are complete are they renamed into place, so a failure leaves none of them
    /// (`reel cut`'s project and report).
    public static func write(_ texts: [(text: String, path: String)], overwrite: Bool) throws(RenderError) {
        var prepared: [OutputFile] = []
        do throws(RenderError) {
            for (text, path) in texts {
                let file = try OutputFile.prepare(path: path, overwrite: overwrite)
                prepared.append(file)
                guard FileManager.default.createFile(atPath: file.temporaryPath, contents: Data(text.utf8)) else {
                    throw RenderError(.io, "cannot write \(path)")
                }
            }
            for file in prepared { try file.commit(overwrite: overwrite) }
        } catch {
            for file in prepared { file.discard() }
            throw error
        }
    }
}
