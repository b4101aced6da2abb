import Foundation
import ParleyUI
import Synchronization
import Testing
import ParleyTesting

@Suite struct RouterTests {
    final class Log: Sendable {
        let entries = Mutex<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    @Test func routesByTargetAndActionWithANotFoundFallback() {
        let log = Log()
        let router = Router(notFound: { log.add("404 \($0.target)") })
        router.register(target: "chat") {
            log.add("chat \($0.parameters.joined(separator: ",")) \($0.query["draft"] ?? "")")
        }
        router.register(target: "user") { log.add("user \($0.parameters[0])") }
        router.register(target: "user", action: "edit") { log.add("edit user \($0.parameters[0])") }
        #expect(router.open("parley://chat/42?draft=hi"))
        #expect(router.open("parley://user/7"))
        #expect(router.open("parley://user/7/edit"))
        #expect(!router.open("parley://settings/privacy"))
        #expect(!router.open("https://example.com/chat/1"))
        #expect(log.all == ["chat 42 hi", "user 7", "edit user 7", "404 settings", "404 "])
    }
}

@Suite struct TwoLevelCacheTests {
    final class Clock: @unchecked Sendable {
        var now = Date(timeIntervalSince1970: 1_000_000)
    }

    func makeCache(_ limits: TwoLevelCache.Limits, clock: Clock) throws -> (TwoLevelCache, URL) {
        let directory = URL(fileURLWithPath: temporaryPath("cache"))
        return (try TwoLevelCache(directory: directory, limits: limits, now: { clock.now }), directory)
    }

    @Test func memoryIsAnLRUBoundedByBytesAndDiskBacksIt() async throws {
        let clock = Clock()
        let (cache, _) = try makeCache(.init(memoryBytes: 10, diskBytes: 1_000, maxAge: .seconds(3600)), clock: clock)
        try await cache.store(Data(count: 4), forKey: "a")
        try await cache.store(Data(count: 4), forKey: "b")
        _ = await cache.value(forKey: "a")
        try await cache.store(Data(count: 4), forKey: "c")
        #expect(await cache.isInMemory("a"))
        #expect(await !cache.isInMemory("b"), "least recently used goes first")
        #expect(await cache.memoryUsage == 8)
        #expect(await cache.value(forKey: "b")?.count == 4, "still on disk")
        #expect(await cache.isInMemory("b"), "promoted on read")
    }

    @Test func diskDropsExpiredAndOldestEntriesOverTheLimit() async throws {
        let clock = Clock()
        let (cache, directory) = try makeCache(.init(memoryBytes: 0, diskBytes: 10, maxAge: .seconds(60)), clock: clock)
        try await cache.store(Data(count: 4), forKey: "old")
        clock.now += 10
        try await cache.store(Data(count: 4), forKey: "mid")
        clock.now += 10
        try await cache.store(Data(count: 4), forKey: "new")
        #expect(await cache.value(forKey: "old") == nil, "oldest dropped to fit 10 bytes")
        #expect(await cache.value(forKey: "new")?.count == 4)
        clock.now += 61
        #expect(await cache.value(forKey: "new") == nil, "expired")
        try await cache.trimDisk()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
