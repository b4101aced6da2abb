/// One step that turns an old list into a new one. Steps apply in order, each to the list
/// as the previous steps left it (the way a list view applies batch updates).
public enum ListChange<Element: Sendable>: Sendable {
    case delete(at: Int)
    case insert(Element, at: Int)
    case move(from: Int, to: Int)
    case update(Element, at: Int)
}

extension ListChange: Equatable where Element: Equatable {}

/// Diffs between lists of identifiable items: deletions of ids that left, moves of ids whose
/// order changed (each placed at its final position, front to back), insertions of new ids,
/// updates of ids whose content changed. Appends and in-place updates, the common case of
/// a chat, produce exactly those steps. Applying the steps to the old list always yields
/// the new one. Ids must be unique within each list.
public enum ListDiff {
    public static func changes<Element: Identifiable & Equatable & Sendable>(from old: [Element], to new: [Element])
        -> [ListChange<Element>]
    {
        var steps: [ListChange<Element>] = []
        let newIDs = Set(new.map(\.id))
        let oldIDs = Set(old.map(\.id))

        // Deletions, from the back so that each index is still valid.
        var working = old.map(\.id)
        for index in working.indices.reversed() where !newIDs.contains(working[index]) {
            steps.append(.delete(at: index))
            working.remove(at: index)
        }

        // Moves: bring the surviving ids into their new relative order.
        let target = new.map(\.id).filter { oldIDs.contains($0) }
        for (position, id) in target.enumerated() where working[position] != id {
            let from = working.firstIndex(of: id)!
            steps.append(.move(from: from, to: position))
            working.remove(at: from)
            working.insert(id, at: position)
        }

        // Insertions, from the front, at their final indices.
        for (index, element) in new.enumerated() where !oldIDs.contains(element.id) {
            steps.append(.insert(element, at: index))
            working.insert(element.id, at: index)
        }

        // Updates of items present in both whose content changed.
        let oldByID = Dictionary(old.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for (index, element) in new.enumerated() {
            if let before = oldByID[element.id], before != element { steps.append(.update(element, at: index)) }
        }
        return steps
    }

    /// Applies `changes` to `list`.
    public static func apply<Element>(_ changes: [ListChange<Element>], to list: [Element]) -> [Element] {
        var result = list
        for change in changes {
            switch change {
            case .delete(let index): result.remove(at: index)
            case .insert(let element, let index): result.insert(element, at: index)
            case .move(let from, let to):
                let element = result.remove(at: from)
                result.insert(element, at: to)
            case .update(let element, let index): result[index] = element
            }
        }
        return result
    }
}
