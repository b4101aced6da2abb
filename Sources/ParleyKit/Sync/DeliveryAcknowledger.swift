import ParleyCore

/// Tells the server up to which seq this device holds the messages of a conversation (the
/// `delivered` frame, over HTTP when the socket is down), so that their sender sees them
/// delivered. Coalesced: whatever arrives while an acknowledgement is on its way makes at most
/// one more per conversation, and a seq not beyond the last one acknowledged sends nothing.
/// One the network lost is sent again by the next ``flush()`` (the engine asks after every
/// sync).
actor DeliveryAcknowledger {
    private let requests: ServerRequests
    /// The highest seq to acknowledge per conversation, not sent yet.
    private var due: [ConversationID: Int64] = [:]
    /// The delivered watermark the server answered, per conversation.
    private var acknowledged: [ConversationID: Int64] = [:]
    private var flushing: Task<Void, Never>?

    init(requests: ServerRequests) { self.requests = requests }

    /// Messages of a conversation up to `seq` are stored on this device.
    func received(_ conversationId: ConversationID, upTo seq: Int64) {
        guard seq > max(acknowledged[conversationId] ?? 0, due[conversationId] ?? 0) else { return }
        due[conversationId] = seq
        flush()
    }

    /// Sends what is due, unless a flush is running (it sends everything due before it ends).
    func flush() {
        guard flushing == nil, !due.isEmpty else { return }
        flushing = Task { await self.sendDue() }
    }

    private func sendDue() async {
        defer { flushing = nil }
        while let (id, seq) = due.first {
            due[id] = nil
            do {
                let receipt: ReadReceipt = try await requests(
                    .delivered, ReadRequest(conversationId: id, seq: seq), http: .markDelivered, id)
                acknowledged[id] = max(acknowledged[id] ?? 0, seq, receipt.seq)
            } catch is ParleyError {
                // Refused (the user left the conversation, …): asking again changes nothing.
            } catch {
                // Unreachable: left due for the next flush, unless something newer is due already.
                due[id] = max(due[id] ?? 0, seq)
                return
            }
        }
    }
}
