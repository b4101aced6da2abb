import Foundation
import ParleyCore
import ParleyKit

/// The "chat keyboard" (SPEC 4): the text being typed with its mentions and emoji, the
/// attachments chosen, and whether a voice note is being recorded. It only collects input;
/// ``submit(to:)`` hands finished messages to the ``ChatContext`` and clears itself.
public struct ComposerState: Hashable, Sendable {
    /// An attachment waiting to be sent; its file is already uploaded (or known by hash).
    public struct Attachment: Hashable, Sendable {
        public var kind: MessageKind
        public var content: JSONValue
        public init(kind: MessageKind, content: JSONValue) {
            self.kind = kind
            self.content = content
        }
    }

    public enum Recording: Hashable, Sendable {
        case idle
        case recording(startedAt: Int64)
    }

    public private(set) var text = ""
    /// Users mentioned in `text`, in order of mention.
    public private(set) var mentions: [UserID] = []
    /// Whether `@all` was mentioned (a group's owner and admins only).
    public private(set) var mentionsAll = false
    /// The message the text replies to, if any: it is sent as a reply quoting it.
    public private(set) var replyingTo: ChatItem?
    public private(set) var attachments: [Attachment] = []
    public private(set) var recording = Recording.idle

    public init() {}

    /// Replaces the typed text.
    public mutating func setText(_ newText: String) {
        text = newText
    }

    /// What an edit tells the other members, from the state before it: `true` when there is
    /// text and it changed (pass it to ``ParleyKit/Typing/userIsTyping(in:)``, which sends at
    /// most one start per few seconds), `false` when the text became empty (send
    /// ``ParleyKit/Typing/userStoppedTyping(in:)``), nil when there is nothing to tell.
    public func typingSignal(after previous: ComposerState) -> Bool? {
        guard text != previous.text else { return nil }
        if text.isEmpty { return previous.text.isEmpty ? nil : false }
        return true
    }

    /// Appends `@name ` for a user and remembers who it is.
    public mutating func mention(_ userId: UserID, named name: String) {
        if !text.isEmpty && !text.hasSuffix(" ") { text += " " }
        text += "@\(name) "
        if !mentions.contains(userId) { mentions.append(userId) }
    }

    /// Appends `@all ` and mentions everyone.
    public mutating func mentionAll() {
        if !text.isEmpty && !text.hasSuffix(" ") { text += " " }
        text += "@all "
        mentionsAll = true
    }

    /// Makes the text a reply to a committed message (the menu's "Reply").
    public mutating func reply(to item: ChatItem) { replyingTo = item }

    /// Makes the text a plain message again.
    public mutating func cancelReply() { replyingTo = nil }

    public mutating func insertEmoji(_ emoji: String) { text += emoji }

    public mutating func attach(_ attachment: Attachment) { attachments.append(attachment) }

    public mutating func removeAttachment(at index: Int) {
        guard attachments.indices.contains(index) else { return }
        attachments.remove(at: index)
    }

    public mutating func startRecording(at now: Int64) { recording = .recording(startedAt: now) }

    /// Stops recording and returns the duration in ms (zero if not recording).
    public mutating func stopRecording(at now: Int64) -> Int {
        guard case .recording(let start) = recording else { return 0 }
        recording = .idle
        return Int(max(0, now - start))
    }

    /// Whether there is anything to send.
    public var canSubmit: Bool {
        !text.allSatisfy(\.isWhitespace) || !attachments.isEmpty
    }

    /// The messages the input makes: the text (with mentions still present in it; a reply
    /// when ``replyingTo`` is set), then each attachment. Throws `message_invalid` for text
    /// over the length limit.
    public func messages() throws -> [(kind: MessageKind, content: JSONValue)] {
        var result: [(MessageKind, JSONValue)] = []
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if !trimmed.isEmpty {
            guard TextRules.length(trimmed) <= Limits.maxTextLength else {
                throw ParleyError(.messageInvalid, "A message may have at most \(Limits.maxTextLength) characters.")
            }
            let mentioned = Mentions(mentions, all: mentionsAll)
            if let target = replyingTo?.messageId {
                result.append((.reply, OutgoingContent.reply(trimmed, to: target, mentions: mentioned)))
            } else {
                result.append((.text, OutgoingContent.text(trimmed, mentions: mentioned)))
            }
        }
        result += attachments.map { ($0.kind, $0.content) }
        return result
    }

    /// Sends the input through `context` and clears the composer; returns the clientMsgIds.
    public mutating func submit(to context: ChatContext) async throws -> [String] {
        var sent: [String] = []
        for (kind, content) in try messages() {
            sent.append(try await context.send(kind, content: content).clientMsgId)
        }
        self = ComposerState()
        return sent
    }
}
