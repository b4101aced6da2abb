import Foundation
import GRDB
import ParleyCore
import ParleyKit
import ParleyTesting
import Synchronization
import Testing

/// Collects the snapshots of a contact book's live updates.
final class BookLog: Sendable {
    private let entries = Mutex<[ContactBook]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(_ updates: AsyncValueObservation<ContactBook>) {
        task.withLock {
            $0 = Task {
                do {
                    for try await book in updates { self.entries.withLock { $0.append(book) } }
                } catch {}
            }
        }
    }

    var latest: ContactBook? { entries.withLock { $0.last } }
    func stop() { task.withLock { $0?.cancel() } }
}

extension LiveServerSuites {
    /// `client.contacts` against a real server: requests, friends, remarks and blocks reach
    /// each device's contact book from its own answers, live events and sync.
    @Suite(.serialized) struct ContactsSDKTests {
        @Test func requestsFriendsRemarksAndBlocksReachEveryDevicesContactBook() async throws {
            let (server, alice, bob, _) = try await aliceAndBob()
            let bobId = try #require(await bob.session.currentUser?.id)
            let aliceId = try #require(await alice.session.currentUser?.id)
            // Their first catch-up is a snapshot, which fetches the (empty) book whole; from
            // then on events keep it current.
            for client in [alice, bob] { await client.catchUp() }

            let request = try await alice.contacts.sendRequest(to: bobId, message: "hi Bob")
            #expect(request.status == .pending)
            #expect(try await alice.contacts.book().outgoing.map(\.id) == [request.id], "saved at once")
            await bob.catchUp()
            let inbox = try await bob.contacts.book()
            #expect(inbox.incoming.map(\.message) == ["hi Bob"], "bob's device hears of it through sync, as an event")

            try await bob.contacts.accept(request.id)
            await bob.catchUp()
            await alice.catchUp()
            #expect(try await alice.contacts.book().friends.map(\.user.id) == [bobId])
            #expect(try await alice.contacts.book().outgoing.isEmpty)
            #expect(try await bob.contacts.book().friends.map(\.user.id) == [aliceId])
            #expect(try await bob.contacts.book().incoming.isEmpty)

            let carol = try makeClient(server.url)
            try await signUp(carol, "carol")
            try await carol.contacts.sendRequest(to: bobId)
            try await bob.contacts.refresh()
            try await bob.contacts.accept(try #require(try await bob.contacts.book().incoming.first).id)
            let suggested = try await alice.contacts.recommendations()
            #expect(suggested.map(\.user.username) == ["carol"] && suggested.first?.reason == "1 mutual friend")

            try await alice.contacts.setRemark("Bobby", for: bobId)
            #expect(try await alice.contacts.book().friends.map(\.displayName) == ["Bobby"])
            let work = try await alice.contacts.createGroup(named: "Work")
            let gym = try await alice.contacts.createGroup(named: "Gym")
            try await alice.contacts.setGroups([work.id, gym.id], for: bobId)
            #expect(try await alice.contacts.book().friends(in: gym.id).map(\.user.id) == [bobId])
            try await alice.contacts.renameGroup(gym.id, to: "Climbing")
            try await alice.contacts.deleteGroup(work.id)
            let grouped = try await alice.contacts.book()
            #expect(grouped.groups.map(\.name) == ["Climbing"] && grouped.friends.first?.groups == [gym.id])

            // A new device starts empty and fetches the whole book.
            let laptop = try makeClient(server.url, device: "laptop")
            try await laptop.session.login("alice", password: "Passw0rd!")
            #expect(try await laptop.contacts.book().friends.isEmpty)
            let fetched = try await laptop.contacts.refresh()
            #expect(fetched.friends.map(\.displayName) == ["Bobby"])
            #expect(fetched.groups == grouped.groups && fetched.friends(in: gym.id).count == 1)
            // Her laptop hears of group changes made on her phone through sync.
            await laptop.catchUp()
            try await alice.contacts.deleteGroup(gym.id)
            await laptop.catchUp()
            let ungrouped = try await laptop.contacts.book()
            #expect(ungrouped.groups.isEmpty && ungrouped.friends.first?.groups == [], "\(ungrouped)")

            // A device that only connects fetches the book after its first (snapshot) sync.
            let tablet = try makeClient(server.url, device: "tablet")
            try await tablet.session.login("alice", password: "Passw0rd!")
            await tablet.connect()
            try await eventually("the tablet's book is fetched") {
                (try? await tablet.contacts.book().friends.map(\.displayName)) == ["Bobby"]
            }
            await tablet.disconnect()

            // Live: bob's new nickname reaches alice's book while she is connected.
            await alice.connect()
            let seen = BookLog(try await alice.contacts.updates())
            try await bob.profile.update(ProfileUpdate(nickname: "Robert"))
            try await eventually("the live book shows bob's new nickname") {
                seen.latest?.friends.first?.user.nickname == "Robert"
            }
            #expect(seen.latest?.friends.first?.displayName == "Bobby", "her remark stays")
            seen.stop()

            let blocked = try await bob.contacts.block(aliceId)
            #expect(blocked.user.id == aliceId)
            let bobBook = try await bob.contacts.book()
            #expect(bobBook.friends.isEmpty && bobBook.hasBlocked(aliceId))
            try await eventually("alice hears the friendship end") {
                try await alice.contacts.book().friends.isEmpty
            }
            let refused = await #expect(throws: ParleyError.self) {
                try await alice.contacts.sendRequest(to: bobId)
            }
            #expect(refused?.code == .blocked)

            try await bob.contacts.unblock(aliceId)
            #expect(try await bob.contacts.book().blocked.isEmpty)
            await alice.disconnect()
            await server.stop()
        }
    }
}
