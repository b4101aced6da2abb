import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit
import ParleyUI

struct Chat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Chat interactively: history, live messages, and every line you type is sent.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "A username, a group name or a conversation id.") var conversation: String

    func run() async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            let summary = try await resolveConversation(conversation, client: client)
            let name = await title(summary, client: client)
            printNow("— \(name) — type and press Enter to send; /resend retries failed messages; /quit leaves.")
            let context = await client.conversations.chat(summary.id)
            try await context.load(pageSize: 20)
            let screen = ChatScreen(client: client, context: context)
            let printer = Task { await screen.follow() }
            let status = Task {
                for await status in await client.statusUpdates() { printNow("  (\(describe(status)))") }
            }
            let typing = Task { await screen.followTyping(in: summary.id) }
            await client.connect()
            for await line in standardInputLines() {
                let text = line.trimmingCharacters(in: .whitespaces)
                if text == "/quit" { break }
                if text == "/resend" {
                    for item in try client.store.outbox() where item.conversationId == summary.id {
                        if case .failed = item.state { try await context.resend(item.clientMsgId) }
                    }
                    continue
                }
                if text.isEmpty { continue }
                do {
                    try await context.send(text: text)
                } catch let error as ParleyError {
                    printNow("  ✗ \(error.message)")
                }
            }
            await client.disconnect()
            printer.cancel()
            status.cancel()
            typing.cancel()
        }
    }

    private func describe(_ status: ConnectionStatus) -> String {
        switch status {
        case .connected: "connected"
        case .connecting: "connecting…"
        case .reconnecting(let attempt): "reconnecting, attempt \(attempt)…"
        case .unreachable: "cannot reach the server; still trying"
        case .offline(let reason?): "offline: \(reason)"
        case .offline(nil): "offline"
        }
    }
}

/// Prints a conversation as it changes: each new message once, then a line whenever one of
/// the user's own messages changes state. A terminal only appends, so a message that arrives
/// after a later one (a hole filled after a reconnect) is printed marked as earlier, with its
/// number.
private actor ChatScreen {
    let client: ParleyClient
    let context: ChatContext
    private var shown: [String: ChatItem] = [:]
    private var newestShownSeq: Int64 = 0
    private var names: [UserID: String] = [:]

    init(client: ParleyClient, context: ChatContext) {
        self.client = client
        self.context = context
    }

    func follow() async {
        for await update in await context.updates() {
            let items: [ChatItem]
            switch update {
            case .snapshot(let all), .changes(_, let all): items = all
            }
            var readUpTo: Int64?
            for item in items {
                if let before = shown[item.id] {
                    if before.delivery != item.delivery, let delivery = item.delivery {
                        printNow("  \(symbol(delivery)) \(quote(item)) \(label(delivery))")
                    }
                } else if case .system = item.typedContent {
                    printNow(
                        "\(earlierMark(seq: item.seq, newestShown: newestShownSeq))[\(clock(item.time))] \(await render(item.typedContent, client: client))"
                    )
                    if let seq = item.seq { readUpTo = max(readUpTo ?? 0, seq) }
                } else {
                    let sender = await name(item.senderId)
                    let state = item.delivery.map { "  [\(label($0))]" } ?? ""
                    printNow(
                        "\(earlierMark(seq: item.seq, newestShown: newestShownSeq))[\(clock(item.time))] \(sender): \(render(item.typedContent))\(state)"
                    )
                    if item.delivery == nil, let seq = item.seq { readUpTo = max(readUpTo ?? 0, seq) }
                }
                if let seq = item.seq { newestShownSeq = max(newestShownSeq, seq) }
                shown[item.id] = item
            }
            if readUpTo != nil { try? await context.markRead() }
        }
    }

    /// Prints who is typing each time that changes to someone (a terminal cannot take a line
    /// back, so nobody typing any more prints nothing).
    func followTyping(in conversationId: ConversationID) async {
        for await typists in await client.typing.typists(in: conversationId) {
            var names: [String] = []
            for id in typists { names.append(await name(id)) }
            if let line = TypingLine.text(for: names) { printNow("  \(line)") }
        }
    }

    private func name(_ id: UserID) async -> String {
        if let known = names[id] { return known }
        let name = await username(id, client: client)
        names[id] = name
        return name
    }

    private func quote(_ item: ChatItem) -> String {
        let text = render(item.typedContent)
        return "\"\(text.count > 30 ? String(text.prefix(29)) + "…" : text)\""
    }

    private func label(_ delivery: ChatItem.Delivery) -> String {
        switch delivery {
        case .sending: "sending"
        case .sent: "sent"
        case .read: "read"
        case .failed(let reason, let retryable): "failed: \(reason)\(retryable ? " (/resend)" : "")"
        }
    }

    private func symbol(_ delivery: ChatItem.Delivery) -> String {
        switch delivery {
        case .sending: "…"
        case .sent: "✓"
        case .read: "✓✓"
        case .failed: "✗"
        }
    }
}

/// Lines typed on standard input, read on a thread of their own.
func standardInputLines() -> AsyncStream<String> {
    AsyncStream { continuation in
        let thread = Thread {
            while let line = readLine(strippingNewline: true) { continuation.yield(line) }
            continuation.finish()
        }
        thread.start()
    }
}

/// The mark of a message printed after a later one (a terminal only appends):
/// `↑ earlier, #N: `, else nothing.
func earlierMark(seq: Int64?, newestShown: Int64) -> String {
    guard let seq, seq < newestShown else { return "" }
    return "↑ earlier, #\(seq): "
}

/// Writes a line to standard output at once, unbuffered, so that a live chat reaches a pipe
/// or a file (`parley chat bob | tee chat.log`) as it happens, not when a buffer fills. A
/// reader that went away (`| head -3`) is ignored, as `print` would.
func printNow(_ line: String) {
    try? FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8))
}
