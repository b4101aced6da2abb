import Foundation
import ParleyCore
import Synchronization

/// What a user does to messages already sent (`client.messages`): recall, edit, forward,
/// delete for themselves, clear a conversation's history for themselves, and who has read
/// what. Replies and mentions are sent through the outbox (``ChatContext/sendReply(_:to:mentions:)``,
/// ``ChatContext/send(text:mentions:after:)``).
///
/// Each action goes to the server over HTTP, and what it answers is stored and shown at once
/// (through the ``SyncEngine``, so open ``ChatContext``s follow); every device concerned then
/// hears it as an event (`message.updated` to every member, `messages.deleted` and
/// `settings.updated` to the user's own devices), live or through sync after being offline.
/// The server decides who may do what; refusals come back as ``ParleyError``s.
public struct MessageActions: Sendable {
    let store: ClientStore
    let session: Session
    let sync: SyncEngine
    let connection: ConnectionManager
    let newClientMsgId: @Sendable () -> String
    /// The clientMsgIds of forward calls that failed, reused when the same call is tried again.
    let pendingForwards: PendingForwards

    /// The recall and edit windows the server announced (its defaults before it did).
    public func windows() async -> MessageWindows { MessageWindows(await connection.ready) }

    /// Recalls a message for everyone: one's own within the recall window; in a group, the
    /// owner any message and an admin those of plain members. Returns the recalled form.
    @discardableResult
    public func recall(_ message: Message) async throws -> Message {
        try await saved(session.http(.recallMessage, message.id))
    }

    /// Replaces the text of one's own text or reply, within the edit window; mentions stay as
    /// sent. Returns the edited message.
    @discardableResult
    public func edit(_ message: Message, text: String) async throws -> Message {
        try await saved(session.http(.editMessage, message.id, body: EditMessageRequest(text: text)))
    }

    /// Forwards each message to each conversation (one copy per pair, in order), returning the
    /// copies. Each copy has its own `clientMsgId`; when the call fails, calling it again with
    /// the same messages and conversations (a retry) reuses them, so a copy the server already
    /// made is not made twice. Any other call, and any call after one that succeeded, makes
    /// new copies, also of a message already forwarded to the same conversation.
    @discardableResult
    public func forward(_ messages: [Message], to conversations: [ConversationID]) async throws -> [Message] {
        let pairs = messages.flatMap { message in conversations.map { (message.id, $0) } }
        let ids = pendingForwards.ids(for: pairs, making: newClientMsgId)
        var copies: [Message] = []
        for ((messageId, conversationId), clientMsgId) in zip(pairs, ids) {
            let request = ForwardMessageRequest(
                messageId: messageId, conversationId: conversationId, clientMsgId: clientMsgId)
            let response: SendMessageResponse = try await session.http(.forwardMessage, body: request)
            copies.append(try await saved(response.message))
        }
        pendingForwards.forget(pairs)
        return copies
    }

    /// Deletes messages for the user only, on all their devices; the other members keep them.
    public func delete(_ messages: [Message]) async throws {
        let byConversation = Dictionary(grouping: messages, by: \.conversationId)
        for (conversationId, messages) in byConversation.sorted(by: { $0.key < $1.key }) {
            let seqs = messages.map(\.seq).sorted()
            for start in stride(from: 0, to: seqs.count, by: Limits.maxDeleteBatch) {
                let batch = Array(seqs[start..<min(start + Limits.maxDeleteBatch, seqs.count)])
                let deleted: MessagesDeleted = try await session.http(
                    .deleteMessages, conversationId, body: DeleteMessagesRequest(seqs: batch))
                await sync.deliver(try store.hideMessages(deleted.seqs, in: conversationId))
            }
        }
    }

    /// Clears a conversation's history for the user, on all their devices, up to `seq` (the
    /// last message when nil); the other members keep it.
    @discardableResult
    public func clearHistory(in conversationId: ConversationID, upTo seq: Int64? = nil) async throws
        -> ConversationSummary
    {
        let upTo = try seq ?? store.conversation(conversationId)?.maxSeq ?? Int64.max
        let summary: ConversationSummary = try await session.http(
            .updateSettings, conversationId, body: UpdateSettingsRequest(clearUpToSeq: upTo))
        await sync.deliver(try store.saveConversation(summary))
        return summary
    }

    /// Every member's read and delivered watermarks, from which "read by N" follows.
    public func receipts(in conversationId: ConversationID) async throws -> ReceiptList {
        try await session.http(.receipts, conversationId)
    }

    /// Who, other than its sender, has read a message, and who has not.
    public func readers(of message: Message) async throws -> MessageReaders {
        try await session.http(.messageReaders, message.conversationId, message.seq)
    }

    private func saved(_ message: Message) async throws -> Message {
        await sync.deliver(try store.saveMessages([message]))
        return message
    }
}

/// The clientMsgIds of forward calls that failed, by call (its (message, target) pairs in
/// order), kept for a retry of the same call.
final class PendingForwards: Sendable {
    private let ids = Mutex<[String: [String]]>([:])

    private static func key(_ pairs: [(MessageID, ConversationID)]) -> String {
        pairs.map { "\($0.0)>\($0.1)" }.joined(separator: ",")
    }

    /// The ids of a call's pairs: those a failed call with the same pairs gave them, else new
    /// ones (kept until ``forget(_:)``, so that a retry reuses them).
    func ids(for pairs: [(MessageID, ConversationID)], making newId: () -> String) -> [String] {
        ids.withLock { ids in
            let key = Self.key(pairs)
            if let known = ids[key] { return known }
            let made = pairs.map { _ in newId() }
            ids[key] = made
            return made
        }
    }

    /// The call succeeded: calling it again is a new forward.
    func forget(_ pairs: [(MessageID, ConversationID)]) {
        ids.withLock { ids in ids[Self.key(pairs)] = nil }
    }
}
