import ParleyCore
import ParleyKit

/// An action offered when a message is long-pressed.
public struct MenuAction: Hashable, Sendable {
    public var id: String
    public var title: String

    public init(id: String, title: String) {
        self.id = id
        self.title = title
    }

    public static let copy = MenuAction(id: "copy", title: "Copy")
    public static let reply = MenuAction(id: "reply", title: "Reply")
    public static let forward = MenuAction(id: "forward", title: "Forward")
    public static let edit = MenuAction(id: "edit", title: "Edit")
    public static let recall = MenuAction(id: "recall", title: "Recall")
    public static let resend = MenuAction(id: "resend", title: "Resend")
    public static let delete = MenuAction(id: "delete", title: "Delete for me")
}

/// Lets an app shape the long-press menu: drop actions, add its own, reorder, and hear
/// what was chosen. Every hook has a default, so an app implements only what it needs.
public protocol MessageMenuDelegate: AnyObject, Sendable {
    /// Whether a built-in action is offered for this item.
    func menu(shouldOffer action: MenuAction, for item: ChatItem) -> Bool
    /// The final list, in order: remove, add or reorder here.
    func menu(willShow actions: [MenuAction], for item: ChatItem) -> [MenuAction]
    /// Called after an action was chosen (and a built-in one performed).
    func menu(didSelect action: MenuAction, for item: ChatItem)
}

extension MessageMenuDelegate {
    public func menu(shouldOffer action: MenuAction, for item: ChatItem) -> Bool { true }
    public func menu(willShow actions: [MenuAction], for item: ChatItem) -> [MenuAction] { actions }
    public func menu(didSelect action: MenuAction, for item: ChatItem) {}
}

/// Builds the menu for an item and performs the built-in actions on its ``ChatContext``.
public struct MessageMenu: Sendable {
    public weak var delegate: (any MessageMenuDelegate)?

    public init(delegate: (any MessageMenuDelegate)? = nil) {
        self.delegate = delegate
    }

    /// The built-in actions that make sense for an item, before the delegate's say: copy (a
    /// text), reply and forward (a committed message that is not recalled, deleted or a
    /// notice), edit and recall (when `permissions` allow them), resend (a failed one), delete.
    public static func builtInActions(for item: ChatItem, permissions: MessagePermissions? = nil) -> [MenuAction] {
        var actions: [MenuAction] = []
        if item.typedContent.text != nil { actions.append(.copy) }
        if isActionable(item) { actions += [.reply, .forward] }
        if permissions?.mayEdit(item) == true { actions.append(.edit) }
        if permissions?.mayRecall(item) == true { actions.append(.recall) }
        if case .failed(_, true) = item.delivery { actions.append(.resend) }
        actions.append(.delete)
        return actions
    }

    /// Whether an item is a committed message others may act on: not on its way or failed,
    /// not recalled, not a deleted placeholder, not a system notice.
    public static func isActionable(_ item: ChatItem) -> Bool {
        item.isCommitted && !MessageKind.serverOnly.contains(item.kind)
    }

    /// The actions to show, after the delegate filtered and rearranged them.
    public func actions(for item: ChatItem, permissions: MessagePermissions? = nil) -> [MenuAction] {
        let offered = Self.builtInActions(for: item, permissions: permissions).filter {
            delegate?.menu(shouldOffer: $0, for: item) ?? true
        }
        return delegate?.menu(willShow: offered, for: item) ?? offered
    }

    /// Performs a chosen action: built-in ones that need no more input (recall, resend,
    /// delete) on the context, then tells the delegate (which asks for what the others need:
    /// the reply's text, the new text, where to forward).
    public func select(_ action: MenuAction, for item: ChatItem, in context: ChatContext) async throws {
        switch action {
        case .recall: try await context.recall(item)
        case .resend: try await context.resend(item.clientMsgId)
        case .delete: try await context.delete([item])
        default: break
        }
        delegate?.menu(didSelect: action, for: item)
    }
}
