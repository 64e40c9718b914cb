import ReelTime

/// Where the readers and compilers of one run put what they find: every problem is appended, in the order it was
/// found, and nothing stops at the first. One sink is shared by all the readers of a document (`ProjectReader`)
/// and by all the compilers of a project (`Compiler`), so their diagnostics come out in one list.
final class DiagnosticSink {
    /// Everything reported so far, in the order it was reported.
    private(set) var diagnostics: [Diagnostic] = []
    /// The keys of the problems reported once per run (a media file that failed to probe is named by every clip
    /// that uses it, but said once).
    private var reportedOnce: Set<String> = []

    /// Whether any error (not a warning) was reported.
    var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    func append(_ diagnostic: Diagnostic) {
        diagnostics.append(diagnostic)
    }

    func append(contentsOf more: [Diagnostic]) {
        diagnostics += more
    }

    /// Appends `more` the first time `key` is reported in this run; later reports of `key` add nothing.
    func appendOnce(_ key: String, _ more: [Diagnostic]) {
        if reportedOnce.insert(key).inserted { diagnostics += more }
    }

    /// An error at `path` (category `.invalid` unless said otherwise).
    func error(_ path: JSONPath, _ message: String, hint: String? = nil, time: Time? = nil, frame: Int64? = nil,
               category: DiagnosticCategory = .invalid) {
        diagnostics.append(Diagnostic(.error, path: path, message: message, time: time, frame: frame, hint: hint,
                                      category: category))
    }

    /// An error saying that `what`, at `path`, is a feature reel does not have yet (category `.unsupported`).
    func unsupported(_ path: JSONPath, _ what: String) {
        error(path, "\(what) is not supported yet", category: .unsupported)
    }

    /// An error saying that `json` at `path` has the wrong JSON type: "expected X, found a Y".
    func typeError(_ json: JSON, _ path: JSONPath, expected: String) {
        error(path, "expected \(expected), found \(article(json.value.typeName))")
    }
}
