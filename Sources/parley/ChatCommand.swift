import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit
import ParleyUI

struct Chat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Chat interactively: history, live messages, and every line you type is sent.",
        discussion: """
            Messages show their number: [12:04 #5]. Besides text, type:
              /reply N text      reply to message N, quoting it
              /edit N text       change the text of your message N
              /recall N          recall message N for everyone
              /forward N target  forward message N to a conversation (id, group name or @username)
              /delete N          delete message N for yourself, on all your devices
              /resend            retry failed messages
              /quit              leave
            Your messages show ✓ delivered and ✓✓ read (in a group: read by N).
            """)
    @OptionGroup var options: ClientOptions
    @Argument(help: "A username, a group name or a conversation id.") var conversation: String

    func run() async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            let summary = try await resolveConversation(conversation, client: client)
            let name = await title(summary, client: client)
            printNow(
                "— \(name) — type and press Enter to send; /reply, /edit, /recall, /forward or /delete N acts on message #N; /resend retries failed messages; /quit leaves."
            )
            let context = await client.conversations.chat(summary.id)
            try await context.load(pageSize: 20)
            if summary.kind == .group { try? await context.loadReceipts() }
            let screen = ChatScreen(client: client, context: context, isGroup: summary.kind == .group)
            let printer = Task { await screen.follow() }
            let status = Task {
                for await status in await client.statusUpdates() { printNow("  (\(describe(status)))") }
            }
            let typing = Task { await screen.followTyping(in: summary.id) }
            let presence = Task { if let peer = summary.peerId { await screen.followPresence(of: peer) } }
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
                    if text.hasPrefix("/"), let command = ChatLineCommand(text) {
                        try await command.perform(in: context, client: client)
                    } else {
                        try await context.send(
                            text: text, mentions: await mentions(in: text, conversation: summary.id, client: client))
                    }
                } catch let error as ParleyError {
                    printNow("  ✗ \(error.message)")
                } catch let error as CLIError {
                    printNow("  ✗ \(error.description)")
                } catch let error as TransportError {
                    printNow("  ✗ Cannot reach the server (\(error.kind)).")
                }
            }
            // What the screen showed counts as read even when the user leaves at once, before
            // the printer's own mark went out.
            try? await context.markRead()
            await client.disconnect()
            printer.cancel()
            status.cancel()
            typing.cancel()
            presence.cancel()
        }
    }

    private func describe(_ status: ConnectionStatus) -> String {
        switch status {
        case .connected: "connected"
        case .connecting: "connecting…"
        case .reconnecting(let attempt): "reconnecting, attempt \(attempt)…"
        case .unreachable: "cannot reach the server; still trying"
        case .offline(let reason?): describe(reason)
        case .offline(nil): "offline"
        }
    }

    private func describe(_ reason: ConnectionStateMachine.CloseReason) -> String {
        switch reason {
        case .user: "offline"
        case .timeout: "offline: the server took too long to answer"
        case .serverClosed(let code?): "offline: the server closed the connection (code \(code))"
        case .serverClosed(nil): "offline: the server closed the connection"
        case .noPong: "offline: the server stopped answering"
        case .networkError: "offline: the connection broke"
        case .authRejected: "signed out: the server no longer accepts this login; run `parley login`"
        case .sessionRevoked: "signed out: this device's session was ended; run `parley login`"
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
    /// In a group, "read by N" says more than "read" (which means anyone has).
    let isGroup: Bool
    private var shown: [String: ChatItem] = [:]
    private var newestShownSeq: Int64 = 0
    private var names: [UserID: String] = [:]

    init(client: ParleyClient, context: ChatContext, isGroup: Bool) {
        self.client = client
        self.context = context
        self.isGroup = isGroup
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
                    await printChanges(from: before, to: item)
                } else if item.kind == .system || item.isRecalled {
                    printNow(
                        "\(earlierMark(seq: item.seq, newestShown: newestShownSeq))[\(stamp(item))] \(await describe(item))"
                    )
                    if let seq = item.seq { readUpTo = max(readUpTo ?? 0, seq) }
                } else {
                    let sender = await name(item.senderId)
                    let state = item.delivery.map { "  [\(label($0))]" } ?? ""
                    printNow(
                        "\(earlierMark(seq: item.seq, newestShown: newestShownSeq))[\(stamp(item))] \(sender): \(await describe(item))\(state)"
                    )
                    if item.delivery == nil, let seq = item.seq { readUpTo = max(readUpTo ?? 0, seq) }
                }
                if let seq = item.seq { newestShownSeq = max(newestShownSeq, seq) }
                shown[item.id] = item
            }
            // Committed messages that left the list were deleted or cleared (a pending one
            // leaves it for a moment when it is committed, and comes back).
            let gone = Set(shown.keys).subtracting(items.map(\.id)).filter { shown[$0]?.seq != nil }
            let removed = gone.compactMap { shown[$0]?.seq }.sorted()
            for id in gone { shown[id] = nil }
            if removed.count == 1 { printNow("  (#\(removed[0]) deleted)") }
            if removed.count > 1 { printNow("  (\(removed.count) messages removed)") }
            if readUpTo != nil { try? await context.markRead() }
        }
    }

    /// A line for each way a shown message changed: its receipt, a recall, an edit, its quote.
    private func printChanges(from before: ChatItem, to item: ChatItem) async {
        let number = item.seq.map { "#\($0) " } ?? ""
        if before.delivery != item.delivery, let delivery = item.delivery, !(isGroup && delivery.isReceipt) {
            printNow("  \(symbol(delivery)) \(number)\(quote(item)) \(label(delivery))")
        }
        if before.readBy != item.readBy, let readers = item.readBy, readers > 0 {
            printNow("  ✓✓ \(number)\(quote(item)) read by \(readers)")
        }
        if !before.isRecalled && item.isRecalled {
            printNow("  ↺ \(number)\(await describe(item))")
            if let text = item.recalledText { printNow("    (your text, to edit and send again: \(text))") }
        } else if before.editedAt != item.editedAt {
            printNow("  ✎ \(number)\(await describe(item))")
        } else if before.quote != item.quote {
            printNow("  ↪ \(number)\(await describe(item))")
        }
    }

    /// The time and number of a message: `12:04 #5`.
    private func stamp(_ item: ChatItem) -> String {
        clock(item.time) + (item.seq.map { " #\($0)" } ?? "")
    }

    /// A message's content with its quote, forwarded and edited marks, or its recall notice.
    private func describe(_ item: ChatItem) async -> String {
        let me = await client.session.currentUser?.id ?? UserID(0)
        var names: [UserID: String] = [:]
        for id in [item.recalledBy, item.quote?.senderId].compactMap({ $0 }) { names[id] = await name(id) }
        if let recalled = MessageText.recalled(item, viewer: me, name: { names[$0] ?? "user \($0)" }) {
            return "* " + recalled
        }
        var text = await render(item.typedContent, client: client)
        if let quote = MessageText.quote(item, name: { names[$0] ?? "user \($0)" }) { text = "↪ \(quote) — \(text)" }
        if item.isForwarded { text = "[forwarded] " + text }
        if item.editedAt != nil { text += " (edited)" }
        return text
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

    /// Prints the other person's presence in a direct chat, then each change (pushed for
    /// friends only): online, or when they were last seen (nothing while it is hidden).
    func followPresence(of peer: UserID) async {
        let updates = await client.presence.updates()
        let first = try? await client.presence.fetch([peer]).first
        var shown: String?
        for await presence in AsyncStream.prefixed(first, updates) where presence.userId == peer {
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            guard let line = PresenceLine.text(for: presence, now: now), line != shown else { continue }
            shown = line
            printNow("  (\(await name(peer)) is \(line == "online" ? line : "offline, " + line))")
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
        case .uploading(let progress): "uploading \(Int(progress.fraction * 100))%"
        case .sending: "sending"
        case .sent: "sent"
        case .delivered: "delivered"
        case .read: "read"
        case .failed(let reason, let retryable): "failed: \(reason)\(retryable ? " (/resend)" : "")"
        }
    }

    private func symbol(_ delivery: ChatItem.Delivery) -> String {
        switch delivery {
        case .uploading, .sending: "…"
        case .sent, .delivered: "✓"
        case .read: "✓✓"
        case .failed: "✗"
        }
    }
}

extension ChatItem.Delivery {
    /// Whether it says what others did with the message (delivered, read).
    var isReceipt: Bool {
        switch self {
        case .delivered, .read: true
        default: false
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

extension AsyncStream where Element: Sendable {
    /// `first` (when there is one), then what `rest` yields.
    static func prefixed(_ first: Element?, _ rest: AsyncStream<Element>) -> AsyncStream<Element> {
        AsyncStream { continuation in
            if let first { continuation.yield(first) }
            let task = Task {
                for await element in rest { continuation.yield(element) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
