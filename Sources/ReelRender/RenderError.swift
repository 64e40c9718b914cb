import ReelMedia
import ReelTime

/// Why an export stopped, with the sysexits code the CLI reports for it (SPEC §7).
public struct RenderError: Error, Sendable, CustomStringConvertible {
    /// The class of failure; each maps to one exit code.
    public enum Kind: Sendable, Equatable {
        /// The project or a source's data is invalid (65).
        case invalid
        /// A source file is missing or unreadable (66).
        case missingInput
        /// A codec, encoder or feature is unavailable (69).
        case unsupported
        /// A bug or an impossible state (70).
        case `internal`
        /// The output exists and `--force` was not given, or its folder is missing or not writable (73).
        case cannotCreateOutput
        /// Reading or writing failed (74).
        case io
        /// SIGINT, SIGTERM or a cancel request (130).
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

    /// The process exit code for this error (sysexits).
    public var exitCode: Int32 {
        switch kind {
        case .invalid: 65
        case .missingInput: 66
        case .unsupported: 69
        case .internal: 70
        case .cannotCreateOutput: 73
        case .io: 74
        case .cancelled: 130
        }
    }

    public var description: String { message }
}
