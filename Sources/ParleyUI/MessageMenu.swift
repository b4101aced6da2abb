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

    /// The built-in actions that make sense for an item, before the delegate's say.
    public static func builtInActions(for item: ChatItem) -> [MenuAction] {
        var actions: [MenuAction] = []
        if case .text = item.typedContent { actions.append(.copy) }
        if item.seq != nil { actions.append(.reply) }
        if case .failed(_, true) = item.delivery { actions.append(.resend) }
        actions.append(.delete)
        return actions
    }

    /// The actions to show, after the delegate filtered and rearranged them.
    public func actions(for item: ChatItem) -> [MenuAction] {
        let offered = Self.builtInActions(for: item).filter { delegate?.menu(shouldOffer: $0, for: item) ?? true }
        return delegate?.menu(willShow: offered, for: item) ?? offered
    }

    /// Performs a chosen action: built-in ones on the context, then tells the delegate.
    public func select(_ action: MenuAction, for item: ChatItem, in context: ChatContext) async throws {
        switch action {
        case .resend: try await context.resend(item.clientMsgId)
        case .delete: try await context.deleteLocally(item)
        default: break
        }
        delegate?.menu(didSelect: action, for: item)
    }
}
