import Foundation
import ParleyCore
import Testing

@testable import ParleyServer

/// The hand-written push and ack frames decode as the frame types clients read them as.
struct MessageFramesTests {
    let message = Message(
        id: MessageID(9), conversationId: ConversationID(3), seq: 12, senderId: UserID(5), clientMsgId: "c-1",
        kind: .text,
        content: ["text": "hello \"world\"\n", "mentions": [5]], sentAt: 1_795_000_000_123)

    @Test func pushDecodesAsAMessageFrame() throws {
        let frame = try JSONDecoder().decode(Frame<Message>.self, from: Data(try MessageFrames.push(message).utf8))
        #expect(frame.type == "message" && frame.id == nil && frame.payload == message)
    }

    @Test(arguments: [nil, "k1", "odd \"id\" \\ \u{1}"])
    func ackDecodesAsAResultFrameWithTheRequestID(_ id: String?) throws {
        for duplicate in [false, true] {
            let text = try MessageFrames.ack(SendMessageResponse(message: message, duplicate: duplicate), id: id)
            let frame = try JSONDecoder().decode(Frame<SendMessageResponse>.self, from: Data(text.utf8))
            #expect(frame.type == "result" && frame.id == id)
            #expect(frame.payload?.message == message && frame.payload?.duplicate == duplicate)
        }
    }
}
