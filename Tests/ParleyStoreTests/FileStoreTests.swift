import Foundation
import ParleyCore
import ParleyStore
import Testing

/// The storage contract of files: uploads and their chunks, content stored once, claims,
/// what a message may show, who may read a file, and what is collected.
extension StoreContractTests {
    func upload(_ id: String, by userId: UserID, sha256: String, size: Int64 = 10, at now: Int64 = Self.now)
        -> UploadRecord
    {
        UploadRecord(
            id: id, userId: userId, sha256: sha256, size: size, mimeType: "image/png", name: "a.png", kind: .image,
            chunkSize: 4, createdAt: now, expiresAt: now + 1_000)
    }

    func storedFile(_ id: String, sha256: String, size: Int64 = 10) -> StoredFile {
        StoredFile(id: id, sha256: sha256, size: size, mimeType: "image/png", createdAt: Self.now)
    }

    func image(_ fileId: String, to conversationId: ConversationID, from sender: UserID, id: String) throws
        -> NewMessage
    {
        try NewMessage(
            target: .conversation(conversationId), senderId: sender, clientMsgId: id, kind: .image,
            content: ["fileId": .string(fileId), "width": 2, "height": 2], sentAt: Self.now)
    }

    /// Chunks are recorded in any order and again; completing stores the content once, claims
    /// it for the uploader and forgets the upload; the same bytes completed by someone else
    /// answer the stored file; quotas count open uploads and claimed files.
    @Test(arguments: StoreBackend.available)
    func uploadsStoreContentOnceAndClaimIt(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob")
        let (alice, bob) = (users[0], users[1])
        let hash = String(repeating: "a", count: 64)
        let first = upload("upload00000000000000000a", by: alice, sha256: hash)
        try await store.createUpload(first)
        #expect(try await store.upload(first.id) == first)
        #expect(try await store.openUploadCount(of: alice) == 1)
        #expect(try await store.storageUsed(by: alice) == 10)
        try await store.recordChunk(of: first.id, at: 8, length: 2)
        try await store.recordChunk(of: first.id, at: 0, length: 4)
        try await store.recordChunk(of: first.id, at: 0, length: 4)
        #expect(
            try await store.chunks(of: first.id) == [ByteRange(start: 0, end: 4), ByteRange(start: 8, end: 10)])
        // A chunk of an upload that is gone is not recorded.
        try await store.recordChunk(of: "nosuchupload000000000000", at: 0, length: 4)
        #expect(try await store.chunks(of: "nosuchupload000000000000").isEmpty)

        let made = try await store.completeUpload(
            first, as: storedFile("file0000000000000000000a", sha256: hash), at: Self.now)
        #expect(made.created && made.file.id == "file0000000000000000000a")
        #expect(try await store.upload(first.id) == nil)
        #expect(try await store.chunks(of: first.id).isEmpty)
        #expect(try await store.openUploadCount(of: alice) == 0)
        #expect(try await store.storageUsed(by: alice) == 10, "the claimed file")
        #expect(try await store.file(sha256: hash)?.id == made.file.id)
        #expect(try await store.file(id: made.file.id) == made.file)
        #expect(try await store.mayRead(made.file.id, userId: alice))
        #expect(try await store.mayRead(made.file.id, userId: bob) == false)

        // Bob uploaded the same bytes at the same time: his completion finds Alice's file.
        let second = upload("upload00000000000000000b", by: bob, sha256: hash)
        try await store.createUpload(second)
        let again = try await store.completeUpload(
            second, as: storedFile("file0000000000000000000b", sha256: hash), at: Self.now)
        #expect(!again.created && again.file.id == made.file.id)
        #expect(try await store.file(id: "file0000000000000000000b") == nil)
        #expect(try await store.mayRead(made.file.id, userId: bob))
        #expect(try await store.storageUsed(by: bob) == 10)

        // A claim by hash (instant send) lets a third user use it.
        let cyd = try await makeUsers(store, "cyd")[0]
        try await store.claimFile(made.file.id, by: cyd, at: Self.now)
        try await store.claimFile(made.file.id, by: cyd, at: Self.now + 1)
        #expect(try await store.mayRead(made.file.id, userId: cyd))
        #expect(try await store.storageUsed(by: cyd) == 10)

        // Uploads whose time ran out, oldest first; a deleted one is gone with its chunks.
        let late = upload("upload00000000000000000c", by: alice, sha256: hash, at: Self.now + 500)
        try await store.createUpload(late)
        try await store.recordChunk(of: late.id, at: 0, length: 4)
        try await store.createUpload(upload("upload00000000000000000d", by: alice, sha256: hash))
        #expect(try await store.expiredUploads(at: Self.now + 999, limit: 10).isEmpty)
        #expect(
            try await store.expiredUploads(at: Self.now + 2_000, limit: 10).map(\.id) == [
                "upload00000000000000000d", late.id,
            ])
        try await store.deleteUpload(late.id)
        #expect(try await store.upload(late.id) == nil)
        #expect(try await store.chunks(of: late.id).isEmpty)

        // One secret for every node: the first proposal wins.
        #expect(try await store.sharedSecret("links", proposing: "one") == "one")
        #expect(try await store.sharedSecret("links", proposing: "two") == "one")
    }

    /// A message records the files it shows, which must exist (else nothing is stored); the
    /// members of its conversation may then read them, and a former member up to where they
    /// left; a file nothing references is collected after its grace period, a recall releases
    /// a message's files, and an avatar keeps a file.
    @Test(arguments: StoreBackend.available)
    func messagesReferenceFilesAndUnreferencedFilesAreCollected(_ backend: StoreBackend) async throws {
        let store = try await backend.make()
        let users = try await makeUsers(store, "alice", "bob", "cyd", "dan")
        let (alice, bob, cyd, dan) = (users[0], users[1], users[2], users[3])
        let group = try await store.createGroup(name: "team", ownerId: alice, memberIds: [bob, cyd], at: Self.now)
        var files: [StoredFile] = []
        for (index, letter) in ["a", "b", "c", "d"].enumerated() {
            let record = upload(
                "upload0000000000000000\(index)\(letter)", by: alice, sha256: String(repeating: letter, count: 64))
            try await store.createUpload(record)
            files.append(
                try await store.completeUpload(
                    record, as: storedFile("file000000000000000000\(index)\(letter)", sha256: record.sha256),
                    at: Self.now
                ).file)
        }

        // A file that does not exist: the send fails and the conversation is unchanged.
        await #expect(throws: ParleyError.self) {
            _ = try await store.appendMessage(try image("nosuchfile00000000000000", to: group.id, from: alice, id: "x"))
        }
        #expect(try await store.conversation(group.id, for: alice).conversation.maxSeq == 0)

        let shown = try await store.appendMessage(try image(files[0].id, to: group.id, from: alice, id: "m1")).message
        let recalled = try await store.appendMessage(try image(files[1].id, to: group.id, from: alice, id: "m2"))
            .message
        #expect(try await store.mayRead(files[0].id, userId: bob))
        #expect(try await store.mayRead(files[0].id, userId: dan) == false)
        #expect(try await store.mayRead(files[2].id, userId: bob) == false, "not shown to anyone")

        // Cyd leaves: what was shown before stays readable to her, what comes after does not.
        _ = try await store.changeGroup(group.id, .removeMember(cyd), by: alice, at: Self.now)
        _ = try await store.appendMessage(try image(files[3].id, to: group.id, from: alice, id: "m3"))
        #expect(try await store.mayRead(files[0].id, userId: cyd))
        #expect(try await store.mayRead(files[3].id, userId: cyd) == false)
        #expect(try await store.mayRead(files[3].id, userId: bob))

        // File c, referenced by nothing, is collected once its grace period (from its
        // upload) has passed; referenced files are not.
        let grace: Int64 = 1_000
        #expect(try await store.collectableFiles(releasedBefore: Self.now, limit: 10).isEmpty)
        #expect(
            try await store.collectableFiles(releasedBefore: Self.now + grace, limit: 10).map(\.id) == [files[2].id])

        // An avatar keeps a file.
        _ = try await store.updateProfile(userId: dan, ProfileUpdate(avatar: files[2].id), at: Self.now)
        #expect(try await store.collectableFiles(releasedBefore: Self.now + grace, limit: 10).isEmpty)
        #expect(try await store.forgetFile(files[2].id, releasedBefore: Self.now + grace) == false)
        #expect(try await store.mayRead(files[2].id, userId: bob), "an avatar is public")
        _ = try await store.updateProfile(userId: dan, ProfileUpdate(avatar: ""), at: Self.now)

        // A recall releases the message's file; its grace period starts at the recall.
        _ = try await store.changeMessage(
            recalled.id, .recall, by: alice, windows: MessageWindows(recallMs: 10_000_000), at: Self.now + 500)
        #expect(
            Set(try await store.collectableFiles(releasedBefore: Self.now + 500, limit: 10).map(\.id)) == [files[2].id])
        #expect(
            Set(try await store.collectableFiles(releasedBefore: Self.now + 501, limit: 10).map(\.id)) == [
                files[1].id, files[2].id,
            ])
        // A claim starts the grace period again.
        try await store.claimFile(files[1].id, by: bob, at: Self.now + 800)
        #expect(try await store.forgetFile(files[1].id, releasedBefore: Self.now + 800) == false)
        #expect(try await store.forgetFile(files[2].id, releasedBefore: Self.now + grace))
        #expect(try await store.file(id: files[2].id) == nil)
        #expect(try await store.mayRead(files[2].id, userId: alice) == false, "its claims went with it")
        #expect(try await store.forgetFile(files[0].id, releasedBefore: Self.now + 10 * grace) == false)
        #expect(try await store.file(id: shown.content.objectValue?["fileId"]?.stringValue ?? "") != nil)
    }
}
