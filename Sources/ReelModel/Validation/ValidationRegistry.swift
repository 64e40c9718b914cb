/// One check of a project after it compiled, by name, in `ValidationRegistry.checks`.
///
/// A check either runs here (`run` set: it needs nothing but the model) or is a slot that a module linking the
/// machine fills in (`run` nil: it opens fonts, images, caption files or the output folder). ReelRender fills every
/// slot (`RenderChecks`); a caller without one (ReelModel's tests, the fuzz harness) leaves the slots empty and those
/// checks are skipped.
public struct ValidationCheck: Sendable {
    /// The checks, by name; their order is `ValidationRegistry.checks`'s.
    public enum Name: String, Sendable, CaseIterable {
        /// SPEC §4.5 instruction coverage and the other rules of the explicit form (`Validator`).
        case composition
        /// Titles' fonts and overlays' images (ReelRender's `LayerCheck`).
        case layers
        /// Caption files and fonts (ReelRender's `CaptionCheck`).
        case captions
        /// Effects' files and filter graphs (ReelRender's `EffectCheck`).
        case effects
        /// Images against the canvas (ReelRender's `CanvasCheck`).
        case canvas
        /// The destination: folder, existing file, never over an input (ReelRender's `OutputCheck`, which asks
        /// `InputProtection`).
        case output
    }

    /// When a check runs, given what came before it.
    public enum Requirement: Sendable {
        /// On what compiled, also of a project read in part, when compiling found no error. These checks come
        /// first in the registry.
        case compiledWithoutErrors
        /// Always, on the project as read.
        case project
        /// On a project that compiled and passed every `.compiledWithoutErrors` check.
        case validComposition
        /// As `.validComposition`, when no check before it found an error either.
        case noErrorsSoFar
        /// Only when the command checks the destination (`reel validate`), after every other check, on the project
        /// and the composition as they came out.
        case destination
    }

    /// What a check looks at.
    public struct Subject: Sendable {
        /// The project as read (with the command line's overrides).
        public let project: Project
        /// The compiled project, or what compiled of it: see `Requirement` for which one a check is given.
        public let compiled: CompiledProject?
    }

    /// The code of a check: every problem it finds, in order.
    public typealias Run = @Sendable (Subject) -> [Diagnostic]

    public let name: Name
    public let requirement: Requirement
    /// The check's code when it needs nothing but the model; nil for a slot filled by the module that has the machine.
    public let run: Run?

    /// Whether the check needs the machine (fonts, files, the output folder), so that its code lives outside ReelModel.
    public var isSlot: Bool { run == nil }
}

/// Every check a project goes through after compiling, in the order they run, which is the order of their
/// diagnostics. A new check goes here: with its code when it needs only the model (as `composition`), as a slot
/// when it needs the machine (its code then lives in ReelRender and `RenderChecks` fills the slot).
public enum ValidationRegistry {
    public static let checks: [ValidationCheck] = [
        ValidationCheck(name: .composition, requirement: .compiledWithoutErrors,
                        run: { subject in subject.compiled.map(Validator.validate) ?? [] }),
        ValidationCheck(name: .layers, requirement: .project, run: nil),
        ValidationCheck(name: .captions, requirement: .validComposition, run: nil),
        ValidationCheck(name: .effects, requirement: .validComposition, run: nil),
        ValidationCheck(name: .canvas, requirement: .noErrorsSoFar, run: nil),
        ValidationCheck(name: .output, requirement: .destination, run: nil),
    ]
}

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
            diagnostics += run(ValidationCheck.Subject(project: project, compiled: compiled))
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
