import ParleyKit
import ParleyTesting
import Testing

struct Row: Identifiable, Equatable, Sendable {
    let id: Int
    var value: Int
}

@Suite struct ListDiffTests {
    /// A random edit of `list`: deletions, insertions, moves and content changes.
    static func edit(_ list: [Row], nextID: inout Int, using random: inout SeededGenerator) -> [Row] {
        var result = list
        for _ in 0..<Int.random(in: 0...6, using: &random) {
            switch Int.random(in: 0..<4, using: &random) {
            case 0 where !result.isEmpty:
                result.remove(at: Int.random(in: result.indices, using: &random))
            case 1:
                nextID += 1
                result.insert(Row(id: nextID, value: 0), at: Int.random(in: 0...result.count, using: &random))
            case 2 where result.count > 1:
                let row = result.remove(at: Int.random(in: result.indices, using: &random))
                result.insert(row, at: Int.random(in: 0...result.count, using: &random))
            case 3 where !result.isEmpty:
                result[Int.random(in: result.indices, using: &random)].value += 1
            default:
                break
            }
        }
        return result
    }

    @Test func applyingTheChangesToTheOldListAlwaysGivesTheNewList() {
        var random = SeededGenerator(seed: 42)
        var nextID = 0
        var checked = 0
        for _ in 0..<300 {
            var list = (0..<Int.random(in: 0...30, using: &random)).map { _ in
                nextID += 1
                return Row(id: nextID, value: 0)
            }
            for _ in 0..<20 {
                let next = Self.edit(list, nextID: &nextID, using: &random)
                let changes = ListDiff.changes(from: list, to: next)
                #expect(ListDiff.apply(changes, to: list) == next)
                list = next
                checked += 1
            }
        }
        #expect(checked == 6000)
    }

    @Test func appendsAndUpdatesProduceJustThoseSteps() {
        let old = [Row(id: 1, value: 0), Row(id: 2, value: 0)]
        let new = [Row(id: 1, value: 0), Row(id: 2, value: 1), Row(id: 3, value: 0)]
        #expect(
            ListDiff.changes(from: old, to: new) == [
                .insert(Row(id: 3, value: 0), at: 2), .update(Row(id: 2, value: 1), at: 1),
            ])
        #expect(ListDiff.changes(from: new, to: new).isEmpty)
    }

    @Test func aPendingItemOvertakenByOthersIsOneMove() {
        let old = [Row(id: 1, value: 0), Row(id: 9, value: 0), Row(id: 2, value: 0)]
        let new = [Row(id: 1, value: 0), Row(id: 2, value: 0), Row(id: 9, value: 1)]
        let changes = ListDiff.changes(from: old, to: new)
        #expect(changes == [.move(from: 2, to: 1), .update(Row(id: 9, value: 1), at: 2)])
    }
}
