import ParleyCore

/// Search (`client.search`), with the same rules everywhere (``SearchText``, ``NameSearch``).
/// Messages: ``local(_:)`` over what this device holds (at once, offline too), ``server(_:)``
/// over everything the user may read, and ``combined(_:)``, which shows the first and then
/// the second. Names: ``contacts(_:)`` over the contact book held here, ``groups(_:)`` by the
/// server, which knows every member of every group.
public struct Search: Sendable {
    let store: ClientStore
    let session: Session

    /// Where a page of ``combined(_:)`` comes from.
    public enum Source: Sendable, Hashable {
        case device, server
    }

    /// The messages this device holds that match, one page.
    public func local(_ query: MessageSearchQuery) throws -> MessageSearchPage {
        try store.searchMessages(query)
    }

    /// The server's page: everything the user may read, also what this device never held.
    public func server(_ query: MessageSearchQuery) async throws -> MessageSearchPage {
        try await session.http(
            .searchMessages, query: Self.queryString(query.parameters))
    }

    /// This device's page at once, then the server's, which replaces it (the server holds
    /// everything the device does, and more). When the server cannot be asked (offline),
    /// the stream ends with that error after the device's page, which stays valid.
    public func combined(_ query: MessageSearchQuery) -> AsyncThrowingStream<(Source, MessageSearchPage), any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    continuation.yield((.device, try local(query)))
                    continuation.yield((.server, try await server(query)))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The friends whose remark, nickname or username matches, best first, from the contact
    /// book this device holds (offline too; the server's `GET /v1/search/contacts` answers the same).
    public func contacts(_ query: NameSearchQuery) async throws -> [ContactSearchHit] {
        NameSearch.contacts(try await Contacts(store: store, session: session).book().friends, matching: query)
    }

    /// The user's groups whose name, or a member's nickname or username, matches, best first.
    public func groups(_ query: NameSearchQuery) async throws -> [GroupSearchHit] {
        let result: GroupSearchResult = try await session.http(
            .searchGroups, query: Self.queryString(query.parameters))
        return result.groups
    }

    /// A query's parameters as ``Session``'s HTTP call takes them.
    private static func queryString(_ parameters: [(name: String, value: String)]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: parameters.map { ($0.name, $0.value) })
    }
}
