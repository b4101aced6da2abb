import Foundation
import ParleyCore
import ParleyStore

/// What a feature's frame handler knows of a request besides its payload.
struct FrameRequest: Sendable {
    /// The request's id, which its answer carries.
    let id: String?
    let identity: Identity
    /// The socket it came on; a push caused by the request skips it (it gets the answer).
    let origin: ConnectionTag

    /// The conversation a payload names, which frames (unlike HTTP paths) must carry.
    func conversationId(_ named: ConversationID?) throws -> ConversationID {
        guard let named else { throw ParleyError(.missingField, "Missing field 'payload.conversationId'.") }
        return named
    }
}

/// A decoded request, ready to run: it answers with the text of the frame to send back.
typealias PreparedFrame = @Sendable (FrameRequest) async throws -> String

/// One request frame type that a feature answers on an authenticated socket. A feature
/// adds a frame with its payload type (a ``StrictDecodable``) and one handler in its
/// `…FrameHandlers` file; the gateway needs no change.
struct FrameHandler: Sendable {
    let type: ClientFrameType
    /// Decodes the payload strictly (at frame decoding, in the same pass as the envelope).
    let prepare: @Sendable (KeyedDecodingContainer<ClientRequestFrame.CodingKeys>) throws -> PreparedFrame
    /// Reads the payload from an already parsed object, for payloads that are
    /// ``FastDecodable``; nil when it cannot (``ClientRequestFrame/fast(_:handlers:)``).
    var fast: (@Sendable ([String: JSONValue]) -> PreparedFrame?)? = nil

    /// A handler answered with a `result` frame holding what `answer` returns (written by
    /// ``JSONWriter`` when the answer is ``JSONWritable``).
    static func result<Payload: StrictDecodable & Sendable, Answer: Codable & Sendable>(
        _ type: ClientFrameType, _ answer: @escaping @Sendable (Payload, FrameRequest) async throws -> Answer
    ) -> FrameHandler {
        written(type) { (payload: Payload, request) in
            try resultFrame(try await answer(payload, request), id: request.id)
        }
    }

    /// The same, for a payload that is also read without `JSONDecoder` when it can be (the
    /// `read` and `delivered` marks, one per message a device receives).
    static func result<Payload: StrictDecodable & FastDecodable & Sendable, Answer: Codable & Sendable>(
        _ type: ClientFrameType, _ answer: @escaping @Sendable (Payload, FrameRequest) async throws -> Answer
    ) -> FrameHandler {
        written(type) { (payload: Payload, request) in
            try resultFrame(try await answer(payload, request), id: request.id)
        }
    }

    /// The `result` frame answering request `id` with `value`.
    private static func resultFrame<Answer: Codable & Sendable>(_ value: Answer, id: String?) throws -> String {
        if let writable = value as? any JSONWritable {
            return try MessageFrames.result(id: id) { try writable.write(to: &$0) }
        }
        return try JSONText.encode(Frame(.result, id: id, payload: value))
    }

    /// A handler that writes its answer frame itself, whose payload is also read without
    /// `JSONDecoder` when it can be (the `send` frame).
    static func written<Payload: StrictDecodable & FastDecodable & Sendable>(
        _ type: ClientFrameType, _ answer: @escaping @Sendable (Payload, FrameRequest) async throws -> String
    ) -> FrameHandler {
        var handler = strict(type, answer)
        handler.fast = { object in
            guard let payload = Payload(fastFrom: object) else { return nil }
            return { request in try await answer(payload, request) }
        }
        return handler
    }

    /// A handler that writes its answer frame itself.
    static func written<Payload: StrictDecodable & Sendable>(
        _ type: ClientFrameType, _ answer: @escaping @Sendable (Payload, FrameRequest) async throws -> String
    ) -> FrameHandler {
        strict(type, answer)
    }

    private static func strict<Payload: StrictDecodable & Sendable>(
        _ type: ClientFrameType, _ answer: @escaping @Sendable (Payload, FrameRequest) async throws -> String
    ) -> FrameHandler {
        FrameHandler(type: type) { container in
            let payload: Payload = try ClientRequestFrame.payload(in: container)
            return { request in try await answer(payload, request) }
        }
    }
}

/// Every feature's request frames, by type: the table the gateway dispatches through. It
/// travels to ``ClientRequestFrame`` in the decoder's `userInfo`.
struct FrameHandlers: Sendable {
    private let byType: [String: FrameHandler]

    init(_ handlers: [FrameHandler]) {
        byType = Dictionary(handlers.map { ($0.type.rawValue, $0) }) { first, _ in
            preconditionFailure("two handlers for the frame type '\(first.type.rawValue)'")
        }
    }

    func handler(for type: String) -> FrameHandler? { byType[type] }

    /// The frame types handled.
    var types: Set<String> { Set(byType.keys) }

    static let userInfoKey = CodingUserInfoKey(rawValue: "parley.frameHandlers")!

    /// A decoder for client frames that dispatches payloads through this table.
    func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.userInfo[Self.userInfoKey] = self
        return decoder
    }
}
