import Foundation
import ParleyCore
import Testing

/// One announcement's event is encoded once and copied per user with the user's seq; each
/// copy must be exactly the event as `JSONText` encodes it, even when the event's own text
/// holds the placeholder's digits.
struct UserEventTemplateTests {
    static let bodies: [UserEventBody] = [
        ConversationAdded(conversationId: ConversationID(5)).body,
        MembersRemoved(
            conversationId: ConversationID(3), userIds: [UserID(4), UserID(9)], reason: .removed, removedBy: UserID(1),
            lastSeq: 7
        ).body,
        ConversationUpdated(
            conversationId: ConversationID(3),
            group: GroupProfile(name: "\(Int64.min)", description: "\(Int64.min) \(Int64.min)", ownerId: UserID(1)),
            updatedBy: UserID(1)
        ).body,
    ]

    @Test(arguments: [Int64(1), 2, 999, Int64.max])
    func copiesAreTheEventEncodedWithItsSeq(seq: Int64) throws {
        for body in Self.bodies {
            let template = try UserEventTemplate(body, at: 1_795_000_000_000)
            let expected = UserEvent(seq: seq, at: 1_795_000_000_000, body)
            let copy = try template.json(seq: seq)
            #expect(try JSONText.decode(UserEvent.self, from: copy) == expected)
            #expect(
                try JSONText.decode(JSONValue.self, from: copy)
                    == JSONText.decode(JSONValue.self, from: try JSONText.encode(expected)))
            #expect(template.event(seq: seq) == expected)
        }
    }

    @Test func aTextHoldingThePlaceholderIsEncodedWholeNotSpliced() throws {
        let template = try UserEventTemplate(Self.bodies[2], at: 1)
        #expect(template.parts == nil)
        let spliced = try UserEventTemplate(Self.bodies[1], at: 1)
        #expect(spliced.parts != nil)
    }
}
