/// Colours and sizes of a message list, as plain values a UI maps to its own types.
public struct Theme: Hashable, Sendable {
    /// Colours as `#RRGGBB`.
    public var background: String
    public var ownBubble: String
    public var otherBubble: String
    public var text: String
    public var secondaryText: String
    public var accent: String
    public var fontSize: Double
    public var bubbleCornerRadius: Double

    /// Starts a builder from the default day theme.
    public static func builder() -> Builder { Builder(theme: .day) }

    public static let day = Theme(
        background: "#FFFFFF", ownBubble: "#95EC69", otherBubble: "#F2F2F2", text: "#111111", secondaryText: "#888888",
        accent: "#07C160", fontSize: 16, bubbleCornerRadius: 8)

    public static let night = Theme(
        background: "#111111", ownBubble: "#3EB575", otherBubble: "#2C2C2C", text: "#EDEDED", secondaryText: "#8A8A8A",
        accent: "#07C160", fontSize: 16, bubbleCornerRadius: 8)

    /// Builds a theme step by step: `Theme.builder().accent("#FF6600").fontSize(18).build()`.
    public struct Builder: Sendable {
        var theme: Theme

        public func background(_ value: String) -> Builder { with(\.background, value) }
        public func ownBubble(_ value: String) -> Builder { with(\.ownBubble, value) }
        public func otherBubble(_ value: String) -> Builder { with(\.otherBubble, value) }
        public func text(_ value: String) -> Builder { with(\.text, value) }
        public func secondaryText(_ value: String) -> Builder { with(\.secondaryText, value) }
        public func accent(_ value: String) -> Builder { with(\.accent, value) }
        public func fontSize(_ value: Double) -> Builder { with(\.fontSize, max(8, min(value, 48))) }
        public func bubbleCornerRadius(_ value: Double) -> Builder { with(\.bubbleCornerRadius, max(0, value)) }
        /// Starts again from another theme (e.g. `.night`).
        public func base(_ value: Theme) -> Builder { Builder(theme: value) }

        public func build() -> Theme { theme }

        private func with<Value>(_ path: WritableKeyPath<Theme, Value>, _ value: Value) -> Builder {
            var copy = self
            copy.theme[keyPath: path] = value
            return copy
        }
    }
}

/// A day and a night theme; the UI picks by the system's appearance.
public struct ThemeSet: Hashable, Sendable {
    public enum Appearance: Sendable { case day, night }

    public var day: Theme
    public var night: Theme

    public init(day: Theme = .day, night: Theme = .night) {
        self.day = day
        self.night = night
    }

    public func theme(for appearance: Appearance) -> Theme { appearance == .day ? day : night }
}
