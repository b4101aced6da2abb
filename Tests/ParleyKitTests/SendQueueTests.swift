import Foundation
import ParleyCore
import ParleyKit
import ParleyTesting
import Testing

/// The send queue against the real in-process server: handles, their states, dependencies
/// that hold an item (and those behind it) back, and chat contexts that follow the queue
/// and the sync engine.
extension LiveServerSuites {
    @Suite(.serialized) struct SendQueueTests {
        @Test func aHandleReportsQueuedThenSendingThenSentWithTheSeqTheServerGave() async throws {
            let (server, alice, bob, direct) = try await aliceAndBob()
            let updates = await alice.sendQueue.updates()
            let handle = try await alice.sendQueue.send(text: "first", to: direct)
            #expect(await handle.settled() == .sent(seq: 1))
            var seen: [SendState] = []
            for await update in updates where update.item.clientMsgId == handle.clientMsgId {
                seen.append(update.state)
                if update.state.isFinal { break }
            }
            #expect(seen == [.queued, .sending, .sent(seq: 1)])
            let history = try await serverHistory(direct, via: bob)
            #expect(history.map(\.clientMsgId) == [handle.clientMsgId])
            #expect(await handle.state == .sent(seq: 1))
            var afterwards: [SendState] = []
            for await state in await handle.stateUpdates() { afterwards.append(state) }
            #expect(afterwards == [.sent(seq: 1)], "a sent item's updates end at once")
            await server.stop()
        }

        @Test func aRejectedSendFailsForGoodAndCancellingItReportsCancelled() async throws {
            let (server, alice, _, _) = try await aliceAndBob()
            let handle = try await alice.sendQueue.send(text: "to nowhere", to: ConversationID(9_999))
            guard case .failed(_, let retryable) = await handle.settled() else {
                Issue.record("a send to a conversation alice is not in must fail")
                return
            }
            #expect(!retryable, "a 4xx answer cannot succeed unchanged")
            let updates = await handle.stateUpdates()
            try await handle.cancel()
            #expect(await handle.state == .cancelled)
            #expect(try alice.store.outboxItem(handle.clientMsgId) == nil)
            var states: [SendState] = []
            for await state in updates { states.append(state) }
            #expect(states.count == 2 && states.last == .cancelled, "failed, then cancelled, then the end: \(states)")
            await server.stop()
        }

        @Test func anItemWaitsForItsDependencyAndTheItemsQueuedAfterItWaitBehindIt() async throws {
            let (server, alice, bob, direct) = try await aliceAndBob()
            await alice.connect()
            let upload = Latch()
            let before = try await alice.sendQueue.send(text: "before", to: direct)
            let photo = try await alice.sendQueue.send(
                text: "photo", to: direct, after: SendDependency { try await upload.wait() })
            let after = try await alice.sendQueue.send(text: "after", to: direct)
            #expect(await before.settled() == .sent(seq: 1), "what was queued before is not held back")
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await serverHistory(direct, via: bob).map { text($0.content) } == ["before"])
            #expect(await photo.state == .queued)
            #expect(await after.state == .queued, "the queue keeps its order: nothing overtakes the waiting item")

            upload.open()
            #expect(await photo.settled() == .sent(seq: 2))
            #expect(await after.settled() == .sent(seq: 3))
            #expect(try await serverHistory(direct, via: bob).map { text($0.content) } == ["before", "photo", "after"])
            await alice.disconnect()
            await server.stop()
        }

        @Test func aFailedDependencyFailsItsItemAndAResendRunsItAgain() async throws {
            let (server, alice, bob, direct) = try await aliceAndBob()
            let attempts = Counter()
            let flaky = SendDependency {
                attempts.increment()
                if attempts.current == 1 { throw TransportError(.unreachable, "upload interrupted") }
            }
            let rejected = SendDependency { throw ParleyError(.payloadTooLarge, "The file is too large.") }
            let photo = try await alice.sendQueue.send(text: "photo", to: direct, after: flaky)
            let video = try await alice.sendQueue.send(text: "video", to: direct, after: rejected)
            let caption = try await alice.sendQueue.send(text: "caption", to: direct)

            guard case .failed(_, let photoRetryable) = await photo.settled(),
                case .failed(let reason, let videoRetryable) = await video.settled()
            else {
                Issue.record("an item whose dependency failed must fail")
                return
            }
            #expect(photoRetryable, "a network failure of the dependency may succeed on a second try")
            #expect(!videoRetryable && reason == "The file is too large.")
            #expect(await caption.settled() == .sent(seq: 1), "the items behind a failed one go on")
            #expect(try await serverHistory(direct, via: bob).map { text($0.content) } == ["caption"])

            try await photo.resend()
            #expect(await photo.settled() == .sent(seq: 2))
            #expect(attempts.current == 2, "the resend ran the dependency again")
            #expect(try await serverHistory(direct, via: bob).map { text($0.content) } == ["caption", "photo"])
            await server.stop()
        }

        @Test func cancellingAnItemWaitingForItsDependencyLetsTheItemsBehindItGo() async throws {
            let (server, alice, bob, direct) = try await aliceAndBob()
            let upload = Latch()
            let photo = try await alice.sendQueue.send(
                text: "photo", to: direct, after: SendDependency { try await upload.wait() })
            let after = try await alice.sendQueue.send(text: "after", to: direct)
            try await Task.sleep(for: .milliseconds(100))
            #expect(await after.state == .queued)
            try await photo.cancel()
            #expect(await photo.state == .cancelled)
            #expect(await after.settled() == .sent(seq: 1))
            upload.open()
            try await Task.sleep(for: .milliseconds(100))
            #expect(try await serverHistory(direct, via: bob).map { text($0.content) } == ["after"])
            await server.stop()
        }

        @Test func anItemWhoseDependencyWasLostInARestartFailsInsteadOfBeingSentWithoutIt() async throws {
            let server = try await InProcessServer.start()
            let storePath = temporaryDirectory() + "/alice.sqlite"
            let alice = try makeClient(server.url, storePath: storePath)
            let bob = try makeClient(server.url)
            try await signUp(alice, "alice")
            try await signUp(bob, "bob")
            let direct = try await alice.conversations.openDirect(withUsername: "bob").id
            let upload = Latch()
            let photo = try await alice.sendQueue.send(
                text: "photo", to: direct, after: SendDependency { try await upload.wait() })

            let reopened = try makeClient(server.url, storePath: storePath)
            await reopened.sendQueue.flush()
            guard case .failed(_, let retryable) = await reopened.sendQueue.state(of: photo.clientMsgId) else {
                Issue.record("the item must fail, not be sent")
                return
            }
            #expect(!retryable)
            #expect(try await serverHistory(direct, via: bob).isEmpty)
            upload.fail(TransportError(.unreachable, "the process was killed"))
            await server.stop()
        }

        @Test func aChatContextFollowsASendThroughItsDependencyToSent() async throws {
            let (server, alice, bob, direct) = try await aliceAndBob()
            let chat = await alice.conversations.chat(direct)
            try await chat.load()
            let upload = Latch()
            let handle = try await chat.send(text: "photo", after: SendDependency { try await upload.wait() })
            try await eventually { await chat.items.map(\.delivery) == [.sending] }
            #expect(await chat.items.first?.clientMsgId == handle.clientMsgId)
            #expect(await chat.items.first?.seq == nil)
            upload.open()
            try await eventually { await chat.items.map(\.delivery) == [.sent] }
            #expect(await chat.items.map(\.seq) == [1])
            #expect(try await serverHistory(direct, via: bob).map(\.clientMsgId) == [handle.clientMsgId])
            await server.stop()
        }

        @Test func aChatContextShowsWhatACatchUpStoredWithoutBeingToldByTheEngine() async throws {
            let (server, alice, bob, direct) = try await aliceAndBob()
            let bobChat = await bob.conversations.chat(direct)
            try await bobChat.load()
            #expect(await bobChat.items.isEmpty)
            let handle = try await alice.sendQueue.send(text: "while you were away", to: direct)
            #expect(await handle.settled() == .sent(seq: 1))
            #expect(await bobChat.items.isEmpty, "bob is offline and has not synced")
            await bob.catchUp()
            try await eventually { await bobChat.items.map { text($0.content) } == ["while you were away"] }
            #expect(await bob.conversations.chat(direct) === bobChat, "one context per conversation")
            await server.stop()
        }
    }
}

/// A dependency the test finishes: `wait()` returns once opened, throws once failed.
final class Latch: @unchecked Sendable {
    private let lock = NSLock()
    private var outcome: Result<Void, any Error>?

    func open() { lock.withLock { outcome = .success(()) } }
    func fail(_ error: any Error) { lock.withLock { outcome = .failure(error) } }

    func wait() async throws {
        while true {
            if let outcome = lock.withLock({ outcome }) { return try outcome.get() }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
