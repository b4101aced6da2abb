import Foundation
import ParleyCore
import ParleyKit
import ParleyKitTransport
import ParleyTesting
import ParleyUI
import Synchronization
import Testing

/// An HTTP transport that counts what it sends and can cut the connection after a number of
/// chunks, as a killed app or a lost network would.
final class ChunkCountingTransport: HTTPTransport {
    private let inner = AsyncHTTPTransport(timeout: testHTTPTimeout)
    private let state: Mutex<(chunks: Int, ranges: Int, cutAfter: Int?)>

    init(cuttingAfter chunks: Int? = nil) { state = Mutex((0, 0, chunks)) }

    var chunks: Int { state.withLock { $0.chunks } }
    var ranges: Int { state.withLock { $0.ranges } }

    func perform(method: String, url: String, headers: [String: String], body: Data?) async throws
        -> (status: Int, body: Data)
    {
        let cut = state.withLock { state -> Bool in
            if method == "PUT", url.contains("/chunks/") {
                if let limit = state.cutAfter, state.chunks >= limit { return true }
                state.chunks += 1
            }
            if headers["Range"] != nil { state.ranges += 1 }
            return false
        }
        if cut { throw TransportError(.unreachable, "the connection was cut") }
        return try await inner.perform(method: method, url: url, headers: headers, body: body)
    }
}

/// The progress a transfer reported, from any task.
final class ProgressLog: Sendable {
    private let seen = Mutex<[TransferProgress]>([])
    var last: TransferProgress? { seen.withLock { $0.last } }
    @Sendable func record(_ progress: TransferProgress) { seen.withLock { $0.append(progress) } }
}

extension LiveServerSuites {
    /// `client.files` against a real server: an upload cut off is resumed by a new client
    /// process from the chunks the server has; the same bytes from someone else are found by
    /// hash; a download fetches ranges and resumes from what it had.
    @Suite(.serialized) struct FilesSDKTests {
        /// `count` pseudo-random bytes from `seed`, made a word at a time: a byte at a time
        /// takes seconds in a debug build and holds one of the few threads every test shares.
        static func bytes(_ count: Int, seed: UInt8) -> Data {
            var data = Data(count: count)
            var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1
            data.withUnsafeMutableBytes { raw in
                for index in raw.bindMemory(to: UInt64.self).indices {
                    state ^= state << 13
                    state ^= state >> 7
                    state ^= state << 17
                    raw.storeBytes(of: state, toByteOffset: index * 8, as: UInt64.self)
                }
            }
            return data
        }

        @Test func anUploadCutOffIsResumedByANewProcessAndADownloadResumesToo() async throws {
            let server = try await InProcessServer.start()
            let folder = temporaryDirectory()
            let storePath = folder + "/alice.sqlite"
            let path = folder + "/movie.bin"
            // 10 MiB: three chunks of 4 MiB (the last one 2 MiB).
            let content = Self.bytes(10 << 20, seed: 3)
            try content.write(to: URL(fileURLWithPath: path))

            let cut = ChunkCountingTransport(cuttingAfter: 1)
            var alice: ParleyClient? = try makeClient(server.url, storePath: storePath, http: cut)
            try await signUp(alice!, "alice")
            let seen = Mutex<[TransferProgress]>([])
            await #expect(throws: TransportError.self) {
                _ = try await alice!.files.upload(
                    fileAt: path, progress: { progress in seen.withLock { $0.append(progress) } })
            }
            #expect(cut.chunks == 1)
            #expect(seen.withLock { $0 }.last == TransferProgress(done: 4 << 20, total: 10 << 20))
            alice = nil

            // The app starts again: the same file goes on from the chunk the server has.
            let counting = ChunkCountingTransport()
            let reopened = try makeClient(server.url, storePath: storePath, http: counting)
            let resumed = Mutex<[TransferProgress]>([])
            let file = try await reopened.files.upload(
                fileAt: path, progress: { progress in resumed.withLock { $0.append(progress) } })
            #expect(counting.chunks == 2, "only the chunks the server did not have")
            #expect(resumed.withLock { $0 }.first == TransferProgress(done: 4 << 20, total: 10 << 20))
            #expect(file.size == Int64(content.count) && file.mimeType == "application/octet-stream")
            #expect(try reopened.store.value("upload:" + file.sha256) == nil, "nothing left to resume")

            // Bob has the same bytes: found by hash, not one chunk sent.
            let bobTransport = ChunkCountingTransport()
            let bob = try makeClient(server.url, http: bobTransport)
            try await signUp(bob, "bob")
            let bobs = folder + "/copy.bin"
            try content.write(to: URL(fileURLWithPath: bobs))
            #expect(try await bob.files.upload(fileAt: bobs) == file)
            #expect(bobTransport.chunks == 0)

            // Alice sends it to Bob; he downloads it in 4 MiB ranges into a file that already
            // holds its first MiB (an interrupted download): three ranges fetch the rest.
            let direct = try await reopened.conversations.openDirect(withUsername: "bob").id
            let handle = try await reopened.sendQueue.send(
                .file, ["fileId": .string(file.fileId), "name": "movie.bin", "size": .number(.integer(file.size))],
                to: direct)
            await reopened.sendQueue.flush()
            guard case .sent = await handle.state else {
                Issue.record("not sent: \(await handle.state)")
                return
            }
            let target = folder + "/downloaded.bin"
            try content.prefix(1 << 20).write(to: URL(fileURLWithPath: target + ".part"))
            let info = try await bob.files.info(of: file.fileId)
            #expect(info == file)
            try await bob.files.download(info, to: target)
            #expect(bobTransport.ranges == 3)
            #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == content)
            #expect(!FileManager.default.fileExists(atPath: target + ".part"))

            // A partial file that does not hold the file's bytes is found out and discarded.
            try Data(repeating: 0, count: 1 << 20).write(to: URL(fileURLWithPath: folder + "/bad.bin.part"))
            let mismatch = await #expect(throws: ParleyError.self) {
                try await bob.files.download(info, to: folder + "/bad.bin")
            }
            #expect(mismatch?.code == .fileMismatch)
            #expect(!FileManager.default.fileExists(atPath: folder + "/bad.bin.part"))
            await server.stop()
        }
    }
}

extension LiveServerSuites.FilesSDKTests {
    /// ParleyUI's loader fetches a file once: then from memory, and in a new loader (a new
    /// app process) from the cache's disk; two screens asking at once share one download.
    @Test func theMediaLoaderFetchesOnceThenServesFromMemoryAndDisk() async throws {
        let server = try await InProcessServer.start()
        let folder = temporaryDirectory()
        let alice = try makeClient(server.url)
        try await signUp(alice, "alice")
        let content = Self.bytes(6 << 20, seed: 5)
        try content.write(to: URL(fileURLWithPath: folder + "/photo.bin"))
        let file = try await alice.files.upload(fileAt: folder + "/photo.bin")

        let counting = ChunkCountingTransport()
        let reader = try makeClient(server.url, http: counting)
        try await reader.session.login("alice", password: "Passw0rd!")
        let cacheDirectory = URL(fileURLWithPath: folder + "/cache")
        let loader = try MediaLoader(
            files: reader.files, cache: try TwoLevelCache(directory: cacheDirectory),
            workDirectory: URL(fileURLWithPath: folder + "/work"))
        let heard = ProgressLog()
        async let first = loader.data(of: file.fileId, progress: heard.record)
        async let second = loader.data(of: file.fileId, progress: heard.record)
        let (one, two) = try await (first, second)
        #expect(one == content && two == content)
        #expect(counting.ranges == 2, "one download of two 4 MiB ranges, shared")
        // Whichever request started the download hears its progress.
        #expect(heard.last == TransferProgress(done: 6 << 20, total: 6 << 20))
        #expect(try await loader.data(of: file.fileId) == content)
        #expect(counting.ranges == 2, "from memory")

        let restarted = try MediaLoader(
            files: reader.files,
            cache: try TwoLevelCache(directory: cacheDirectory, limits: .init(memoryBytes: 1 << 20)),
            workDirectory: URL(fileURLWithPath: folder + "/work"))
        #expect(try await restarted.data(of: file.fileId) == content)
        #expect(counting.ranges == 2, "from the disk cache")
        let missing = await #expect(throws: ParleyError.self) {
            try await restarted.data(of: "nosuchfile00000000000000")
        }
        #expect(missing?.code == .fileNotFound)
        await server.stop()
    }
}

extension LiveServerSuites.MultiNodeTests {
    /// With PostgreSQL and an object store, a file uploaded through one node downloads through
    /// another, and a link one node signed opens on the other.
    @Test(.enabled(if: TestBackend.s3URL != nil, "needs an object store: set PARLEY_TEST_S3_URL"))
    func aFileUploadedOnOneNodeDownloadsOnAnother() async throws {
        let (_, nodes, alice, bob) = try await Self.aliceAndBobOnTwoNodes()
        let folder = temporaryDirectory()
        let path = folder + "/photo.bin"
        let content = LiveServerSuites.FilesSDKTests.bytes(5 << 20, seed: 9)
        try content.write(to: URL(fileURLWithPath: path))
        let file = try await alice.files.upload(fileAt: path)
        let direct = try await alice.conversations.openDirect(withUsername: "bob").id
        let handle = try await alice.sendQueue.send(
            .file, ["fileId": .string(file.fileId), "name": "photo.bin", "size": .number(.integer(file.size))],
            to: direct)
        await alice.sendQueue.flush()
        guard case .sent = await handle.state else {
            Issue.record("not sent")
            return
        }
        try await bob.files.download(file, to: folder + "/got.bin")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/got.bin")) == content)
        let link = try await alice.files.link(to: file.fileId)
        let opened = try await AsyncHTTPTransport(timeout: testHTTPTimeout).perform(
            method: "GET", url: nodes[1].url + link.url, headers: [:], body: nil)
        #expect(opened.status == 200 && opened.body == content)
        for node in nodes { await node.stop() }
    }
}
