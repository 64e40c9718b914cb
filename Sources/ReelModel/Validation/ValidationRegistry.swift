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
        /// Every caption file, transcript, LUT and font file the project names, told missing, unreadable or not a
        /// regular file without opening it (`Project.inputFiles`, `LocalInputFile`), whatever else failed: one run
        /// names every missing input.
        case inputs
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
        ValidationCheck(name: .inputs, requirement: .project, run: nil),
        ValidationCheck(name: .layers, requirement: .project, run: nil),
        ValidationCheck(name: .captions, requirement: .validComposition, run: nil),
        ValidationCheck(name: .effects, requirement: .validComposition, run: nil),
        ValidationCheck(name: .canvas, requirement: .noErrorsSoFar, run: nil),
        ValidationCheck(name: .output, requirement: .destination, run: nil),
    ]
}
