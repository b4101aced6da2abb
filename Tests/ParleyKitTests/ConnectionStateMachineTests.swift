import ParleyKit
import Testing

@Suite struct ConnectionStateMachineTests {
    var configuration: ConnectionStateMachine.Configuration {
        var configuration = ConnectionStateMachine.Configuration()
        configuration.jitter = 0
        return configuration
    }

    func connected() -> ConnectionStateMachine {
        var machine = ConnectionStateMachine(configuration: configuration)
        _ = machine.start()
        _ = machine.socketOpened()
        _ = machine.authenticated(now: .zero)
        return machine
    }

    @Test func startOpensAuthenticatesThenResyncsAndStartsTheHeartbeat() {
        var machine = ConnectionStateMachine(configuration: configuration)
        #expect(machine.start() == [.openSocket, .scheduleConnectTimeout(.seconds(10))])
        #expect(machine.state == .connecting(attempt: 1))
        #expect(machine.socketOpened() == [.sendAuth])
        #expect(machine.state == .authenticating(attempt: 1))
        #expect(machine.authenticated(now: .zero) == [.cancelTimers, .resync, .scheduleHeartbeat(.seconds(20))])
        #expect(machine.state == .connected)
        #expect(ConnectionStatus(machine) == .connected)
    }

    @Test func heartbeatPingsAndAPongPostponesTheNextPing() {
        var machine = connected()
        #expect(
            machine.heartbeatTick(now: .seconds(20), jitterSample: 0.5) == [
                .sendPing, .scheduleHeartbeat(.seconds(10)),
            ])
        #expect(machine.pongReceived(now: .milliseconds(20_500)) == [.scheduleHeartbeat(.milliseconds(19_500))])
        #expect(
            machine.heartbeatTick(now: .seconds(40), jitterSample: 0.5) == [
                .sendPing, .scheduleHeartbeat(.seconds(10)),
            ])
        #expect(machine.state == .connected)
    }

    @Test func missingPongClosesTheSocketAndReconnectsAtOnce() {
        var machine = connected()
        _ = machine.heartbeatTick(now: .seconds(20), jitterSample: 0.5)
        #expect(
            machine.heartbeatTick(now: .seconds(25), jitterSample: 0.5) == [.scheduleHeartbeat(.seconds(5))],
            "still waiting")
        #expect(
            machine.heartbeatTick(now: .seconds(30), jitterSample: 0.5) == [
                .closeSocket, .cancelTimers, .scheduleReconnect(.zero),
            ])
        #expect(machine.state == .waitingToReconnect(attempt: 2, delay: .zero, after: .noPong))
        #expect(machine.reconnectTimerFired() == [.openSocket, .scheduleConnectTimeout(.seconds(10))])
    }

    @Test func backoffIsImmediateThenDoublesUpToTheCap() {
        let machine = ConnectionStateMachine(configuration: configuration)
        let delays = (1...10).map { machine.backoff(afterFailures: $0, jitterSample: 0.5) }
        #expect(
            delays == [
                .zero, .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16),
                .seconds(30), .seconds(30), .seconds(30),
            ])
    }

    @Test func jitterSpreadsDelaysWithinItsFraction() {
        var jittery = ConnectionStateMachine.Configuration()
        jittery.jitter = 0.5
        let machine = ConnectionStateMachine(configuration: jittery)
        #expect(machine.backoff(afterFailures: 4, jitterSample: 0) == .milliseconds(1500))
        #expect(machine.backoff(afterFailures: 4, jitterSample: 0.999_999) == .seconds(2) * 1.249_999_5)
        #expect(machine.backoff(afterFailures: 1, jitterSample: 0.9) == .zero, "the first retry is always immediate")
    }

    @Test func failedAttemptsBackOffAndPastTheThresholdTheServerIsUnreachable() {
        var machine = ConnectionStateMachine(configuration: configuration)
        _ = machine.start()
        var statuses: [ConnectionStatus] = []
        var delays: [Duration] = []
        for _ in 0..<6 {
            let actions = machine.socketClosed(.networkError, jitterSample: 0.5)
            if case .scheduleReconnect(let delay)? = actions.last { delays.append(delay) }
            statuses.append(ConnectionStatus(machine))
            _ = machine.reconnectTimerFired()
        }
        #expect(delays == [.zero, .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8)])
        #expect(
            statuses == [
                .reconnecting(attempt: 2), .reconnecting(attempt: 3), .reconnecting(attempt: 4),
                .reconnecting(attempt: 5),
                .unreachable, .unreachable,
            ])
        _ = machine.socketOpened()
        _ = machine.authenticated(now: .zero)
        #expect(ConnectionStatus(machine) == .connected)
        #expect(machine.consecutiveFailures == 0)
    }

    @Test func noReconnectAfterLogout() {
        var machine = connected()
        #expect(machine.stop() == [.cancelTimers, .closeSocket])
        #expect(machine.state == .disconnected(.user))
        #expect(machine.socketClosed(.serverClosed(code: 1000), jitterSample: 0.5) == [])
        #expect(machine.reconnectTimerFired() == [])
        #expect(machine.heartbeatTick(now: .seconds(100), jitterSample: 0.5) == [])
        #expect(machine.networkAvailable() == [])
        #expect(ConnectionStatus(machine) == .offline(reason: .user))
    }

    @Test(arguments: [ConnectionStateMachine.CloseReason.authRejected, .sessionRevoked])
    func rejectedCredentialsStopRetrying(_ reason: ConnectionStateMachine.CloseReason) {
        var machine = connected()
        #expect(machine.socketClosed(reason, jitterSample: 0.5) == [.cancelTimers])
        #expect(machine.state == .disconnected(reason))
        #expect(machine.reconnectTimerFired() == [])
    }

    @Test func networkComingBackSkipsTheBackoff() {
        var machine = ConnectionStateMachine(configuration: configuration)
        _ = machine.start()
        _ = machine.socketClosed(.networkError, jitterSample: 0.5)
        _ = machine.reconnectTimerFired()
        _ = machine.socketClosed(.networkError, jitterSample: 0.5)
        #expect(machine.state == .waitingToReconnect(attempt: 3, delay: .milliseconds(500), after: .networkError))
        #expect(machine.networkAvailable() == [.cancelTimers, .openSocket, .scheduleConnectTimeout(.seconds(10))])
        #expect(machine.state == .connecting(attempt: 3))
    }

    @Test func slowConnectTimesOut() {
        var machine = ConnectionStateMachine(configuration: configuration)
        _ = machine.start()
        _ = machine.socketOpened()
        #expect(machine.connectTimedOut(jitterSample: 0.5) == [.closeSocket, .cancelTimers, .scheduleReconnect(.zero)])
        #expect(machine.state == .waitingToReconnect(attempt: 2, delay: .zero, after: .timeout))
    }
}
