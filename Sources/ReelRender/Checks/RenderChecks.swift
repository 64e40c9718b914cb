import ReelModel

/// The code of the validation checks that need the machine, for the slots of ReelModel's `ValidationRegistry`:
/// the files the project reads (`inputs`), fonts and images (`LayerCheck`), caption files (`CaptionCheck`), effects (`EffectCheck`), images against the
/// canvas (`CanvasCheck`) and the destination (`OutputCheck`). The registry says when each runs and in what order;
/// this says which code fills each slot.
enum RenderChecks {
    /// Every slot filled. `catalog` gives the probed sizes of images (nil without probing); `cache` shares font and
    /// image lookups between the loads of a batch.
    static func slots(catalog: ProbedMedia?, cache: ProbeCache?) -> [ValidationCheck.Name: ValidationCheck.Run] {
        var slots: [ValidationCheck.Name: ValidationCheck.Run] = [:]
        for check in ValidationRegistry.checks where check.isSlot {
            switch check.name {
            case .composition:
                preconditionFailure("the composition check runs in ReelModel")
            case .inputs:
                slots[.inputs] = { subject in
                    subject.project.inputFiles.compactMap {
                        LocalInputFile.diagnostic(for: $0, resolvedPath: subject.project.resolvedPath)
                    }
                }
            case .layers:
                slots[.layers] = { LayerCheck.diagnostics(for: $0.project, cache: cache) }
            case .captions:
                slots[.captions] = { subject in subject.compiled.map(CaptionCheck.diagnostics(for:)) ?? [] }
            case .effects:
                slots[.effects] = { subject in subject.compiled.map(EffectCheck.diagnostics(for:)) ?? [] }
            case .canvas:
                var imageSizes: [String: PixelSize] = [:]
                for (id, result) in catalog?.facts ?? [:] {
                    if case .facts(let facts) = result, let video = facts.video { imageSizes[id] = video.displaySize }
                }
                slots[.canvas] = { [imageSizes] subject in
                    subject.compiled.map { CanvasCheck.diagnostics(for: $0, imageSizes: imageSizes) } ?? []
                }
            case .output:
                slots[.output] = { OutputCheck.diagnostics(for: $0.project, compiled: $0.compiled) }
            }
        }
        return slots
    }
}
