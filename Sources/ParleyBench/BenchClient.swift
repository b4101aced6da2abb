import Foundation
import ParleyCore
import ParleyKit
import ParleyKitTransport
import Synchronization

/// A user the bench created, with a session token.
struct BenchAccount: Sendable {
    let id: UserID
    let username: String
    let token: String
}

/// The bench's side of the server: accounts and conversations over HTTP, sockets over the
/// real WebSocket protocol (the SDK's transports, not its engine, so the engine's work is
/// not measured).
struct BenchClient: Sendable {
    let api: APIClient
    let runID: String
    /// The nodes' WebSocket URLs; sockets open on each in turn.
    private let webSocketURLs: [String]
    private let opened = Counter()

    /// How many sockets were opened (shared by the copies of a client).
    private final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    /// `runID` prefixes the user names: from `seed` when given, so that a run can be repeated
    /// with the same names on a fresh server; otherwise random, so reruns never meet old users.
    /// Accounts and conversations are made through the first of `servers`.
    init(servers: [String], seed: UInt64?) {
        let transport = AsyncHTTPTransport(timeout: .seconds(60))
        api = APIClient(baseURL: servers[0], http: transport)
        webSocketURLs = servers.map { APIClient(baseURL: $0, http: transport).webSocketURL }
        runID = "b\(seed ?? UInt64.random(in: 0..<100_000_000))"
    }

    /// Where the next socket opens: each node in turn.
    func nextWebSocketURL() -> String {
        webSocketURLs[opened.value.wrappingAdd(1, ordering: .relaxed).oldValue % webSocketURLs.count]
    }

    /// Registers and logs in `count` users, eight at a time (bcrypt makes each take a while).
    func createUsers(_ count: Int, role: String) async throws -> [BenchAccount] {
        try await withThrowingTaskGroup(of: (Int, BenchAccount).self) { group in
            var accounts = [BenchAccount?](repeating: nil, count: count)
            var next = 0
            func add() {
                let index = next
                next += 1
                group.addTask {
                    let name = "\(runID)\(role)\(index)"
                    _ = try await api.call(
                        .register, body: RegisterRequest(username: name, password: "Bench-pass-1"), as: Account.self)
                    let tokens: TokenResponse = try await api.call(
                        .login, body: LoginRequest(login: name, password: "Bench-pass-1", device: "bench"))
                    return (index, BenchAccount(id: tokens.account.user.id, username: name, token: tokens.accessToken))
                }
            }
            for _ in 0..<min(8, count) { add() }
            while let (index, account) = try await group.next() {
                accounts[index] = account
                if next < count { add() }
            }
            return accounts.compactMap { $0 }
        }
    }

    func openDirect(_ account: BenchAccount, with peer: BenchAccount) async throws -> ConversationID {
        let detail: ConversationDetail = try await api.call(
            .openDirect, body: OpenDirectRequest(userId: peer.id), token: account.token)
        return detail.conversation.id
    }

    /// A conversation's whole history, paged by seq.
    func history(of conversation: ConversationID, token: String) async throws -> [Message] {
        var messages: [Message] = []
        while true {
            let page: HistoryPage = try await api.call(
                .history, [conversation], query: ["after": "\(messages.last?.seq ?? 0)", "limit": "200"], token: token)
            messages += page.messages
            if !page.hasMore || page.messages.isEmpty { return messages }
        }
    }

    func createGroup(owner: BenchAccount, members: [BenchAccount]) async throws -> ConversationID {
        let detail: ConversationDetail = try await api.call(
            .createGroup, body: CreateGroupRequest(name: "bench", memberIds: members.map(\.id)), token: owner.token)
        return detail.conversation.id
    }
}

/// One authenticated socket. Pushed messages go to `onMessage` (if any) with their arrival time;
/// sends do not wait for their acknowledgement (the load is open-loop).
final class BenchSocket: Sendable {
    private let socket: any RealtimeSocket
    private let client: BenchClient
    private let token: String
    private let acknowledged = Atomic<Int>(0)
    private let marked = Atomic<Int>(0)
    private let failed = Mutex<[String]>([])
    private let reader = Mutex<Task<Void, Never>?>(nil)

    /// The id of every `delivered` frame, whose answers are no send's acknowledgement.
    private static let deliveryMark = "delivered"

    private init(socket: any RealtimeSocket, client: BenchClient, token: String) {
        self.socket = socket
        self.client = client
        self.token = token
    }

    static func open(
        _ client: BenchClient, token: String, clock: BenchClock, acknowledgesDeliveries: Bool = false,
        onMessage: (@Sendable (Message, Duration) -> Void)? = nil
    ) async throws -> BenchSocket {
        let socket = try await NIOWebSocketTransport().open(url: client.nextWebSocketURL())
        let bench = BenchSocket(socket: socket, client: client, token: token)
        let ready = AsyncStream<Bool>.makeStream()
        let task = Task {
            var announced = false
            for await event in socket.events {
                guard case .text(let text) = event else {
                    if case .closed(let code) = event {
                        bench.failed.withLock {
                            $0.append("socket closed with code \(code.map(String.init) ?? "none")")
                        }
                    }
                    break
                }
                if text.contains(#""type":"message""#) {
                    // A socket that neither times nor marks its messages does not decode them, so
                    // that the load generator is not what a run with many sockets measures.
                    guard onMessage != nil || acknowledgesDeliveries else { continue }
                    let now = clock.elapsed
                    if let frame = IncomingFrame(text: text), let message = try? frame.payload(Message.self) {
                        onMessage?(message, now)
                        if acknowledgesDeliveries {
                            try? await bench.send(
                                .delivered, ReadRequest(conversationId: message.conversationId, seq: message.seq),
                                id: Self.deliveryMark)
                        }
                    }
                } else if text.contains(#""type":"result""#) {
                    guard !text.contains(#""id":"\#(Self.deliveryMark)""#) else {
                        bench.marked.add(1, ordering: .relaxed)
                        continue
                    }
                    bench.acknowledged.add(1, ordering: .relaxed)
                } else if text.contains(#""type":"error""#) {
                    bench.failed.withLock { $0.append(text) }
                    if !announced { ready.continuation.yield(false) }
                } else if !announced, text.contains(#""type":"ready""#) {
                    announced = true
                    ready.continuation.yield(true)
                }
            }
            ready.continuation.finish()
        }
        bench.reader.withLock { $0 = task }
        try await bench.send(.auth, AuthPayload(token: token), id: "a")
        var iterator = ready.stream.makeAsyncIterator()
        guard await iterator.next() == true else {
            throw ParleyError(.invalidToken, "The bench socket was not accepted.")
        }
        return bench
    }

    /// Sends a request frame without waiting for its answer.
    func send<Payload: Codable & Sendable>(_ type: ClientFrameType, _ payload: Payload, id: String) async throws {
        try await socket.send(try JSONText.encode(Frame(type, id: id, payload: payload)))
    }

    /// How many messages in `conversation` whose `clientMsgId` starts with `prefix` the
    /// server holds, read over HTTP as this socket's user.
    func committedMessages(in conversation: ConversationID, clientMsgIdPrefix prefix: String) async throws -> Int {
        try await client.history(of: conversation, token: token).filter { $0.clientMsgId.hasPrefix(prefix) }.count
    }

    /// `result` frames received so far (acknowledged sends).
    var acknowledgements: Int { acknowledged.load(ordering: .relaxed) }
    /// Answers to this socket's `delivered` frames so far (delivery marks the server took).
    var deliveryMarks: Int { marked.load(ordering: .relaxed) }
    /// `error` frames and closes so far, oldest first.
    var errors: [String] { failed.withLock { $0 } }

    func close() async {
        await socket.close()
        reader.withLock { $0 }?.cancel()
    }
}

/// Time since the run started, shared by senders (scheduled times) and receivers.
struct BenchClock: Sendable {
    let origin = ContinuousClock.now
    var elapsed: Duration { ContinuousClock.now - origin }

    /// Sleeps until `offset` after the origin.
    func sleep(until offset: Duration) async throws {
        try await Task.sleep(until: origin + offset, clock: .continuous)
    }
}

extension Duration {
    var microseconds: Int64 { components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000 }
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
