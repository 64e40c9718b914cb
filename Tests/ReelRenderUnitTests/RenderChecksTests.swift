@testable import ReelRender
import ReelModel
import Testing

/// ReelRender fills every slot of ReelModel's validation registry, and nothing else.
@Suite struct RenderChecksTests {
    @Test func everySlotOfTheRegistryIsFilled() {
        let slots = RenderChecks.slots(catalog: nil, cache: nil)
        let expected = ValidationRegistry.checks.filter(\.isSlot).map(\.name)
        #expect(Set(slots.keys) == Set(expected))
        #expect(slots.count == expected.count)
    }
}
