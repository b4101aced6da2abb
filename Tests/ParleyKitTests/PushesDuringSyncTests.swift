import Foundation
import ParleyCore
import ParleyKit
import ParleyTesting
import Testing

extension LiveServerSuites {
    /// A catch-up against a real server whose answer the server's pushes overtake, or which
    /// fails while the socket stays up: what the device ends with is what the server holds.
    @Suite(.serialized) struct PushesDuringSyncTests {
        /// Alice's phone catches up on her new friendship with bob, whose friend request
        /// events carry his profile as it was then, while bob renames himself: the rename is
        /// pushed before the page, which the server read before it.
        @Test func aRenamePushedWhileAPageIsInFlightOutlivesTheOlderProfileThePageCarries() async throws {
            let (server, alice, bob, _) = try await aliceAndBob()
            let bobId = try #require(await bob.session.currentUser?.id)
            let gate = SyncGate()
            let phone = try makeClient(server.url, device: "phone", realtime: gate, requestTimeout: .seconds(60))
            try await phone.session.login("alice", password: "Passw0rd!")
            await phone.catchUp()
            let request = try await alice.contacts.sendRequest(to: bobId)
            try await bob.contacts.accept(request.id)

            let cursor = try phone.store.value(ClientStore.cursorKey)
            gate.holdNextAnswer()
            await phone.connect()
            try await eventually("the phone's catch-up page is held") { gate.heldCount == 1 }
            try await bob.profile.update(ProfileUpdate(nickname: "Robert"))
            try await eventually("the rename is pushed to the phone") {
                (try? await phone.contacts.book().friends.first?.user.nickname) == "Robert"
            }
            gate.release()
            try await eventually("the page is applied") { try phone.store.value(ClientStore.cursorKey) != cursor }
            #expect(try await phone.contacts.book().friends.map(\.user.nickname) == ["Robert"], "the rename stays")
            #expect(gate.requestCount == 1, "one sync request, the held one")
            await phone.disconnect()
        }

        /// A new device's first sync (a snapshot) is read before alice pins a group on her
        /// laptop; the pin is pushed before the page, while the phone holds no conversation yet.
        @Test func settingsPushedBeforeTheSnapshotHoldsTheirConversationStillApply() async throws {
            let (server, alice, bob, direct) = try await aliceAndBob()
            let group = try await bob.conversations.createGroup(name: "Team", usernames: ["alice"]).id
            let gate = SyncGate()
            let phone = try makeClient(server.url, device: "phone", realtime: gate, requestTimeout: .seconds(60))
            try await phone.session.login("alice", password: "Passw0rd!")
            gate.holdNextAnswer()
            await phone.connect()
            try await eventually("the phone's snapshot is held") { gate.heldCount == 1 }
            try await alice.settings.pin(group)
            try await eventually("the pin is pushed to the phone") { gate.eventsPushed.contains("settings.updated") }
            #expect(try phone.conversations.list.current().isEmpty, "nothing held yet to pin")
            gate.release()
            try await eventually("the snapshot is applied") { try phone.conversations.list.current().count == 2 }
            let list = try phone.conversations.list.current()
            #expect(list.map(\.id) == [group, direct], "pinned first")
            #expect(list.first?.settings.pinnedAt != nil)
            #expect(gate.requestCount == 1, "one sync request, the held one")
            await phone.disconnect()
        }

        /// The sync request of the phone's catch-up goes unanswered (the server is swamped);
        /// the socket stays up, so no reconnection would run it again.
        @Test func aCatchUpThatFailsWhileTheSocketStaysUpIsRunAgain() async throws {
            let (server, _, _, direct) = try await aliceAndBob()
            let gate = SyncGate()
            let phone = try makeClient(server.url, device: "phone", realtime: gate)
            try await phone.session.login("alice", password: "Passw0rd!")
            gate.dropNextRequests(1)
            await phone.connect()
            try await eventually("the phone holds alice's conversation") {
                try phone.conversations.list.current().map(\.id) == [direct]
            }
            #expect(gate.droppedCount == 1)
            #expect(gate.openCount == 1, "on the same socket")
            await phone.disconnect()
        }
    }
}
