/// The line a chat shows while others type, from their names in the order they started:
/// "alice is typing…", "alice and bob are typing…", "alice, bob and 2 others are typing…";
/// nil when nobody is.
public enum TypingLine {
    public static func text(for names: [String]) -> String? {
        switch names.count {
        case 0: return nil
        case 1: return "\(names[0]) is typing…"
        case 2: return "\(names[0]) and \(names[1]) are typing…"
        case 3: return "\(names[0]), \(names[1]) and \(names[2]) are typing…"
        default: return "\(names[0]), \(names[1]) and \(names.count - 2) others are typing…"
        }
    }
}
