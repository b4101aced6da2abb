import Foundation
import ParleyCore
import ParleyKit
import ParleyTesting
import Testing

extension LiveServerSuites {
    /// `client.search`: the device finds what it holds (offline too), following edits and
    /// recalls; the server finds what the device never held; combined shows one, then the other.
    @Suite(.serialized) struct SearchSDKTests {
        func texts(_ page: MessageSearchPage) -> [String] { page.hits.map { $0.message.searchableText ?? "?" } }

        @Test func theDeviceFindsWhatItHoldsAndTheServerWhatItDoesNot() async throws {
            let (server, alice, bob, direct) = try await aliceAndBob()
            for client in [alice, bob] { await client.connect() }
            var seqs: [Int64] = []
            for text in ["去北京吃烤鸭", "Crème brûlée tonight?", "see you at 8"] {
                guard case .sent(let seq) = try await bob.sendQueue.send(text: text, to: direct).settled() else {
                    Issue.record("not sent")
                    return
                }
                seqs.append(seq)
            }
            await alice.catchUp()
            #expect(texts(try alice.search.local(try MessageSearchQuery("北京"))) == ["去北京吃烤鸭"])
            #expect(texts(try alice.search.local(try MessageSearchQuery("CREME"))) == ["Crème brûlée tonight?"])
            let highlights = try alice.search.local(try MessageSearchQuery("北京")).hits.first?.highlights
            #expect(highlights == [TextRange(start: 1, length: 2)])

            let dessert = try #require(try bob.store.message(in: direct, seq: seqs[1]))
            let meeting = try #require(try bob.store.message(in: direct, seq: seqs[2]))
            _ = try await bob.messages.edit(dessert, text: "Tiramisu tonight?")
            _ = try await bob.messages.recall(meeting)
            try await eventually("alice's device hears the edit and the recall") {
                try alice.search.local(try MessageSearchQuery("tiramisu")).hits.count == 1
                    && alice.search.local(try MessageSearchQuery("see you")).hits.isEmpty
            }
            #expect(try alice.search.local(try MessageSearchQuery("creme")).hits.isEmpty)

            // A new device of alice holds nothing yet: the server finds it.
            let fresh = try await secondDevice(of: "alice", on: server)
            let query = try MessageSearchQuery("烤鸭")
            #expect(try fresh.search.local(query).hits.isEmpty)
            var pages: [(Search.Source, [String])] = []
            for try await (source, page) in fresh.search.combined(query) { pages.append((source, texts(page))) }
            #expect(pages.map(\.0) == [.device, .server])
            #expect(pages.map(\.1) == [[], ["去北京吃烤鸭"]])

            // Offline: the device's page, then the error.
            for client in [alice, bob] { await client.disconnect() }
            await server.stop()
            var sources: [Search.Source] = []
            do {
                for try await (source, _) in alice.search.combined(query) { sources.append(source) }
                Issue.record("the server was stopped, yet it answered")
            } catch {
                #expect(sources == [.device])
            }
            #expect(texts(try alice.search.local(query)) == ["去北京吃烤鸭"], "offline, the device still finds it")
        }
        @Test func contactsAreFoundOnTheDeviceOfflineTooAndGroupsByTheServer() async throws {
            let (server, alice, bob, _) = try await aliceAndBob()
            let bobId = try #require(await bob.session.currentUser?.id)
            for client in [alice, bob] { await client.catchUp() }
            _ = try await bob.profile.update(ProfileUpdate(nickname: "张伟"))
            try await bob.contacts.accept(try await alice.contacts.sendRequest(to: bobId).id)
            await alice.catchUp()
            try await alice.contacts.setRemark("老张 Zhang", for: bobId)
            let hits = try await alice.search.contacts(try NameSearchQuery("zhang"))
            #expect(hits.map(\.contact.user.id) == [bobId])
            #expect(hits.first?.matched.map(\.field) == [NameField.remark])

            let hike = try await alice.conversations.createGroup(name: "周末爬山", usernames: ["bob"])
            #expect(try await alice.search.groups(try NameSearchQuery("爬山")).map(\.group.id) == [hike.id])
            let byMember = try await alice.search.groups(try NameSearchQuery("张伟"))
            #expect(byMember.map(\.group.id) == [hike.id] && byMember.first?.members.map(\.user.id) == [bobId])

            // Offline: the contact book on the device still answers; groups need the server.
            await server.stop()
            #expect(try await alice.search.contacts(try NameSearchQuery("张")).map(\.contact.user.id) == [bobId])
            await #expect(throws: (any Error).self) { try await alice.search.groups(try NameSearchQuery("爬山")) }
        }
    }
}
