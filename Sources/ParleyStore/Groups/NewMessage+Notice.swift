import Foundation
import ParleyCore

extension NewMessage {
    /// How the `clientMsgId` of every system notice starts; clients may not use it.
    public static let noticeIDPrefix = "system-"

    /// The system message that records `notice` in conversation `id`, sent in the name of
    /// the user who made the change. Its `clientMsgId` is the server's own (``noticeIDPrefix``…).
    public init(notice: SystemNotice, in id: ConversationID, by actorId: UserID, at now: Int64) throws {
        try self.init(
            target: .conversation(id), senderId: actorId,
            clientMsgId: Self.noticeIDPrefix + UUID().uuidString.lowercased(),
            kind: .system, content: try JSONText.decode(JSONValue.self, from: try JSONText.encode(notice)),
            sentAt: now)
    }
}
