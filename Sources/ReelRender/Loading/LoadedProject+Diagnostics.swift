import ReelModel

extension LoadedProject {
    /// A project that could not even be read (for example an imported EDL with errors): no model, just problems.
    public static func failed(_ diagnostics: [Diagnostic]) -> LoadedProject {
        LoadedProject(project: nil, compiled: nil, catalog: nil, diagnostics: diagnostics)
    }

    /// The same load with its diagnostics replaced (put in context by the caller: an importer naming the EDL line
    /// each generated clip came from). The compiled form is withdrawn if the new list has errors.
    public func replacingDiagnostics(_ diagnostics: [Diagnostic]) -> LoadedProject {
        let failed = diagnostics.contains { $0.severity == .error }
        return LoadedProject(project: project, compiled: failed ? nil : compiled, catalog: catalog, diagnostics: diagnostics)
    }
}
