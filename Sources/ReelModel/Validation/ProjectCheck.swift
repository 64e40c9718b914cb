/// Compiling, then validating: the one road every command takes from a read project to one it may render.
public enum ProjectCheck {
    /// Compiles `project` (`Compiler.compile`), then runs every check of `ValidationRegistry` but the destination's,
    /// in order, with the code of the slots from `slots` (a slot left out is skipped). The compiled project is nil
    /// when anything found an error; the diagnostics are the compiler's, then each check's.
    public static func run(_ project: Project, facts: [String: MediaFactsResult], probed: Bool = true,
                           measure: TranscriptPager.Measure? = nil,
                           slots: [ValidationCheck.Name: ValidationCheck.Run] = [:])
        -> (compiled: CompiledProject?, diagnostics: [Diagnostic]) {
        validate(Compiler.compile(project, facts: facts, probed: probed, measure: measure), of: project, slots: slots)
    }

    /// Runs every check of `ValidationRegistry` but the destination's on a compilation of `project`.
    public static func validate(_ compilation: Compilation, of project: Project,
                                slots: [ValidationCheck.Name: ValidationCheck.Run] = [:])
        -> (compiled: CompiledProject?, diagnostics: [Diagnostic]) {
        var diagnostics = compilation.diagnostics
        func hasErrors() -> Bool { diagnostics.contains { $0.severity == .error } }
        func code(_ check: ValidationCheck) -> ValidationCheck.Run? { check.run ?? slots[check.name] }
        let checks = ValidationRegistry.checks
        // First the checks of what compiled (the registry lists them first), then the rest in order.
        let onCompiled = checks.prefix { $0.requirement == .compiledWithoutErrors }
        if let inPart = compilation.compiledInPart, !compilation.hasErrors {
            for check in onCompiled {
                diagnostics += code(check)?(ValidationCheck.Subject(project: project, compiled: inPart)) ?? []
            }
        }
        let valid = hasErrors() || compilation.isPartial ? nil : compilation.compiledInPart
        for check in checks.dropFirst(onCompiled.count) {
            guard let run = code(check) else { continue }
            let compiled: CompiledProject?
            switch check.requirement {
            case .project:
                compiled = nil
            case .validComposition:
                guard let valid else { continue }
                compiled = valid
            case .noErrorsSoFar:
                guard let valid, !hasErrors() else { continue }
                compiled = valid
            case .compiledWithoutErrors, .destination:
                continue
            }
            // A file the compiler or an earlier check refused is refused once (`inputs` and the check that reads it
            // find the same missing font or LUT).
            for found in run(ValidationCheck.Subject(project: project, compiled: compiled)) where !diagnostics.contains(found) {
                diagnostics.append(found)
            }
        }
        return (hasErrors() || compilation.isPartial ? nil : compilation.compiledInPart, diagnostics)
    }

    /// The destination's checks (`reel validate`), run after the rest on the project and what it compiled to.
    public static func validateDestination(of project: Project, compiled: CompiledProject?,
                                           slots: [ValidationCheck.Name: ValidationCheck.Run]) -> [Diagnostic] {
        ValidationRegistry.checks.filter { $0.requirement == .destination }.flatMap { check -> [Diagnostic] in
            guard let run = check.run ?? slots[check.name] else { return [] }
            return run(ValidationCheck.Subject(project: project, compiled: compiled))
        }
    }
}
