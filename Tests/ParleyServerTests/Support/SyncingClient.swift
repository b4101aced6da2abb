import Foundation
import ParleyCore

/// A minimal client that follows SPEC section 3 to the letter, to prove the protocol: it
/// applies pushed messages by seq, syncs from its cursor after (re)connecting, and fills
/// every hole in every conversation by range requests. Its store is keyed by seq, and it
/// counts how often a message reached it again (harmless, and expected after a reconnect).
final class SyncingClient {
    let api: TestAPI
    let user: TestUser
    private(set) var cursor: String?
    private(set) var messages: [ConversationID: [Int64: Message]] = [:]
    private(set) var repeatedDeliveries = 0
    private(set) var pushedMessages = 0
    private(set) var fetchedMessages = 0
    private(set) var socket: LiveSocket?

    init(api: TestAPI, user: TestUser, cursor: String? = nil) {
        self.api = api
        self.user = user
        self.cursor = cursor
    }

    /// Connects the socket and catches up from the stored cursor.
    func connect() async throws {
        socket = try await LiveSocket.connect(api.webSocketURL, token: user.token)
        try await catchUp()
    }

    /// Drops the socket without a goodbye, as a lost network would.
    func dropConnection() async {
        await socket?.drop()
        absorbPushes()
        socket = nil
    }

    /// Applies the message frames that arrived on the socket.
    func absorbPushes() {
        for frame in socket?.drain() ?? [] where frame.type == ServerFrameType.message.rawValue {
            if let message = try? frame.payload(Message.self) {
                pushedMessages += 1
                store(message)
            }
        }
    }

    /// Syncs until the server has nothing more, then fills the holes of every conversation.
    func catchUp() async throws {
        var maxSeqs: [ConversationID: Int64] = [:]
        while true {
            let response: SyncResponse
            if let socket {
                response = try await socket.call(.sync, SyncRequest(cursor: cursor, limit: 50))
            } else {
                let query = cursor.map { "?cursor=\($0)&limit=50" } ?? "?limit=50"
                response = try await api.call(.get, "/v1/sync\(query)", token: user.token)
            }
            for conversation in response.conversations {
                maxSeqs[conversation.id] = max(maxSeqs[conversation.id] ?? 0, conversation.maxSeq)
            }
            cursor = response.cursor
            if !response.hasMore { break }
        }
        absorbPushes()
        for (conversationId, maxSeq) in maxSeqs {
            try await fillHoles(in: conversationId, upTo: maxSeq)
        }
    }

    /// Fetches every seq in 1...maxSeq the client does not hold.
    func fillHoles(in conversationId: ConversationID, upTo maxSeq: Int64) async throws {
        var next: Int64 = 1
        while next <= maxSeq {
            let held = messages[conversationId] ?? [:]
            while next <= maxSeq, held[next] != nil { next += 1 }
            guard next <= maxSeq else { break }
            let page: HistoryPage = try await api.call(
                .get, "/v1/conversations/\(conversationId)/messages?after=\(next - 1)&limit=200", token: user.token)
            guard !page.messages.isEmpty else { throw TestFailure("server has no seq \(next) in \(conversationId)") }
            for message in page.messages {
                fetchedMessages += 1
                store(message)
            }
        }
    }

    private func store(_ message: Message) {
        if messages[message.conversationId]?[message.seq] != nil {
            repeatedDeliveries += 1
            precondition(messages[message.conversationId]?[message.seq] == message, "two different messages at one seq")
        } else {
            messages[message.conversationId, default: [:]][message.seq] = message
        }
    }

    /// The conversation's messages in seq order.
    func timeline(_ conversationId: ConversationID) -> [Message] {
        (messages[conversationId] ?? [:]).values.sorted { $0.seq < $1.seq }
    }
}
