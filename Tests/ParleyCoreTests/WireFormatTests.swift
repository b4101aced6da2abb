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
                == .text(text: "hi", mentions: [UserID(7)]))
        #expect(
            try MessageContent(kind: .location, content: ["latitude": 52.5, "longitude": 13.4])
                == .location(latitude: 52.5, longitude: 13.4, name: nil))
        #expect(
            try MessageContent(kind: .video, content: ["fileId": "f", "durationMs": 1200, "size": 99])
                == .video(fileId: "f", durationMs: 1200, size: 99))
        #expect(
            try MessageContent(kind: .reply, content: ["text": "yes", "replyToSeq": 3])
                == .reply(text: "yes", replyToSeq: 3, mentions: []))
        let invalid: [(MessageKind, JSONValue)] = [
            (.text, ["text": ""]), (.text, ["text": 5]), (.text, "hi"), (.text, ["text": "x", "mentions": ["bob"]]),
            (.image, ["fileId": "f", "width": -1, "height": 2]), (.voice, ["fileId": "f", "durationMs": 1.5]),
            (.location, ["latitude": 91, "longitude": 0]), (.file, ["fileId": "f", "name": "", "size": 1]),
            (.reply, ["text": "x", "replyToSeq": 0]),
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
