import Foundation
import ParleyCore
import ParleyKit
import ParleyTesting
import Synchronization
import Testing

/// The manager over a scripted transport and manual time: no network, no real clock.
@Suite struct ConnectionManagerTests {
    final class Calls: Sendable {
        let connected = Atomic<Int>(0)
    }

    func makeManager(_ transport: ScriptedTransport, _ time: ManualTime, calls: Calls = Calls()) async
        -> ConnectionManager
    {
        var configuration = ConnectionStateMachine.Configuration()
        configuration.jitter = 0
        let manager = ConnectionManager(
            url: "ws://test/v1/ws", transport: transport, configuration: configuration, time: time.source,
            random: { 0.5 },
            token: { "pat_token" })
        await manager.setHandlers(onPush: { _ in }, onConnected: { calls.connected.add(1, ordering: .relaxed) })
        return manager
    }

    /// Opens and authenticates the newest socket.
    func accept(_ transport: ScriptedTransport, socket index: Int) async throws -> ScriptedSocket {
        try await eventually {
            transport.sockets.count > index && transport.sockets[index].sent.contains { $0.contains("\"auth\"") }
        }
        let socket = transport.sockets[index]
        socket.serverSends(#"{"type":"ready","id":"auth","payload":{}}"#)
        return socket
    }

    @Test func authenticatesWithTheTokenThenPingsOnSchedule() async throws {
        let transport = ScriptedTransport()
        let time = ManualTime()
        let calls = Calls()
        let manager = await makeManager(transport, time, calls: calls)
        await manager.start()
        let socket = try await accept(transport, socket: 0)
        #expect(socket.sent.first?.contains(#""token":"pat_token""#) == true)
        try await eventually { await manager.status == .connected && time.sleeperCount == 1 }
        try await eventually { calls.connected.load(ordering: .relaxed) == 1 }

        await time.advance(by: .seconds(20))
        try await eventually { socket.sent.contains { $0.contains("\"ping\"") } && time.sleeperCount == 1 }
        socket.serverSends(#"{"type":"pong","id":"hb"}"#)
        try await eventually("the pong swaps the pong timeout (due at 30 s) for the next ping (due at 40 s)") {
            let state = await manager.state
            return time.deadlines == [.seconds(40)] && state == .connected
        }
        await time.advance(by: .seconds(10))
        #expect(!socket.isClosed, "the pong arrived in time")
        await time.advance(by: .seconds(10))
        try await eventually { socket.sent.filter { $0.contains("\"ping\"") }.count == 2 }
    }

    @Test func aMissingPongClosesTheSocketAndReconnects() async throws {
        let transport = ScriptedTransport()
        let time = ManualTime()
        let calls = Calls()
        let manager = await makeManager(transport, time, calls: calls)
        await manager.start()
        let first = try await accept(transport, socket: 0)
        try await eventually { await manager.status == .connected && time.sleeperCount == 1 }
        await time.advance(by: .seconds(20))
        try await eventually { first.sent.contains { $0.contains("\"ping\"") } && time.sleeperCount == 1 }
        await time.advance(by: .seconds(10))
        try await eventually { first.isClosed }
        _ = try await accept(transport, socket: 1)
        try await eventually { await manager.status == .connected }
        try await eventually("resync runs after every reconnection") { calls.connected.load(ordering: .relaxed) == 2 }
    }

    @Test func failedAttemptsFollowTheBackoffAndReportUnreachable() async throws {
        let transport = ScriptedTransport()
        let time = ManualTime()
        let manager = await makeManager(transport, time)
        transport.failNextOpens(6)
        await manager.start()
        try await eventually { transport.attempts == 2 }
        let waits: [Duration] = [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8)]
        for (index, wait) in waits.enumerated() {
            try await eventually {
                await manager.state == .waitingToReconnect(attempt: index + 3, delay: wait, after: .networkError)
                    && time.sleeperCount == 1
            }
            await time.advance(by: wait - .milliseconds(1))
            #expect(transport.attempts == index + 2, "not before the backoff has passed")
            await time.advance(by: .milliseconds(1))
            try await eventually { transport.attempts == index + 3 }
        }
        try await eventually { await manager.status == .unreachable || transport.sockets.count == 1 }
        _ = try await accept(transport, socket: 0)
        try await eventually { await manager.status == .connected }
    }

    @Test func noReconnectAfterStop() async throws {
        let transport = ScriptedTransport()
        let time = ManualTime()
        let manager = await makeManager(transport, time)
        await manager.start()
        let socket = try await accept(transport, socket: 0)
        try await eventually { await manager.status == .connected }
        await manager.stop()
        try await eventually { socket.isClosed }
        await time.advance(by: .seconds(300))
        try await Task.sleep(for: .milliseconds(30))
        #expect(transport.attempts == 1)
        #expect(await manager.status == .offline(reason: .user))
    }

    /// A started manager whose first socket has sent its `auth` frame, answered with `answer`.
    func managerAnsweredAtAuth(_ answer: String) async throws -> (ScriptedTransport, ManualTime, ConnectionManager) {
        let transport = ScriptedTransport()
        let time = ManualTime()
        let manager = await makeManager(transport, time)
        await manager.start()
        try await eventually { transport.sockets.first?.sent.isEmpty == false }
        transport.sockets[0].serverSends(answer)
        return (transport, time, manager)
    }

    @Test func rejectedAuthenticationStopsWithoutRetrying() async throws {
        let (transport, time, manager) = try await managerAnsweredAtAuth(
            #"{"type":"error","id":"auth","payload":{"code":"invalid_token","message":"no"}}"#)
        try await eventually { await manager.status == .offline(reason: .authRejected) }
        await time.advance(by: .seconds(300))
        #expect(transport.attempts == 1)
    }

    @Test func aServerThatCannotCheckTokensNowIsRetriedWithBackoff() async throws {
        let (transport, _, manager) = try await managerAnsweredAtAuth(
            #"{"type":"error","id":"auth","payload":{"code":"unavailable","message":"later"}}"#)
        transport.sockets[0].serverCloses(code: CloseCode.tryAgainLater.rawValue)
        try await eventually("a reconnect, not a stop") {
            if case .offline = await manager.status { return false }
            return transport.attempts == 2
        }
    }

    @Test func networkBackSkipsTheRestOfTheBackoff() async throws {
        let transport = ScriptedTransport()
        let time = ManualTime()
        let manager = await makeManager(transport, time)
        transport.failNextOpens(3)
        await manager.start()
        try await eventually("the reconnect timer is armed") {
            let state = await manager.state
            return state == .waitingToReconnect(attempt: 3, delay: .milliseconds(500), after: .networkError)
                && time.sleeperCount == 1
        }
        await time.advance(by: .milliseconds(500))
        try await eventually {
            await manager.state == .waitingToReconnect(attempt: 4, delay: .seconds(1), after: .networkError)
        }
        await manager.networkAvailable()
        #expect(time.now == .milliseconds(500))
        try await eventually("retried without waiting the 1 s backoff") { transport.attempts == 4 }
    }

    @Test func requestsArePairedWithTheirAnswers() async throws {
        let transport = ScriptedTransport()
        let time = ManualTime()
        let manager = await makeManager(transport, time)
        await manager.start()
        let socket = try await accept(transport, socket: 0)
        try await eventually { await manager.status == .connected }
        async let answer: SyncResponse = manager.call(.sync, SyncRequest())
        try await eventually { socket.sent.contains { $0.contains("\"sync\"") } }
        let request = socket.sent.first { $0.contains("\"sync\"") }!
        let id = try JSONDecoder().decode(Frame<SyncRequest>.self, from: Data(request.utf8)).id!
        socket.serverSends(
            #"{"type":"result","id":"\#(id)","payload":{"conversations":[],"events":[],"cursor":"c1.0.0","hasMore":false}}"#
        )
        #expect(try await answer.cursor == "c1.0.0")
        try await eventually("an answered request leaves no timeout timer behind, only the heartbeat") {
            time.sleeperCount == 1
        }

        let failed = Task { () -> SyncResponse in try await manager.call(.sync, SyncRequest()) }
        try await eventually { socket.sent.filter { $0.contains("\"sync\"") }.count == 2 }
        socket.serverCloses(code: nil)
        await #expect(throws: TransportError.self) { _ = try await failed.value }
    }
}

