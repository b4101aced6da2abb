import Foundation
import ParleyCore
import Testing

/// `/metrics` shows operators the figures the benchmark tool reports.
@Suite struct MetricsTests {
    @Test func metricsCountConnectionsCommitsAndDeliveries() async throws {
        try await withServer { api in
            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            let conversation = try await api.createGroup("metrics", by: alice, with: [bob])
            let socket = try await LiveSocket.connect(api.webSocketURL, token: bob.token)
            _ = try await api.sendText("one", to: conversation, as: alice, clientMsgId: "m1")
            _ = try await api.sendText("one", to: conversation, as: alice, clientMsgId: "m1")
            _ = try await socket.waitFor { $0.type == "message" }
            let (status, text, _) = try await api.raw(.get, "/metrics")
            #expect(status == 200)
            #expect(text.contains("parley_messages_committed_total 1"), "the retry is not counted twice")
            #expect(text.contains("parley_deliveries_total 1"))
            #expect(text.contains("parley_connections 1"))
            #expect(text.contains("parley_commit_seconds_count 1"))
            #expect(text.contains("parley_queue_overflows_total 0"))
            await socket.close()
        }
    }
}
