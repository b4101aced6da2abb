import ParleyCore
import ParleyStore
import Testing

/// The contact rules that need no storage.
@Suite struct ContactRulesTests {
    @Test func blockChecksGoInBatchesOfDistinctIdsThatFitAnyBackendsParameters() {
        let ids = (1...25_000).map { UserID(Int64($0)) } + (1...100).map { UserID(Int64($0)) }
        let batches = ContactRules.batches(ids)
        #expect(batches.map(\.count) == [10_000, 10_000, 5_000])
        #expect(Set(batches.joined()).count == 25_000 && batches.joined().count == 25_000, "each id once")
        #expect(ContactRules.batches([]).isEmpty)
    }
}
