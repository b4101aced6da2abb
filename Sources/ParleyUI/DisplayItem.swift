import ParleyCore
import ParleyKit

/// One row of a message list.
public enum DisplayItem: Identifiable, Hashable, Sendable {
    /// A divider showing the time (ms since 1970) of the message below it, whose id it carries.
    case timeSeparator(at: Int64, before: String)
    /// A message; `showsSender` is false when it continues a run by the same sender.
    case message(ChatItem, showsSender: Bool)
    /// A message of a kind this version cannot show.
    case unsupported(ChatItem)
    /// A system message: a centred line such as "alice removed bob" (see ``NoticeText``).
    case notice(ChatItem, SystemNotice)
    /// A recalled message: a centred line such as "alice recalled a message"
    /// (``MessageText/recalled(_:viewer:name:)``); `canReEdit` when its text is kept on this
    /// device to edit and send again (the viewer's own).
    case recalled(ChatItem, canReEdit: Bool)
    /// A row the app supplies (a banner, an "encryption on" notice, …), shown at the top.
    case custom(id: String, payload: String)

    public var id: String {
        switch self {
        case .timeSeparator(_, let before): "time/\(before)"
        case .message(let item, _), .unsupported(let item), .notice(let item, _), .recalled(let item, _):
            "message/\(item.id)"
        case .custom(let id, _): "custom/\(id)"
        }
    }
}
