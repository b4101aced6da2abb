import Crypto
import Foundation
import HTTPTypes
import NIOCore
import ParleyCore
import ParleyServer
import ParleyTesting
import Testing

/// Files over HTTP: chunked uploads that resume, instant send by hash, downloads with ranges
/// and tags, signed links, what a message may show, bad input, quotas and collection.
@Suite struct FileTests {
    static let chunk = 64 * 1024

    static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    static func declare(_ bytes: [UInt8], kind: MessageKind = .image, mimeType: String = "image/png")
        -> StartUploadRequest
    {
        StartUploadRequest(
            sha256: sha256(bytes), size: Int64(bytes.count), mimeType: mimeType, name: "a.png", kind: kind)
    }

    func putChunk(
        _ bytes: [UInt8], at offset: Int, of uploadId: String, as user: TestUser, on api: TestAPI,
        digest: String? = nil
    ) async throws -> (status: Int, body: String) {
        let end = min(offset + Self.chunk, bytes.count)
        var headers: HTTPFields = [:]
        if let digest { headers[HTTPField.Name("Content-Digest")!] = digest }
        let answer = try await api.bytes(
            .put, "/v1/uploads/\(uploadId)/chunks/\(offset)", body: ByteBuffer(bytes: bytes[offset..<end]),
            headers: headers, token: user.token)
        return (answer.status, String(buffer: answer.body))
    }

    func upload(
        _ bytes: [UInt8], as user: TestUser, on api: TestAPI, kind: MessageKind = .image,
        mimeType: String = "image/png"
    ) async throws -> FileInfo {
        try await api.upload(bytes, as: user, kind: kind, mimeType: mimeType)
    }

    func code(_ text: String) -> ErrorCode? { try? decodeJSON(ErrorBody.self, text).error.code }

    static func small(_ configuration: inout ServerConfiguration) {
        configuration.files.chunkSize = Int64(chunk)
    }

    /// Chunks go in any order and again; the status lists what arrived, so a new client
    /// resumes; completing early is refused; the file then downloads whole, in ranges, and not
    /// again when the tag matches.
    @Test func chunkedUploadResumesCompletesAndDownloadsInRanges() async throws {
        try await withServer(configure: Self.small) { api in
            let alice = try await api.signUp("alice")
            let bytes = testPNG(150_000)
            let started: StartUploadResponse = try await api.call(
                .post, "/v1/uploads", Self.declare(bytes), token: alice.token)
            let upload = try #require(started.upload)
            #expect(started.file == nil && upload.chunkSize == Int64(Self.chunk) && upload.received.isEmpty)
            #expect(
                try await putChunk(bytes, at: 2 * Self.chunk, of: upload.uploadId, as: alice, on: api).status == 200)
            #expect(try await putChunk(bytes, at: 0, of: upload.uploadId, as: alice, on: api).status == 200)
            #expect(try await putChunk(bytes, at: 0, of: upload.uploadId, as: alice, on: api).status == 200, "again")

            // The client "restarts": a new login asks what arrived and sends the rest.
            let again = try await api.logIn("alice")
            let status: UploadStatus = try await api.call(.get, "/v1/uploads/\(upload.uploadId)", token: again.token)
            #expect(
                status.received == [
                    ByteRange(start: 0, end: Int64(Self.chunk)),
                    ByteRange(start: Int64(2 * Self.chunk), end: Int64(bytes.count)),
                ])
            #expect(status.missingOffsets == [Int64(Self.chunk)])
            let early = try await api.raw(.post, "/v1/uploads/\(upload.uploadId)/complete", token: again.token)
            #expect(early.status == 409 && code(early.body) == .uploadIncomplete && early.body.contains("65536"))
            #expect(try await putChunk(bytes, at: Self.chunk, of: upload.uploadId, as: again, on: api).status == 200)
            let file: FileInfo = try await api.call(
                .post, "/v1/uploads/\(upload.uploadId)/complete", token: again.token)
            #expect(
                file.size == Int64(bytes.count) && file.sha256 == Self.sha256(bytes) && file.mimeType == "image/png")
            let gone = try await api.raw(.get, "/v1/uploads/\(upload.uploadId)", token: alice.token)
            #expect(gone.status == 404 && code(gone.body) == .uploadNotFound)

            let whole = try await api.bytes(.get, "/v1/files/\(file.fileId)", token: alice.token)
            #expect(whole.status == 200 && Array(buffer: whole.body) == bytes)
            #expect(whole.headers[.contentType] == "image/png")
            #expect(whole.headers[.eTag] == "\"\(file.sha256)\"")
            #expect(whole.headers[.acceptRanges] == "bytes")
            #expect(whole.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(whole.headers[.contentDisposition] == nil, "an image shows inline")

            let ranges: [(String, Range<Int>, String)] = [
                ("bytes=0-9", 0..<10, "bytes 0-9/150008"),
                ("bytes=149998-", 149_998..<150_008, "bytes 149998-150007/150008"),
                ("bytes=-5", 150_003..<150_008, "bytes 150003-150007/150008"),
                ("bytes=100-200000", 100..<150_008, "bytes 100-150007/150008"),
            ]
            for (header, expected, contentRange) in ranges {
                let part = try await api.bytes(
                    .get, "/v1/files/\(file.fileId)", headers: [.range: header], token: alice.token)
                #expect(part.status == 206, "\(header)")
                #expect(Array(buffer: part.body) == Array(bytes[expected]), "\(header)")
                #expect(part.headers[.contentRange] == contentRange, "\(header)")
            }
            let outside = try await api.bytes(
                .get, "/v1/files/\(file.fileId)", headers: [.range: "bytes=150008-"], token: alice.token)
            #expect(outside.status == 416 && outside.headers[.contentRange] == "bytes */150008")
            let several = try await api.bytes(
                .get, "/v1/files/\(file.fileId)", headers: [.range: "bytes=0-1,5-6"], token: alice.token)
            #expect(several.status == 200 && several.body.readableBytes == bytes.count, "several ranges: the whole")
            // A malformed header, or another unit, is ignored (RFC 9110 §14.2): the whole file.
            for malformed in ["bytes=abc", "bytes=9-2", "bytes=", "bytes=-", "items=0-9", "bytes=1-2-3", "0-9"] {
                let ignored = try await api.bytes(
                    .get, "/v1/files/\(file.fileId)", headers: [.range: malformed], token: alice.token)
                #expect(ignored.status == 200 && ignored.body.readableBytes == bytes.count, "\(malformed)")
                #expect(ignored.headers[.contentRange] == nil, "\(malformed)")
            }
            let emptySuffix = try await api.bytes(
                .get, "/v1/files/\(file.fileId)", headers: [.range: "bytes=-0"], token: alice.token)
            #expect(emptySuffix.status == 416, "the last 0 bytes: nothing to give")
            let cached = try await api.bytes(
                .get, "/v1/files/\(file.fileId)", headers: [.ifNoneMatch: "\"\(file.sha256)\""], token: alice.token)
            #expect(cached.status == 304 && cached.body.readableBytes == 0)
        }
    }

    /// The same bytes declared by someone else are a file at once; a message shows it to the
    /// conversation's members and to nobody else; a signed link opens it with no token until
    /// it expires, and a forged or stale one does not.
    @Test func instantSendMembersOnlyAndSignedLinks() async throws {
        let clock = TestClock(1_800_000_000_000)
        try await withServer(clock: clock.wallClock, configure: Self.small) { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let carol = try await api.signUp("carol")
            let dan = try await api.signUp("dan")
            let bytes = testPNG(100_000, seed: 2)
            let uploaded = try await upload(bytes, as: alice, on: api)
            let instant: StartUploadResponse = try await api.call(
                .post, "/v1/uploads", Self.declare(bytes), token: bob.token)
            #expect(instant.file == uploaded && instant.upload == nil)

            let group = try await api.createGroup("team", by: bob, with: [carol])
            let sent: SendMessageResponse = try await api.call(
                .post, "/v1/messages",
                SendMessageRequest(
                    conversationId: group, clientMsgId: "img1", kind: .image,
                    content: ["fileId": .string(uploaded.fileId), "width": 640, "height": 480]),
                token: bob.token)
            #expect(sent.message.seq == 1)
            let forCarol = try await api.bytes(.get, "/v1/files/\(uploaded.fileId)", token: carol.token)
            #expect(forCarol.status == 200 && Array(buffer: forCarol.body) == bytes)
            let forDan = try await api.raw(.get, "/v1/files/\(uploaded.fileId)", token: dan.token)
            #expect(forDan.status == 404 && code(forDan.body) == .fileNotFound)
            let noToken = try await api.raw(.get, "/v1/files/\(uploaded.fileId)")
            #expect(noToken.status == 401 && code(noToken.body) == .unauthenticated)
            let danLink = try await api.raw(.post, "/v1/files/\(uploaded.fileId)/links", token: dan.token)
            #expect(danLink.status == 404)

            let link: FileLink = try await api.call(.post, "/v1/files/\(uploaded.fileId)/links", token: carol.token)
            #expect(
                link.url.hasPrefix("/v1/files/\(uploaded.fileId)?expires=") && link.expiresAt > clock.wallClock.now())
            let opened = try await api.bytes(.get, link.url)
            #expect(opened.status == 200 && Array(buffer: opened.body) == bytes)
            let forged = try await api.raw(.get, link.url.replacingOccurrences(of: "signature=", with: "signature=x"))
            #expect(forged.status == 403 && code(forged.body) == .linkInvalid)
            let longer = link.url.replacingOccurrences(
                of: "expires=\(link.expiresAt)", with: "expires=\(link.expiresAt + 1)")
            #expect(try await api.raw(.get, longer).status == 403, "the expiry is signed")
            clock.advance(3_600_001)
            let stale = try await api.raw(.get, link.url)
            #expect(stale.status == 403 && stale.body.contains("expired"))
        }
    }

    /// A chunk that does not match its digest is refused and not kept; bytes that do not
    /// match the declared hash fail the completion and the upload is gone.
    @Test func corruptedChunksAndMismatchedFilesAreRefused() async throws {
        try await withServer(configure: Self.small) { api in
            let alice = try await api.signUp("alice")
            let bytes = testPNG(100_000, seed: 3)
            let started: StartUploadResponse = try await api.call(
                .post, "/v1/uploads", Self.declare(bytes), token: alice.token)
            let upload = try #require(started.upload)
            var corrupted = bytes
            corrupted[10] ^= 0xFF
            let digest = "sha-256=:" + Data(SHA256.hash(data: bytes[0..<Self.chunk])).base64EncodedString() + ":"
            let refused = try await putChunk(corrupted, at: 0, of: upload.uploadId, as: alice, on: api, digest: digest)
            #expect(refused.status == 422 && code(refused.body) == .fileMismatch)
            let status: UploadStatus = try await api.call(.get, "/v1/uploads/\(upload.uploadId)", token: alice.token)
            #expect(status.received.isEmpty, "the corrupted chunk was not kept")
            #expect(
                try await putChunk(bytes, at: 0, of: upload.uploadId, as: alice, on: api, digest: digest).status == 200)

            // Without a digest, a corrupted chunk is found when the whole is hashed.
            #expect(
                try await putChunk(corrupted, at: Self.chunk, of: upload.uploadId, as: alice, on: api).status == 200)
            var tail = bytes
            tail[Self.chunk + 1] ^= 0x01
            #expect(try await putChunk(tail, at: Self.chunk, of: upload.uploadId, as: alice, on: api).status == 200)
            let mismatch = try await api.raw(.post, "/v1/uploads/\(upload.uploadId)/complete", token: alice.token)
            #expect(mismatch.status == 422 && code(mismatch.body) == .fileMismatch)
            #expect(try await api.raw(.get, "/v1/uploads/\(upload.uploadId)", token: alice.token).status == 404)
            let fresh: StartUploadResponse = try await api.call(
                .post, "/v1/uploads", Self.declare(bytes), token: alice.token)
            #expect(fresh.upload != nil, "nothing was kept under that hash")
        }
    }

    /// Every malformed declaration and chunk gets its precise error and changes nothing.
    @Test func badUploadsGetPreciseErrors() async throws {
        try await withServer(configure: {
            Self.small(&$0)
            $0.files.maxBytes[.image] = 200_000
            $0.files.quotaBytes = 1_000_000
        }) { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let hash = String(repeating: "ab", count: 32)
            let bad: [(String, Int, ErrorCode)] = [
                (#"{"sha256":"xyz","size":5,"mimeType":"image/png","name":"a"}"#, 400, .invalidField),
                (#"{"sha256":"\#(hash.uppercased())","size":5,"mimeType":"image/png","name":"a"}"#, 400, .invalidField),
                (#"{"sha256":"\#(hash)","size":0,"mimeType":"image/png","name":"a"}"#, 400, .invalidField),
                (#"{"sha256":"\#(hash)","size":5,"mimeType":"png","name":"a"}"#, 400, .invalidField),
                (#"{"sha256":"\#(hash)","size":5,"mimeType":"image/png","name":""}"#, 400, .invalidField),
                (#"{"sha256":"\#(hash)","size":5,"mimeType":"image/png","name":"../x"}"#, 400, .invalidField),
                (
                    #"{"sha256":"\#(hash)","size":5,"mimeType":"image/png","name":"a","kind":"text"}"#, 400,
                    .invalidField
                ),
                (
                    #"{"sha256":"\#(hash)","size":200001,"mimeType":"image/png","name":"a","kind":"image"}"#, 413,
                    .fileTooLarge
                ),
                (
                    #"{"sha256":"\#(hash)","size":5,"mimeType":"application/pdf","name":"a","kind":"image"}"#, 415,
                    .fileTypeNotAllowed
                ),
                (
                    #"{"sha256":"\#(hash)","size":5,"mimeType":"image/svg+xml","name":"a","kind":"image"}"#, 415,
                    .fileTypeNotAllowed
                ),
                (#"{"sha256":"\#(hash)","size":1000001,"mimeType":"application/pdf","name":"a"}"#, 403, .quotaExceeded),
                (#"{"sha256":"\#(hash)","size":5,"mimeType":"image/png"}"#, 400, .missingField),
            ]
            for (body, status, expected) in bad {
                let answer = try await api.raw(.post, "/v1/uploads", body: body, token: alice.token)
                #expect(answer.status == status && code(answer.body) == expected, "\(body): \(answer.body)")
            }
            let bytes = testPNG(100_000, seed: 4)
            let started: StartUploadResponse = try await api.call(
                .post, "/v1/uploads", Self.declare(bytes), token: alice.token)
            let id = try #require(started.upload?.uploadId)
            let chunks: [(String, Int, Int, ErrorCode)] = [
                ("/v1/uploads/\(id)/chunks/100", 10, 400, .chunkInvalid),
                ("/v1/uploads/\(id)/chunks/-65536", 10, 400, .chunkInvalid),
                ("/v1/uploads/\(id)/chunks/abc", 10, 400, .chunkInvalid),
                ("/v1/uploads/\(id)/chunks/131072", 10, 400, .chunkInvalid),
                ("/v1/uploads/\(id)/chunks/0", 10, 400, .chunkInvalid),
                ("/v1/uploads/\(id)/chunks/65536", 100, 400, .chunkInvalid),
                ("/v1/uploads/\(id)/chunks/0", Self.chunk + 1, 413, .payloadTooLarge),
                ("/v1/uploads/nosuchupload000000000000/chunks/0", 10, 404, .uploadNotFound),
            ]
            for (path, length, status, expected) in chunks {
                let answer = try await api.bytes(
                    .put, path, body: ByteBuffer(repeating: 1, count: length), token: alice.token)
                #expect(
                    answer.status == status && code(String(buffer: answer.body)) == expected,
                    "\(path) \(length): \(String(buffer: answer.body))")
            }
            // Someone else's upload is not found for Bob, in every operation.
            for (method, path) in [
                (HTTPRequest.Method.get, "/v1/uploads/\(id)"), (.delete, "/v1/uploads/\(id)"),
                (.post, "/v1/uploads/\(id)/complete"),
            ] {
                let answer = try await api.raw(method, path, token: bob.token)
                #expect(answer.status == 404 && code(answer.body) == .uploadNotFound, "\(method) \(path)")
            }
            let put = try await putChunk(bytes, at: 0, of: id, as: bob, on: api)
            #expect(put.status == 404)
            let status: UploadStatus = try await api.call(.get, "/v1/uploads/\(id)", token: alice.token)
            #expect(status.received.isEmpty)
            let cancelled = try await api.raw(.delete, "/v1/uploads/\(id)", token: alice.token)
            #expect(cancelled.status == 204)
            #expect(try await api.raw(.get, "/v1/uploads/\(id)", token: alice.token).status == 404)
        }
    }

    /// The server keeps the type it finds in the content: a page uploaded as an image is
    /// refused when completed (and nothing is kept); as a file it is served as an attachment
    /// that a browser will not run.
    @Test func contentIsSniffedAndActiveContentIsAnAttachment() async throws {
        try await withServer(configure: Self.small) { api in
            let alice = try await api.signUp("alice")
            let page = Array("<!DOCTYPE html><script>alert(1)</script>".utf8)
            let started: StartUploadResponse = try await api.call(
                .post, "/v1/uploads", Self.declare(page), token: alice.token)
            let id = try #require(started.upload?.uploadId)
            #expect(try await putChunk(page, at: 0, of: id, as: alice, on: api).status == 200)
            let refused = try await api.raw(.post, "/v1/uploads/\(id)/complete", token: alice.token)
            #expect(refused.status == 415 && code(refused.body) == .fileTypeNotAllowed)
            #expect(try await api.raw(.get, "/v1/uploads/\(id)", token: alice.token).status == 404)

            let file = try await upload(page, as: alice, on: api, kind: .file, mimeType: "image/png")
            #expect(file.mimeType == "text/html")
            let served = try await api.bytes(.get, "/v1/files/\(file.fileId)", token: alice.token)
            #expect(served.headers[.contentType] == "text/html")
            #expect(served.headers[.contentDisposition] == "attachment")
            #expect(served.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(served.headers[.contentSecurityPolicy]?.contains("sandbox") == true)

            let text = try await upload(
                Array("plain words\n".utf8), as: alice, on: api, kind: .file, mimeType: "text/plain")
            #expect(text.mimeType == "text/plain")
            let docx = try await upload(
                [0x50, 0x4B, 0x03, 0x04] + Array(repeating: 7, count: 40), as: alice, on: api, kind: .file,
                mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
            #expect(docx.mimeType == "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
        }
    }

    /// A message may show only files that exist, that its sender may use, of a type that
    /// suits it, with true sizes and a voice length within the limit; nothing is stored
    /// otherwise.
    @Test func messagesShowOnlyFilesTheirSenderMayUse() async throws {
        try await withServer(configure: Self.small) { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let group = try await api.createGroup("team", by: alice, with: [bob])
            let image = try await upload(testPNG(1_000, seed: 5), as: alice, on: api)
            let pdf = try await upload(
                Array("%PDF-1.4 hello".utf8), as: alice, on: api, kind: .file, mimeType: "application/pdf")
            let bobs = try await upload(testPNG(1_000, seed: 6), as: bob, on: api)
            let voice = try await upload(
                Array("OggS".utf8) + Array(repeating: 0, count: 100), as: alice, on: api, kind: .voice,
                mimeType: "audio/ogg")
            let cases: [(MessageKind, JSONValue, Int, ErrorCode)] = [
                (.image, ["fileId": "nosuchfile00000000000000", "width": 1, "height": 1], 404, .fileNotFound),
                (.image, ["fileId": "f1", "width": 1, "height": 1], 404, .fileNotFound),
                (.image, ["fileId": .string(bobs.fileId), "width": 1, "height": 1], 404, .fileNotFound),
                (.image, ["fileId": .string(pdf.fileId), "width": 1, "height": 1], 400, .messageInvalid),
                (
                    .image,
                    ["fileId": .string(image.fileId), "width": 1, "height": 1, "thumbnailId": .string(pdf.fileId)],
                    400, .messageInvalid
                ),
                (.file, ["fileId": .string(pdf.fileId), "name": "a.pdf", "size": 3], 400, .messageInvalid),
                (.voice, ["fileId": .string(voice.fileId), "durationMs": 60_001], 400, .messageInvalid),
                (.voice, ["fileId": .string(image.fileId), "durationMs": 1_000], 400, .messageInvalid),
                (.video, ["fileId": .string(image.fileId), "durationMs": 1_000, "size": 1_008], 400, .messageInvalid),
            ]
            for (index, (kind, content, status, expected)) in cases.enumerated() {
                let body = String(
                    decoding: try JSONEncoder().encode(
                        SendMessageRequest(
                            conversationId: group, clientMsgId: "bad\(index)", kind: kind, content: content)),
                    as: UTF8.self)
                let answer = try await api.raw(.post, "/v1/messages", body: body, token: alice.token)
                #expect(answer.status == status && code(answer.body) == expected, "\(kind) \(content): \(answer.body)")
            }
            #expect(try await api.fullHistory(of: group, as: alice).isEmpty, "nothing was stored")

            let good: [(MessageKind, JSONValue)] = [
                (
                    .image,
                    ["fileId": .string(image.fileId), "width": 4, "height": 3, "thumbnailId": .string(image.fileId)]
                ),
                (.file, ["fileId": .string(pdf.fileId), "name": "a.pdf", "size": .number(.integer(pdf.size))]),
                (.voice, ["fileId": .string(voice.fileId), "durationMs": 60_000]),
            ]
            for (index, (kind, content)) in good.enumerated() {
                let _: SendMessageResponse = try await api.call(
                    .post, "/v1/messages",
                    SendMessageRequest(
                        conversationId: group, clientMsgId: "good\(index)", kind: kind, content: content),
                    token: alice.token)
            }
            #expect(try await api.fullHistory(of: group, as: bob).map(\.kind) == [.image, .file, .voice])
            // Bob may forward what he can read: the copy shows the same file.
            let readable = try await api.bytes(.get, "/v1/files/\(pdf.fileId)", token: bob.token)
            #expect(readable.status == 200)
        }
    }

    /// An avatar must be an image its setter may use; anyone signed in may then read it.
    @Test func avatarsAreImagesTheirSetterMayUseAndEveryoneMayRead() async throws {
        try await withServer(configure: Self.small) { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let picture = try await upload(testPNG(500, seed: 10), as: alice, on: api)
            let pdf = try await upload(
                Array("%PDF-1.4 x".utf8), as: alice, on: api, kind: .file, mimeType: "application/pdf")
            let bobs = try await upload(testPNG(500, seed: 11), as: bob, on: api)
            for (avatar, says) in [
                (pdf.fileId, "must be an image"), (bobs.fileId, "you may use"),
                ("nosuchfile00000000000000", "you may use"),
            ] {
                let refused = try await api.raw(.patch, "/v1/me", body: #"{"avatar":"\#(avatar)"}"#, token: alice.token)
                #expect(refused.status == 400 && code(refused.body) == .avatarInvalid && refused.body.contains(says))
            }
            let set: Account = try await api.call(
                .patch, "/v1/me", ProfileUpdate(avatar: picture.fileId), token: alice.token)
            #expect(set.user.avatar == picture.fileId)
            let seen = try await api.bytes(.get, "/v1/files/\(picture.fileId)", token: bob.token)
            #expect(seen.status == 200, "an avatar is public to users")

            let group = try await api.createGroup("team", by: alice, with: [bob])
            let pdfAvatar = try await api.raw(
                .patch, "/v1/conversations/\(group)", body: #"{"avatar":"\#(pdf.fileId)"}"#, token: alice.token)
            #expect(pdfAvatar.status == 400 && code(pdfAvatar.body) == .invalidField)
            let detail: ConversationDetail = try await api.call(
                .patch, "/v1/conversations/\(group)", UpdateGroupRequest(avatar: picture.fileId), token: alice.token)
            #expect(detail.conversation.group?.avatar == picture.fileId)
        }
    }

    /// Uploads whose time ran out are thrown away with their chunks, and files nothing
    /// references are collected after the grace period; a file a message shows is kept;
    /// what a stopped join left in the work directory goes too.
    @Test func expiredUploadsAndOrphanedFilesAreSwept() async throws {
        let clock = TestClock(1_800_000_000_000)
        let directory = temporaryDirectory()
        try await withServer(
            dataDirectory: directory, clock: clock.wallClock,
            configure: {
                Self.small(&$0)
                $0.files.sweepInterval = .milliseconds(20)
                // The data directory's files are counted below.
                $0.files.location = nil
            }
        ) { api in
            let owner = try await api.signUp("alice")
            let group = try await api.createGroup("team", by: owner, with: [])
            let kept = try await upload(testPNG(1_000, seed: 7), as: owner, on: api)
            let orphan = try await upload(testPNG(1_000, seed: 8), as: owner, on: api)
            let _: SendMessageResponse = try await api.call(
                .post, "/v1/messages",
                SendMessageRequest(
                    conversationId: group, clientMsgId: "k", kind: .image,
                    content: ["fileId": .string(kept.fileId), "width": 1, "height": 1]),
                token: owner.token)
            let bytes = testPNG(100_000, seed: 9)
            let started: StartUploadResponse = try await api.call(
                .post, "/v1/uploads", Self.declare(bytes), token: owner.token)
            let pending = try #require(started.upload)
            #expect(try await putChunk(bytes, at: 0, of: pending.uploadId, as: owner, on: api).status == 200)
            #expect(Self.storedObjects(in: directory, under: "uploads").count == 1)
            // A join a node was stopped in the middle of left its file behind.
            let work = directory + "/uploads-work"
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: work + "/abandoned", contents: Data(count: 10)))
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -25 * 3600)], ofItemAtPath: work + "/abandoned")

            clock.advance(24 * 3_600_000 + 1)
            let alice = try await api.logIn("alice")
            try await eventually { Self.storedObjects(in: directory, under: "uploads").isEmpty }
            try await eventually(every: .milliseconds(20)) {
                (try? await api.raw(.get, "/v1/files/\(orphan.fileId)", token: alice.token).status) == 404
            }
            #expect(try await api.raw(.get, "/v1/uploads/\(pending.uploadId)", token: alice.token).status == 404)
            #expect(try await api.bytes(.get, "/v1/files/\(kept.fileId)", token: alice.token).status == 200)
            #expect(Self.storedObjects(in: directory, under: "files").count == 1, "only the kept file's bytes")
            try await eventually { !FileManager.default.fileExists(atPath: work + "/abandoned") }
        }
    }

    static func storedObjects(in directory: String, under folder: String) -> [String] {
        let root = directory + "/files/" + folder
        let paths = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? []
        return paths.filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }
    }
}
