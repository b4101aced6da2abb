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

extension LiveServerSuites.FilesSDKTests {
    /// A PNG header stating `width` × `height`, then `count` pseudo-random bytes.
    static func png(width: UInt32, height: UInt32, count: Int, seed: UInt8) -> Data {
        func big(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        let header: [UInt8] =
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8) + big(width)
            + big(height)
        return Data(header) + bytes(count, seed: seed)
    }

    /// The states a queued message went through, gathered from its handle.
    final class StateLog: Sendable {
        private let seen = Mutex<[SendState]>([])
        var states: [SendState] { seen.withLock { $0 } }
        var progress: [TransferProgress] {
            states.compactMap { if case .uploading(let progress) = $0 { progress } else { nil } }
        }

        func follow(_ clientMsgId: String, in queue: SendQueue) -> Task<Void, Never> {
            Task { for await state in await queue.stateUpdates(of: clientMsgId) { seen.withLock { $0.append(state) } } }
        }
    }

    /// The send queue uploads a media message's file before it sends the message, reporting
    /// the bytes as they go. Cut off halfway, the message waits in the outbox; the app
    /// starts again and the queue goes on from the chunks the server has, then sends the
    /// message once.
    @Test func theSendQueueUploadsBeforeSendingAndResumesAfterTheAppRestarts() async throws {
        let server = try await InProcessServer.start()
        let folder = temporaryDirectory()
        let storePath = folder + "/alice.sqlite"
        let path = folder + "/report.pdf"
        let content = Self.bytes(10 << 20, seed: 11)
        try content.write(to: URL(fileURLWithPath: path))
        let bob = try makeClient(server.url)
        try await signUp(bob, "bob")

        let cut = ChunkCountingTransport(cuttingAfter: 1)
        var alice: ParleyClient? = try makeClient(server.url, storePath: storePath, http: cut)
        try await signUp(alice!, "alice")
        let direct = try await alice!.conversations.openDirect(withUsername: "bob").id
        let handle = try await alice!.sendQueue.send(try .file(at: path, name: "Q3 report.pdf"), to: direct)
        let log = StateLog()
        let following = log.follow(handle.clientMsgId, in: alice!.sendQueue)
        await alice!.sendQueue.flush()
        #expect(cut.chunks == 1)
        #expect(await handle.state == .queued, "waits for the network, its upload half done")
        let waiting = try #require(try alice!.store.outboxItem(handle.clientMsgId))
        #expect(waiting.files.map(\.path) == [path] && waiting.content.objectValue?["fileId"] == nil)
        // The follower hears the states in their order, the last one perhaps a moment after
        // the flush returned.
        try await eventually("back to queued after the cut") { log.states.last == .queued }
        following.cancel()
        #expect(log.progress.first == TransferProgress(done: 0, total: 10 << 20))
        #expect(log.progress.map(\.done) == log.progress.map(\.done).sorted(), "progress only grows")
        alice = nil

        // The app starts again: only the two chunks the server lacks are sent, then the message.
        let counting = ChunkCountingTransport()
        let reopened = try makeClient(server.url, storePath: storePath, http: counting)
        let again = StateLog()
        let resumed = again.follow(handle.clientMsgId, in: reopened.sendQueue)
        await reopened.sendQueue.flush()
        guard case .sent(let seq) = await reopened.sendQueue.state(of: handle.clientMsgId) else {
            Issue.record("not sent: \(await reopened.sendQueue.state(of: handle.clientMsgId))")
            return
        }
        await resumed.value
        #expect(counting.chunks == 2, "only the chunks the server did not have")
        let moved = again.progress.filter { $0.done > 0 }
        #expect(!moved.isEmpty && moved.allSatisfy { $0.done >= 4 << 20 }, "it went on from the first chunk: \(moved)")
        #expect(again.states.contains(.sending) && again.states.last == .sent(seq: seq))

        let history = try await serverHistory(direct, via: bob)
        #expect(history.count == 1, "sent once")
        guard case .file(let fileId, let name, let size)? = history.first?.typedContent else {
            Issue.record("not a file message: \(String(describing: history.first))")
            return
        }
        #expect(name == "Q3 report.pdf" && size == 10 << 20)
        try await bob.files.download(try await bob.files.info(of: fileId), to: folder + "/got.pdf")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/got.pdf")) == content)
        #expect(try reopened.store.outboxItem(handle.clientMsgId)?.files == [])
        await server.stop()
    }

    /// An image goes with its thumbnail, both uploaded, and a chat shows it from the device
    /// until it is sent. A file the server refuses fails the message for good (the server's
    /// error kept) and the queue goes on; a file deleted before its turn fails it too; a
    /// message whose upload waits for the network can be cancelled.
    @Test func anImageGoesWithItsThumbnailAndRefusedFilesFailForGood() async throws {
        let server = try await InProcessServer.start()
        let folder = temporaryDirectory()
        let alice = try makeClient(server.url)
        try await signUp(alice, "alice")
        let bob = try makeClient(server.url)
        try await signUp(bob, "bob")
        let direct = try await alice.conversations.openDirect(withUsername: "bob").id
        try Self.png(width: 1200, height: 800, count: 300_000, seed: 1).write(
            to: URL(fileURLWithPath: folder + "/a.png"))
        try Self.png(width: 120, height: 80, count: 3_000, seed: 2).write(to: URL(fileURLWithPath: folder + "/t.png"))
        try Self.bytes(1000, seed: 3).write(to: URL(fileURLWithPath: folder + "/not-an-image.jpg"))
        try Self.bytes(1000, seed: 4).write(to: URL(fileURLWithPath: folder + "/gone.bin"))

        // A path relative to the working directory is kept absolute: the queue may upload
        // the file from another directory, in another process.
        let cwdDepth = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).pathComponents.count - 1
        let relative = String(repeating: "../", count: cwdDepth) + folder.dropFirst() + "/a.png"
        #expect(try OutgoingFile(path: relative, kind: .image).path == folder + "/a.png")

        let chat = await alice.conversations.chat(direct)
        let image = try await chat.send(try .image(at: folder + "/a.png", thumbnail: folder + "/t.png"))
        let shown = try #require(await chat.items.last)
        #expect(shown.localFiles.map(\.field) == ["fileId", "thumbnailId"] && shown.delivery != .sent)
        let refused = try await alice.sendQueue.send(
            try .image(at: folder + "/not-an-image.jpg", width: 10, height: 10), to: direct)
        let deleted = try await alice.sendQueue.send(try .file(at: folder + "/gone.bin"), to: direct)
        try FileManager.default.removeItem(atPath: folder + "/gone.bin")
        let after = try await alice.sendQueue.send(text: "still in order", to: direct)
        await alice.sendQueue.flush()

        #expect(await refused.rejection?.code == .fileTypeNotAllowed)
        let refusedState = await refused.state
        #expect(refusedState.isSettled && !refusedState.isFinal)
        guard case .failed(_, let retryable) = await deleted.state else {
            Issue.record("a deleted file was not a failure: \(await deleted.state)")
            return
        }
        #expect(!retryable)
        let history = try await serverHistory(direct, via: bob)
        #expect(history.map(\.kind) == [.image, .text], "the image, then the text behind the failures")
        guard case .image(let fileId, 1200, 800, let thumbnailId?)? = history.first?.typedContent else {
            Issue.record("not an image with a thumbnail: \(String(describing: history.first))")
            return
        }
        #expect(try await bob.files.data(of: thumbnailId) == Self.png(width: 120, height: 80, count: 3_000, seed: 2))
        #expect(try await bob.files.info(of: fileId).mimeType == "image/png")
        #expect(await image.state == .sent(seq: 1))
        #expect(await after.state == .sent(seq: 2))
        let first = await chat.items.first
        #expect(first?.localFiles == [] && first?.seq == 1)

        // Offline halfway through an upload, the message can be dropped.
        let cutClient = try makeClient(server.url, http: ChunkCountingTransport(cuttingAfter: 0))
        try await cutClient.session.login("alice", password: "Passw0rd!")
        try Self.bytes(5 << 20, seed: 5).write(to: URL(fileURLWithPath: folder + "/big.bin"))
        let stuck = try await cutClient.sendQueue.send(try .file(at: folder + "/big.bin"), to: direct)
        await cutClient.sendQueue.flush()
        #expect(await stuck.state == .queued)
        try await stuck.cancel()
        #expect(await stuck.state == .cancelled)
        #expect(try cutClient.store.outboxItem(stuck.clientMsgId) == nil)
        await server.stop()
    }
}
