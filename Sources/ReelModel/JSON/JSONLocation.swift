extension JSON {
    /// Where the value at `path` starts in the document this value was parsed from (1-based line and column).
    ///
    /// A path that leaves the document part-way (a missing key names its object, an element past the end names
    /// its array) gives the position of the deepest value it reaches, as compilers point at the enclosing
    /// construct. Nil when not even the first step is in the document: such paths name values the document
    /// never held (the tracks compiled from a timeline), and pointing at line 1 would mislead.
    public func position(of path: JSONPath) -> JSONPosition? {
        var current = self
        for (step, component) in path.components.enumerated() {
            let next: JSON?
            switch (component, current.value) {
            case (.key(let key), .object(let object)): next = object[key]
            case (.index(let index), .array(let elements)): next = elements.indices.contains(index) ? elements[index] : nil
            default: next = nil
            }
            guard let next else { return step == 0 ? nil : current.position }
            current = next
        }
        return current.position
    }
}
