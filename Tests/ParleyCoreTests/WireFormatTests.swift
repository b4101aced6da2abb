import Foundation
import ParleyCore
import Testing

@Suite struct WireFormatTests {
    @Test func strictDecodingNamesTheUnknownField() throws {
        let data = Data(#"{"login":"a","password":"b","devise":"typo"}"#.utf8)
        #expect(throws: UnknownFieldError.self) { try JSONDecoder().decode(Strict<LoginRequest>.self, from: data) }
        do {
            _ = try JSONDecoder().decode(Strict<LoginRequest>.self, from: data)
        } catch {
            #expect(ParleyError(decoding: error) == ParleyError(.unknownField, "Unknown field 'devise'."))
        }
        let ok = try JSONDecoder().decode(Strict<LoginRequest>.self, from: Data(#"{"login":"a","password":"b"}"#.utf8))
        #expect(ok.value.login == "a" && ok.value.device == nil)
    }

    @Test func decodingErrorsMapToCodes() {
        func code(_ json: String) -> ErrorCode {
            do {
                _ = try JSONDecoder().decode(Strict<RegisterRequest>.self, from: Data(json.utf8))
                return ErrorCode(rawValue: "none")
            } catch {
                return ParleyError(decoding: error).code
            }
        }
        #expect(code("{") == .invalidJSON)
        #expect(code("[]") == .invalidJSON)
        #expect(code(#"{"username":"a"}"#) == .missingField)
        #expect(code(#"{"username":1,"password":"p"}"#) == .invalidField)
        #expect(code(#"{"username":"a","password":"p"}"#) == ErrorCode(rawValue: "none"))
    }

    @Test func knownKindsAreCheckedAndUnknownKindsKeptIntact() throws {
        #expect(
            try MessageContent(kind: .text, content: ["text": "hi", "mentions": [7]])
                == .text(text: "hi", mentions: Mentions([UserID(7)])))
        #expect(
            try MessageContent(kind: .text, content: ["text": "hi all", "mentionAll": true])
                == .text(text: "hi all", mentions: Mentions(all: true)))
        #expect(
            try MessageContent(kind: .location, content: ["latitude": 52.5, "longitude": 13.4])
                == .location(latitude: 52.5, longitude: 13.4, name: nil))
        #expect(
            try MessageContent(kind: .video, content: ["fileId": "f", "durationMs": 1200, "size": 99])
                == .video(fileId: "f", durationMs: 1200, size: 99, width: nil, height: nil, posterId: nil))
        #expect(
            try MessageContent(kind: .reply, content: ["text": "yes", "replyTo": 3])
                == .reply(text: "yes", replyTo: MessageID(3), mentions: .none))
        let invalid: [(MessageKind, JSONValue)] = [
            (.text, ["text": ""]), (.text, ["text": 5]), (.text, "hi"), (.text, ["text": "x", "mentions": ["bob"]]),
            (.image, ["fileId": "f", "width": -1, "height": 2]), (.voice, ["fileId": "f", "durationMs": 1.5]),
            (.location, ["latitude": 91, "longitude": 0]), (.file, ["fileId": "f", "name": "", "size": 1]),
            (.reply, ["text": "x", "replyTo": 0]), (.reply, ["text": "x", "replyToSeq": 3]),
            (.text, ["text": "x", "mentions": [1, 1]]), (.text, ["text": "x", "mentionAll": 1]),
            (.recalled, [:]),
        ]
        for (kind, content) in invalid {
            #expect(throws: ParleyError.self, "\(kind) \(content)") { try MessageContent(kind: kind, content: content) }
        }
        let future: JSONValue = ["anything": ["goes": [1, 2, nil, true]]]
        #expect(
            try MessageContent(kind: "hologram", content: future) == .unsupported(kind: "hologram", content: future))
    }

    @Test func jsonValueRoundTripsExactly() throws {
        let value: JSONValue = [
            "s": "text", "n": 12.5, "i": 3, "b": false, "null": nil, "a": [1, "two", ["three": 3]],
        ]
        let decoded = try JSONDecoder().decode(JSONValue.self, from: try JSONEncoder().encode(value))
        #expect(decoded == value)
    }

    @Test func endpointsFillTheirPathParameters() {
        #expect(Endpoint.history.path(42) == "/v1/conversations/42/messages")
        #expect(Endpoint.getUserByUsername.path("alice") == "/v1/users/by-username/alice")
        #expect(Endpoint.sync.path() == "/v1/sync")
        #expect(
            Set(Endpoint.allCases.map { "\($0.method) \($0.path)" }).count == Endpoint.allCases.count,
            "no two endpoints collide")
    }

    @Test func errorCodesCarryTheirHTTPStatus() {
        #expect(ErrorCode.notAMember.httpStatus == 403)
        #expect(ErrorCode(rawValue: "username_taken").httpStatus == 409)
        #expect(ErrorCode(rawValue: "from_the_future").httpStatus == 400)
    }
}

/// A user event is one flat object: `seq`, `type`, `at` and its payload's fields, exactly as
/// before the payloads were typed; types this version cannot read pass through unchanged.
@Suite struct UserEventWireTests {
    func object(_ text: String) throws -> JSONValue { try JSONText.decode(JSONValue.self, from: text) }

    @Test func knownEventsKeepTheirFlatForm() throws {
        let cases: [(UserEvent, String)] = [
            (
                UserEvent(
                    seq: 3, at: 9,
                    MembersRemoved(
                        conversationId: ConversationID(7), userIds: [UserID(1), UserID(2)], reason: .removed,
                        removedBy: UserID(3), lastSeq: 12
                    ).body),
                #"{"seq":3,"type":"members.removed","conversationId":7,"userIds":[1,2],"reason":"removed","removedBy":3,"lastSeq":12,"at":9}"#
            ),
            (
                UserEvent(seq: 4, at: 9, ReadMoved(conversationId: ConversationID(7), readSeq: 12).body),
                #"{"seq":4,"type":"read.moved","conversationId":7,"readSeq":12,"at":9}"#
            ),
            (
                UserEvent(
                    seq: 5, at: 9,
                    ConversationUpdated(
                        conversationId: ConversationID(7), group: GroupProfile(name: "发布", ownerId: UserID(1)),
                        updatedBy: UserID(2)
                    ).body),
                #"{"seq":5,"type":"conversation.updated","conversationId":7,"name":"发布","updatedBy":2,"group":{"name":"发布","description":"","joinPolicy":"open","muteAll":false,"memberLimit":2000,"ownerId":1,"everyoneMayMentionAll":false},"at":9}"#
            ),
        ]
        for (event, wire) in cases {
            #expect(try object(JSONText.encode(event)) == object(wire))
            #expect(try JSONText.decode(UserEvent.self, from: wire) == event)
        }
        let older = #"{"name":"g","description":"","joinPolicy":"open","muteAll":false,"memberLimit":2,"ownerId":1}"#
        #expect(
            try JSONText.decode(GroupProfile.self, from: older).everyoneMayMentionAll == false,
            "a profile from a server before the setting reads as off")
    }

    @Test func unknownTypesAndUnreadablePayloadsPassThroughUnchanged() throws {
        let newer = #"{"seq":6,"type":"call.started","conversationId":7,"callId":"c1","at":9}"#
        let unreadable = #"{"seq":7,"type":"conversation.updated","conversationId":7,"avatar":"f1","at":9}"#
        for wire in [newer, unreadable] {
            let event = try JSONText.decode(UserEvent.self, from: wire)
            guard case .unknown(let type, let fields) = event.body else {
                Issue.record("\(wire) decoded as \(event.body)")
                continue
            }
            #expect(type == event.type)
            #expect(fields["conversationId"] == 7)
            #expect(try object(JSONText.encode(event)) == object(wire))
        }
    }
}
