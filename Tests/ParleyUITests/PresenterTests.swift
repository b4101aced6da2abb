import ParleyCore
import ParleyKit
import ParleyTesting
import ParleyUI
import Testing

func item(
    _ seq: Int64, from sender: Int64, at minute: Int64, kind: MessageKind = .text, delivery: ChatItem.Delivery? = nil
) -> ChatItem {
    ChatItem(
        id: "\(sender)/c\(seq)", senderId: UserID(sender), clientMsgId: "c\(seq)", seq: seq, kind: kind,
        content: kind == .text ? ["text": .string("m\(seq)")] : ["x": 1], time: minute * 60_000, delivery: delivery)
}

@Suite struct PresenterTests {
    @Test func separatorsGroupingPlaceholdersAndCustomRows() {
        let presenter = MessageListPresenter(customItems: [(id: "banner", payload: "Messages are kept forever")])
        let rows = presenter.rows(for: [
            item(1, from: 1, at: 0), item(2, from: 1, at: 1), item(3, from: 2, at: 2),
            item(4, from: 2, at: 20), item(5, from: 2, at: 21, kind: "hologram"),
        ])
        #expect(
            rows.map(\.id) == [
                "custom/banner", "time/1/c1", "message/1/c1", "message/1/c2", "message/2/c3", "time/2/c4",
                "message/2/c4",
                "message/2/c5",
            ])
        guard case .message(_, let first) = rows[2], case .message(_, let second) = rows[3],
            case .message(_, let third) = rows[4], case .message(_, let afterGap) = rows[6]
        else {
            Issue.record("unexpected rows")
            return
        }
        #expect(first && !second && third && afterGap)
        if case .unsupported(let unsupported) = rows[7] {
            #expect(unsupported.kind == "hologram")
        } else {
            Issue.record("no placeholder")
        }
    }

    /// A system message is a notice row, described with names; it ends a sender's run.
    @Test func systemMessagesAreNoticeRowsThatEndARun() throws {
        let notice = SystemNotice(.memberRemoved, by: UserID(1), about: [UserID(3)])
        let content = try JSONText.decode(JSONValue.self, from: JSONText.encode(notice))
        var removal = item(2, from: 1, at: 1, kind: .system)
        removal.content = content
        let rows = MessageListPresenter().rows(for: [item(1, from: 1, at: 0), removal, item(3, from: 1, at: 2)])
        #expect(rows.map(\.id) == ["time/1/c1", "message/1/c1", "message/1/c2", "message/1/c3"])
        guard case .notice(_, let shown) = rows[2], case .message(_, let showsSender) = rows[3] else {
            Issue.record("unexpected rows \(rows)")
            return
        }
        #expect(shown == notice)
        #expect(showsSender, "the message after a notice shows its sender again")
        let names = [UserID(1): "alice", UserID(3): "cyd"]
        #expect(NoticeText.describe(shown) { names[$0] ?? "?" } == "alice removed cyd")
        let joined = SystemNotice(.memberJoined, by: UserID(3), about: [UserID(3)])
        #expect(NoticeText.describe(joined) { names[$0] ?? "?" } == "cyd joined")
        let forever = SystemNotice(.memberMuted, by: UserID(1), about: [UserID(3)], until: Limits.mutedUntilLifted)
        #expect(NoticeText.describe(forever) { names[$0] ?? "?" } == "alice muted cyd until further notice")
        let newer = SystemNotice("poll.closed", by: UserID(1))
        #expect(NoticeText.describe(newer) { names[$0] ?? "?" } == "alice: poll.closed")
    }

    /// A recalled message is a notice row, with a way to edit its text again when the viewer
    /// recalled their own and this device kept it; it ends a sender's run.
    @Test func recalledMessagesAreNoticeRowsThatOfferReEditingOwnText() {
        var mine = item(2, from: 1, at: 1, kind: .recalled, delivery: .sent)
        mine.content = ["recalledBy": 1]
        mine.recalledText = "typo here"
        var theirs = item(3, from: 2, at: 1, kind: .recalled)
        theirs.content = ["recalledBy": 9]
        let rows = MessageListPresenter().rows(for: [item(1, from: 1, at: 0), mine, theirs, item(4, from: 1, at: 2)])
        guard case .recalled(let own, true) = rows[2], case .recalled(let other, false) = rows[3],
            case .message(_, let showsSender) = rows[4]
        else {
            Issue.record("unexpected rows \(rows)")
            return
        }
        #expect(showsSender)
        let names = [UserID(9): "alice"]
        #expect(MessageText.recalled(own, viewer: UserID(1)) { names[$0] ?? "?" } == "You recalled a message")
        #expect(MessageText.recalled(other, viewer: UserID(1)) { names[$0] ?? "?" } == "alice recalled a message")
        #expect(MessageText.recalled(item(5, from: 1, at: 0), viewer: UserID(1)) { _ in "?" } == nil)
    }

    @Test func repliesShowTheirQuoteAndCopiesAndEditsTheirMarks() {
        let names = [UserID(2): "bob"]
        var reply = item(3, from: 1, at: 0, kind: .reply)
        reply.quote = MessageQuote(id: MessageID(7), seq: 1, senderId: UserID(2), kind: .text, text: "lunch at noon?")
        #expect(MessageText.quote(reply) { names[$0] ?? "?" } == "bob: lunch at noon?")
        reply.quote?.kind = .recalled
        reply.quote?.text = nil
        #expect(MessageText.quote(reply) { names[$0] ?? "?" } == "bob: recalled message")
        reply.quote?.kind = .image
        #expect(MessageText.quote(reply) { names[$0] ?? "?" } == "bob: [image]")
        #expect(MessageText.quote(item(4, from: 1, at: 0)) { _ in "?" } == nil)

        var copy = item(5, from: 1, at: 0)
        #expect(MessageText.marks(copy).isEmpty)
        copy.isForwarded = true
        copy.editedAt = 9
        #expect(MessageText.marks(copy) == ["Forwarded", "edited"])
        let rows = MessageListPresenter().rows(for: [copy])
        guard case .message(let shown, _) = rows[1] else {
            Issue.record("unexpected rows \(rows)")
            return
        }
        #expect(shown.isForwarded && shown.editedAt == 9)
    }

    @Test func emittedChangesAlwaysTurnTheOldRowsIntoTheNewOnes() {
        var random = SeededGenerator(seed: 7)
        var presenter = MessageListPresenter(customItems: [(id: "top", payload: "")])
        var items: [ChatItem] = []
        var shown: [DisplayItem] = []
        var nextSeq: Int64 = 0
        var clock: Int64 = 0
        for step in 0..<2000 {
            switch Int.random(in: 0..<5, using: &random) {
            case 0, 1:
                nextSeq += 1
                clock += Int64.random(in: 0...8, using: &random)
                items.append(item(nextSeq, from: Int64.random(in: 1...3, using: &random), at: clock))
            case 2 where !items.isEmpty:
                items.remove(at: Int.random(in: items.indices, using: &random))
            case 3 where !items.isEmpty:
                let index = Int.random(in: items.indices, using: &random)
                items[index].delivery = [.sending, .sent, .read, .failed(reason: "x", retryable: true)].randomElement(
                    using: &random)
            case 4 where items.count > 2:
                let moved = items.remove(at: Int.random(in: items.indices, using: &random))
                items.insert(moved, at: Int.random(in: 0...items.count, using: &random))
            default:
                break
            }
            let changes = presenter.update(with: items)
            shown = ListDiff.apply(changes, to: shown)
            #expect(shown == presenter.rows, "step \(step)")
            #expect(shown == presenter.rows(for: items))
        }
    }
}

final class ReorderingDelegate: MessageMenuDelegate, @unchecked Sendable {
    var selected: [String] = []
    func menu(shouldOffer action: MenuAction, for item: ChatItem) -> Bool { action != .reply }
    func menu(willShow actions: [MenuAction], for item: ChatItem) -> [MenuAction] {
        [MenuAction(id: "forward", title: "Forward")] + actions.reversed()
    }
    func menu(didSelect action: MenuAction, for item: ChatItem) { selected.append(action.id) }
}

@Suite struct MenuThemeComposerTests {
    @Test func delegateRemovesAddsAndReordersActions() {
        let failed = item(3, from: 1, at: 0, delivery: .failed(reason: "timeout", retryable: true))
        #expect(
            MessageMenu.builtInActions(for: failed).map(\.id) == ["copy", "resend", "delete"], "not sent: no reply")
        let delegate = ReorderingDelegate()
        let menu = MessageMenu(delegate: delegate)
        #expect(menu.actions(for: failed).map(\.id) == ["forward", "delete", "resend", "copy"])
        #expect(
            MessageMenu().actions(for: item(4, from: 2, at: 0, kind: "hologram")).map(\.id)
                == ["reply", "forward", "delete"])
    }

    @Test func themeBuilderAndDayNightSet() {
        let custom = Theme.builder().accent("#FF6600").fontSize(100).bubbleCornerRadius(-3).build()
        #expect(custom.accent == "#FF6600")
        #expect(custom.fontSize == 48, "clamped to a readable range")
        #expect(custom.bubbleCornerRadius == 0)
        #expect(custom.background == Theme.day.background, "unchanged fields keep the base")
        let dark = Theme.builder().base(.night).ownBubble("#123456").build()
        let themes = ThemeSet(day: custom, night: dark)
        #expect(themes.theme(for: .night).ownBubble == "#123456")
        #expect(themes.theme(for: .night).background == Theme.night.background)
        #expect(themes.theme(for: .day) == custom)
    }

    @Test func composerSaysWhenTheUserTypesAndStops() {
        let empty = ComposerState()
        var typed = empty
        typed.setText("h")
        var more = typed
        more.setText("hi")
        var cleared = more
        cleared.setText("")
        #expect(typed.typingSignal(after: empty) == true)
        #expect(more.typingSignal(after: typed) == true)
        #expect(more.typingSignal(after: more) == nil, "no edit, nothing to tell")
        #expect(cleared.typingSignal(after: more) == false)
        #expect(empty.typingSignal(after: cleared) == nil, "empty stays empty")
    }

    @Test func typingLineNamesWhoTypes() {
        #expect(TypingLine.text(for: []) == nil)
        #expect(TypingLine.text(for: ["alice"]) == "alice is typing…")
        #expect(TypingLine.text(for: ["alice", "bob"]) == "alice and bob are typing…")
        #expect(TypingLine.text(for: ["alice", "bob", "cyd"]) == "alice, bob and cyd are typing…")
        #expect(TypingLine.text(for: ["a", "b", "c", "d", "e"]) == "a, b and 3 others are typing…")
    }

    @Test func composerCollectsTextMentionsAndAttachments() throws {
        var composer = ComposerState()
        #expect(!composer.canSubmit)
        composer.setText("Lunch?")
        composer.mention(UserID(2), named: "bob")
        composer.insertEmoji("🍜")
        composer.attach(.init(kind: .image, content: ["fileId": "f1", "width": 10, "height": 20]))
        composer.startRecording(at: 1_000)
        #expect(composer.stopRecording(at: 4_500) == 3_500)
        let messages = try composer.messages()
        #expect(messages.count == 2)
        #expect(messages[0].kind == .text)
        #expect(messages[0].content == ["text": "Lunch? @bob 🍜", "mentions": [2]])
        #expect(messages[1].kind == .image)
        composer.setText(String(repeating: "x", count: Limits.maxTextLength + 1))
        #expect(throws: ParleyError.self) { try composer.messages() }
    }

    @Test func composerSendsEveryoneMentionsAndRepliesThatQuote() throws {
        var composer = ComposerState()
        composer.setText("Standup")
        composer.mentionAll()
        composer.mention(UserID(3), named: "cyd")
        #expect(
            try composer.messages().map(\.content) == [
                ["text": "Standup @all @cyd", "mentions": [3], "mentionAll": true]
            ])
        var target = item(4, from: 2, at: 0)
        target.messageId = MessageID(40)
        composer.reply(to: target)
        let reply = try composer.messages()
        #expect(reply.map(\.kind) == [.reply])
        #expect(reply[0].content == ["text": "Standup @all @cyd", "replyTo": 40, "mentions": [3], "mentionAll": true])
        composer.cancelReply()
        #expect(try composer.messages().map(\.kind) == [.text])
    }
}
