import ReelModel
import ReelTime
import Testing

/// Compiling and validating are two calls (`Compiler.compile`, then the checks of `ValidationRegistry`), and
/// `ProjectCheck` runs them in the registry's order with the slots a caller fills in.
@Suite struct ProjectCheckTests {
    static let facts: [String: MediaFactsResult] = ["a": videoFacts(duration: t(20))]

    /// An explicit-form project that compiles but breaks the composition's rules (an audio mix input on a video
    /// track).
    static let invalidMix = """
    {"reel": 1, "output": {"path": "o.mp4", "frameRate": 30, "size": [640, 360]}, "assets": {"a": {"path": "a.mp4"}},
     "composition": {"tracks": [
        {"id": 1, "type": "video", "segments": [{"asset": "a", "source": {"start": 0, "duration": 2}, "target": {"start": 0, "duration": 2}}]},
        {"id": 2, "type": "audio", "segments": [{"asset": "a", "source": {"start": 0, "duration": 2}, "target": {"start": 0, "duration": 2}}]}]},
     "audioMix": {"inputs": [{"track": 1}]}}
    """
    static let mixError = "error: $.audioMix.inputs[0].track: track 1 is a video track\n       hint: audio mix inputs name audio tracks; audio tracks: 2"

    @Test func compilingDoesNotValidate() throws {
        let project = try #require(readProject(Self.invalidMix).project)
        let compilation = Compiler.compile(project, facts: Self.facts)
        #expect(compilation.diagnostics.isEmpty)
        #expect(compilation.compiled != nil)
        let checked = ProjectCheck.validate(compilation, of: project)
        #expect(checked.diagnostics.map(\.humanText) == [Self.mixError])
        #expect(checked.compiled == nil)
        let run = ProjectCheck.run(project, facts: Self.facts)
        #expect(run.diagnostics == checked.diagnostics)
        #expect(run.compiled == nil)
    }

    @Test func theRegistryListsEveryCheckOnceInRunOrder() {
        let names = ValidationRegistry.checks.map(\.name)
        #expect(names == [.composition, .inputs, .layers, .captions, .effects, .canvas, .output])
        #expect(Set(names) == Set(ValidationCheck.Name.allCases) && names.count == ValidationCheck.Name.allCases.count)
        // The checks of what compiled come first; the destination's last.
        let requirements = ValidationRegistry.checks.map(\.requirement)
        #expect(requirements.first == .compiledWithoutErrors)
        #expect(requirements.last == .destination)
        // Only the composition's rules run in ReelModel; the others need the machine.
        #expect(ValidationRegistry.checks.filter { !$0.isSlot }.map(\.name) == [.composition])
    }

    /// A slot's diagnostic with the check's name, to see which ran and in what order.
    static func marking(_ name: ValidationCheck.Name, _ severity: Severity = .warning) -> ValidationCheck.Run {
        { _ in [Diagnostic(severity, path: .root, message: name.rawValue)] }
    }

    @Test func slotsRunInTheRegistrysOrderWhenTheirRequirementHolds() throws {
        let valid = try #require(readProject("""
        {"reel": 1, "output": {"path": "o.mp4", "frameRate": 30}, "assets": {"a": {"path": "a.mp4"}},
         "timeline": {"clips": [{"asset": "a", "out": 2}]}}
        """).project)
        var slots: [ValidationCheck.Name: ValidationCheck.Run] = [:]
        for name in [ValidationCheck.Name.canvas, .effects, .layers, .captions, .output] { slots[name] = Self.marking(name) }
        let all = ProjectCheck.run(valid, facts: Self.facts, slots: slots)
        #expect(all.diagnostics.map(\.message) == ["layers", "captions", "effects", "canvas"])
        #expect(all.compiled != nil, "warnings do not fail")

        // An error of `layers` leaves the composition valid (captions and effects run) but stops `canvas`.
        slots[.layers] = Self.marking(.layers, .error)
        let layerError = ProjectCheck.run(valid, facts: Self.facts, slots: slots)
        #expect(layerError.diagnostics.map(\.message) == ["layers", "captions", "effects"])
        #expect(layerError.compiled == nil)

        // A composition that breaks its rules: only the checks that need no valid composition run.
        let invalid = try #require(readProject(Self.invalidMix).project)
        let mixError = ProjectCheck.run(invalid, facts: Self.facts, slots: slots)
        #expect(mixError.diagnostics.map(\.humanText) == [Self.mixError, "error: $: layers"])

        // The destination's check runs only when asked for, on its own.
        #expect(ProjectCheck.validateDestination(of: valid, compiled: all.compiled, slots: slots).map(\.message) == ["output"])

        // `inputs` runs first of the slots, also on a broken composition; a file it refused and a later check
        // refuses again (the same diagnostic) is reported once (issue 33, point 8).
        let missing = Diagnostic(path: JSONPath.root.key("timeline").key("titles").index(0).key("font"),
                                 message: "font file a.ttf is missing", category: .missingInput)
        slots[.inputs] = { _ in [missing] }
        slots[.layers] = { _ in [missing] }
        let once = ProjectCheck.run(invalid, facts: Self.facts, slots: slots)
        #expect(once.diagnostics.map(\.humanText) == [Self.mixError, "error: $.timeline.titles[0].font: font file a.ttf is missing"])
    }
}
