import ParleyCore
import ParleyKit

/// Turns a ``ChatContext``'s items into display rows (SPEC 4): time separators when more
/// than `separatorGap` passed between messages, consecutive messages of one sender grouped
/// (within `groupingGap`), system messages and recalled ones as notice rows (which end a
/// run), app rows at the top, placeholders for unsupported kinds; and
/// emits the steps from the previous rows to the new ones.
///
/// Data flows one way: the presenter reads the context's updates and never changes it;
/// actions chosen in the menu go to the context as commands.
public struct MessageListPresenter: Sendable {
    public var separatorGap: Int64 = 5 * 60_000
    public var groupingGap: Int64 = 2 * 60_000
    /// Rows the app shows above the messages, in order.
    public var customItems: [(id: String, payload: String)] = []
    public private(set) var rows: [DisplayItem] = []

    public init(customItems: [(id: String, payload: String)] = []) {
        self.customItems = customItems
    }

    /// The rows for `items`.
    public func rows(for items: [ChatItem]) -> [DisplayItem] {
        var rows = customItems.map { DisplayItem.custom(id: $0.id, payload: $0.payload) }
        var previous: ChatItem?
        /// The sender of the run the next message may continue (none after a notice).
        var runSender: UserID?
        for item in items {
            let gap = previous.map { item.time - $0.time } ?? .max
            if previous == nil || gap > separatorGap {
                rows.append(.timeSeparator(at: item.time, before: item.id))
            }
            switch item.typedContent {
            case .unsupported:
                rows.append(.unsupported(item))
                runSender = item.senderId
            case .system(let notice):
                rows.append(.notice(item, notice))
                runSender = nil
            case .recalled:
                rows.append(.recalled(item, canReEdit: item.recalledText != nil))
                runSender = nil
            default:
                let continues = runSender == item.senderId && gap <= groupingGap
                rows.append(.message(item, showsSender: !continues))
                runSender = item.senderId
            }
            previous = item
        }
        return rows
    }

    /// Moves to the rows for `items` and returns the steps from the previous rows.
    public mutating func update(with items: [ChatItem]) -> [ListChange<DisplayItem>] {
        let next = rows(for: items)
        let changes = ListDiff.changes(from: rows, to: next)
        rows = next
        return changes
    }

    /// Feeds a context's updates through the presenter: the first element is the full row
    /// list (as inserts into an empty list), then the steps of each change.
    public static func present(_ updates: AsyncStream<ChatUpdate>, customItems: [(id: String, payload: String)] = [])
        -> AsyncStream<[ListChange<DisplayItem>]>
    {
        AsyncStream { continuation in
            let task = Task {
                var presenter = MessageListPresenter(customItems: customItems)
                for await update in updates {
                    switch update {
                    case .snapshot(let items), .changes(_, let items):
                        continuation.yield(presenter.update(with: items))
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
