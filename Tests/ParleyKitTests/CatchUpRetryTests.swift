import Foundation
import ParleyCore
import ParleyKit
import ParleyTesting
import Testing

/// When a client's catch-up fails with its socket up: one at a time, and again after waits
/// that double. A scripted socket plays the server and manual time drives the client's
/// one-second maintenance tick.
@Suite struct CatchUpRetryTests {
    /// HTTP that never reaches anything: this client's catch-ups go over the socket.
    struct Unreachable: HTTPTransport {
        func perform(method: String, url: String, headers: [String: String], body: Data?) async throws
            -> (status: Int, body: Data)
        {
            throw TransportError(.unreachable, "no HTTP in this test")
        }
    }

    /// A client connected through `transport`'s first socket, whose server has answered its sign-in.
    func connectedClient(_ transport: ScriptedTransport, _ time: ManualTime) async throws -> (
        ParleyClient, ScriptedSocket
    ) {
        var configuration = ClientConfiguration(serverURL: "http://test")
        configuration.connection.jitter = 0
        let client = try ParleyClient(
            configuration: configuration, store: ClientStore(path: nil), http: Unreachable(), realtime: transport,
            time: time.source)
        await client.connect()
        try await eventually { transport.sockets.first?.sent.contains { $0.contains("\"auth\"") } == true }
        let socket = transport.sockets[0]
        socket.serverSends(#"{"type":"ready","id":"auth","payload":{}}"#)
        return (client, socket)
    }

    /// The ids of the sync requests the client sent so far.
    func syncRequests(_ socket: ScriptedSocket) -> [String] {
        socket.sent.compactMap { IncomingFrame(text: $0) }.filter { $0.type == ClientFrameType.sync.rawValue }
            .compactMap(\.id)
    }

    func refuse(_ id: String, on socket: ScriptedSocket) {
        socket.serverSends(
            #"{"type":"error","id":"\#(id)","payload":{"code":"unavailable","message":"Try again later."}}"#)
    }

    @Test func aFailedCatchUpRunsAgainAfterWaitsThatDouble() async throws {
        let (transport, time) = (ScriptedTransport(), ManualTime())
        let (client, socket) = try await connectedClient(transport, time)
        var refused = 0
        // The catch-up after connecting, then its retries: due 1, 2 and 4 ticks after each failure.
        for (ticks, expected) in [(0, 1), (1, 2), (1, 2), (1, 3), (3, 3), (1, 4)] {
            for _ in 0..<ticks {
                // The next tick, once the last one is over and the maintenance sleeps again.
                try await eventually { time.deadlines.contains(time.now + .seconds(1)) }
                await time.advance(by: .seconds(1))
            }
            try await eventually("sync request \(expected) after \(time.now)") {
                syncRequests(socket).count >= expected
            }
            #expect(syncRequests(socket).count == expected, "at \(time.now)")
            while refused < syncRequests(socket).count {
                refuse(syncRequests(socket)[refused], on: socket)
                refused += 1
            }
            try await eventually("catch-up \(refused) failed") { await client.catchUpFailures == refused }
        }
        #expect(transport.sockets.count == 1, "all on the socket that stayed up")
        await client.disconnect()
    }

    @Test func aCatchUpCalledWhileOneRunsWaitsForItThenRunsItsOwn() async throws {
        let (transport, time) = (ScriptedTransport(), ManualTime())
        let (client, socket) = try await connectedClient(transport, time)
        try await eventually { syncRequests(socket).count == 1 }
        let second = Task { await client.catchUp() }
        for _ in 0..<50 { await Task.yield() }
        #expect(syncRequests(socket).count == 1, "the second waits for the first")
        refuse(syncRequests(socket)[0], on: socket)
        try await eventually("the second's own sync") { syncRequests(socket).count == 2 }
        socket.serverSends(
            #"{"type":"result","id":"\#(syncRequests(socket)[1])","payload":{"conversations":[],"events":[],"cursor":"c1","hasMore":false}}"#
        )
        await second.value
        #expect(try client.store.value(ClientStore.cursorKey) == "c1")
        await client.disconnect()
    }
}
