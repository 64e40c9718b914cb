import ReelMedia
import ReelModel
import ReelTime

/// Why an export or a thumbnail stopped: a class of failure and a message for a person.
public struct RenderError: Error, Sendable, CustomStringConvertible {
    /// The class of failure. The CLI turns each kind into one exit status (SPEC §7); a library caller can
    /// switch over it in the same way.
    public enum Kind: Sendable, Equatable {
        /// The project or a source's data is invalid.
        case invalid
        /// The request cannot be carried out as asked (a part of a chunked render with the wrong file name, say):
        /// on the command line, a problem with the flags.
        case usage
        /// A source file is missing or unreadable.
        case missingInput
        /// A codec, encoder or feature is unavailable.
        case unsupported
        /// A bug or an impossible state.
        case `internal`
        /// The output exists and `--force` was not given, or its folder is missing or not writable.
        case cannotCreateOutput
        /// Reading or writing failed.
        case io
        /// SIGINT, SIGTERM or a cancel request.
        case cancelled
    }

    /// The class of failure.
    public let kind: Kind
    /// One line for a person, naming the file, asset or time involved.
    public let message: String

    /// Creates an error of `kind` described by `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// Any error thrown by code that mixes reel's and FFmpeg's failures: a `RenderError` as it is, a `MediaError`
    /// translated, anything else an internal error.
    init(anyError error: any Error) {
        switch error {
        case let error as RenderError: self = error
        case let error as MediaError: self.init(media: error)
        default: self.init(.internal, "\(error)")
        }
    }

    /// Wraps a media error met while reading `asset` (at `sourceTime` seconds into it, when known).
    init(media error: MediaError, asset: String? = nil, sourceTime: Time? = nil) {
        var text = error.description
        if let asset {
            text = "asset \"\(asset)\"" + (sourceTime.map { " at \($0) s" } ?? "") + ": " + text
        }
        switch error.kind {
        case .missing, .unreadable: self.init(.missingInput, text)
        case .unsupported: self.init(.unsupported, text)
        case .io: self.init(.io, text)
        case .internal: self.init(.internal, text)
        case .notRegularFile, .refusedProtocol, .notMedia, .noSuchStream, .corrupt: self.init(.invalid, text)
        }
    }

    public var description: String { message }
}

extension RenderError.Kind {
    /// The kind of failure a list of problems amounts to, nil without errors. The first kind present wins, in this
    /// order: a wrong flag (the command itself must change first), missing media (nothing about it can be
    /// checked), invalid content, features not supported, an output that cannot be created (the project is fine,
    /// its destination is not). docs/decisions.md explains the order.
    public init?(worstOf diagnostics: [Diagnostic]) {
        let errors = diagnostics.filter { $0.severity == .error }
        guard !errors.isEmpty else { return nil }
        let order: [(DiagnosticCategory, Self)] = [
            (.usage, .usage), (.missingInput, .missingInput), (.invalid, .invalid), (.unsupported, .unsupported),
            (.cannotCreateOutput, .cannotCreateOutput),
        ]
        self = order.first { pair in errors.contains { $0.category == pair.0 } }?.1 ?? .invalid
    }
}
