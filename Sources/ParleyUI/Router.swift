import Foundation

/// Opens screens by URL (SPEC 4): modules register a target and optional action
/// (`parley://chat/<id>`, `parley://user/<id>/edit`), and the same entry point serves links
/// from inside the app and from outside it. Unknown links reach the not-found handler.
public final class Router: @unchecked Sendable {
    /// What a handler receives: the path parameters after target/action, and the query.
    public struct Request: Hashable, Sendable {
        public var target: String
        public var action: String?
        public var parameters: [String]
        public var query: [String: String]
    }

    public typealias Handler = @Sendable (Request) -> Void

    private let lock = NSLock()
    private let scheme: String
    private var handlers: [String: Handler] = [:]
    private var notFound: Handler

    public init(scheme: String = "parley", notFound: @escaping Handler = { _ in }) {
        self.scheme = scheme
        self.notFound = notFound
    }

    /// Registers `handler` for `scheme://target/...` or, with an action, `scheme://target/<param>/action`.
    public func register(target: String, action: String? = nil, handler: @escaping Handler) {
        lock.withLock { handlers[Self.key(target, action)] = handler }
    }

    public func setNotFound(_ handler: @escaping Handler) {
        lock.withLock { notFound = handler }
    }

    /// Opens a link; false when it went to the not-found handler.
    @discardableResult
    public func open(_ link: String) -> Bool {
        guard let components = URLComponents(string: link), components.scheme == scheme, let target = components.host,
            !target.isEmpty
        else {
            lock.withLock { notFound }(Request(target: "", action: nil, parameters: [], query: [:]))
            return false
        }
        let segments = components.path.split(separator: "/").map(String.init)
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        // `target/<params…>/action` when an action handler matches the last segment, else `target/<params…>`.
        let (byAction, byTarget, fallback) = lock.withLock {
            (
                segments.count >= 2 ? handlers[Self.key(target, segments.last)] : nil, handlers[Self.key(target, nil)],
                notFound
            )
        }
        if let byAction {
            byAction(
                Request(target: target, action: segments.last, parameters: Array(segments.dropLast()), query: query))
            return true
        }
        let request = Request(target: target, action: nil, parameters: segments, query: query)
        guard let byTarget else {
            fallback(request)
            return false
        }
        byTarget(request)
        return true
    }

    private static func key(_ target: String, _ action: String?) -> String { "\(target)#\(action ?? "")" }
}
