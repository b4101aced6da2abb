import Foundation
import ParleyCore
import ParleyKit
import ParleyTesting
import Testing

extension LiveServerSuites {
    /// The user's own conversation settings against a real server: one device changes them,
    /// every device of the user follows, live or through sync.
    @Suite(.serialized) struct ConversationSettingsTests {
        @Test func pinMuteAndDraftReachTheUsersOtherDevicesLiveAndThroughSyncAndHidingLastsUntilANewMessage()
            async throws
        {
            let (server, alice, bob, direct) = try await aliceAndBob()
            let group = try await bob.conversations.createGroup(name: "Team", usernames: ["alice"]).id
            // Alice's second device, online, and her third, which syncs once and goes away.
            let (phone, laptop) = (
                try makeClient(server.url, device: "phone"), try makeClient(server.url, device: "laptop")
            )
            for device in [phone, laptop] { try await device.session.login("alice", password: "Passw0rd!") }
            await laptop.catchUp()
            #expect(try laptop.conversations.list.current().map(\.id).sorted() == [direct, group].sorted())
            for client in [alice, phone, bob] { await client.connect() }
            try await eventually { await phone.connection.status == .connected }

            try await alice.settings.pin(group)
            try await alice.settings.mute(group)
            let drafted = try await alice.settings.saveDraft("see you at 10\nbring the slides", in: direct)
            #expect(drafted.settings.draft == "see you at 10\nbring the slides")
            let pinnedAt = try #require(try alice.settings.settings(of: group).pinnedAt)
            let expected = [
                group: ConversationSettings(pinnedAt: pinnedAt, muted: true),
                direct: drafted.settings,
            ]
            func agrees(_ device: ParleyClient) throws -> Bool {
                let list = try device.conversations.list.current()
                return list.map(\.id) == [group, direct] && list.allSatisfy { expected[$0.id] == $0.settings }
            }
            try await eventually("alice's own store, from the answers and the events") { try agrees(alice) }
            try await eventually("her phone hears it live") { try agrees(phone) }
            await laptop.catchUp()
            #expect(try agrees(laptop), "her laptop, through sync: each conversation once, pinned first")
            #expect(try bob.settings.settings(of: group) == ConversationSettings(), "bob's own are untouched")

            // Hidden on the phone: gone from every device's list until bob writes again.
            let hidden = try await phone.settings.hide(direct)
            #expect(hidden.settings.hiddenUpToSeq == hidden.maxSeq)
            for device in [phone, alice] {
                try await eventually("hidden on each of alice's online devices") {
                    try device.conversations.list.current().map(\.id) == [group]
                }
            }
            await laptop.catchUp()
            #expect(try laptop.conversations.list.current().map(\.id) == [group])

            guard case .sent(let seq) = try await bob.sendQueue.send(text: "slides?", to: direct).settled() else {
                Issue.record("bob's message must be sent")
                return
            }
            #expect(seq > hidden.maxSeq)
            for device in [alice, phone] {
                try await eventually("the new message shows it again") {
                    try device.conversations.list.current().map(\.id) == [group, direct]
                }
            }
            await laptop.catchUp()
            let back = try laptop.conversations.list.current()
            #expect(back.map(\.id) == [group, direct], "and on the laptop after sync")
            #expect(back.last?.lastMessage?.seq == seq)
            #expect(back.last?.draft == "see you at 10\nbring the slides", "the draft stays")

            for client in [alice, phone, bob] { await client.disconnect() }
            await server.stop()
        }

        @Test func aDraftTooLongOrWithControlCharactersIsRefusedAndAnEmptyChangeTooSoNothingIsStored()
            async throws
        {
            let (server, alice, _, direct) = try await aliceAndBob()
            for draft in [String(repeating: "x", count: Limits.maxTextLength + 1), "bell \u{7}"] {
                let refused = await #expect(throws: ParleyError.self) {
                    try await alice.settings.saveDraft(draft, in: direct)
                }
                #expect(refused?.code == .invalidField)
            }
            let empty = await #expect(throws: ParleyError.self) {
                try await alice.settings.update(direct, UpdateSettingsRequest())
            }
            #expect(empty?.code == .missingField)
            #expect(try alice.settings.settings(of: direct) == ConversationSettings())
            await server.stop()
        }
    }
}
