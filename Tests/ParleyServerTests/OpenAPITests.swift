import Foundation
import ParleyCore
import ParleyFiles
import ParleyStoreSQLite
import ParleyTesting
import Testing

@testable import ParleyServer

/// The OpenAPI document describes exactly the routes the server registers.
@Suite struct OpenAPITests {
    /// `(METHOD, path)` pairs under `paths:` in the YAML.
    static func documentedOperations(_ yaml: String) -> Set<String> {
        var operations = Set<String>()
        var path: String?
        var inPaths = false
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("paths:") {
                inPaths = true
                continue
            }
            if inPaths, let first = line.first, first != " " { break }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                path = String(line.dropFirst(2).dropLast())
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "),
                let method = ["get", "post", "put", "patch", "delete"].first(where: { line == "    \($0):" })
            {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        return operations
    }

    @Test func everyRegisteredRouteIsDocumentedAndNothingElse() async throws {
        try await withServer { api in
            let served = try await api.raw(.get, "/openapi.yaml")
            #expect(served.status == 200)
            #expect(served.body == OpenAPIDocument.text)
            let documented = Self.documentedOperations(served.body)
            let registered = Set(Endpoint.allCases.map { "\($0.method) \($0.path)" })
            #expect(documented == registered)
        }
    }

    @Test func theServerRegistersEveryEndpoint() async throws {
        let store = try SQLiteStore(directory: temporaryDirectory())
        let parts = ServerParts(
            storage: Storage(
                store: store, fanOut: store.fanOut, blobs: try DiskBlobStore(directory: temporaryDirectory()),
                workDirectory: temporaryDirectory(), services: []),
            configuration: ServerConfiguration(),
            clock: .system, logger: .init(label: "t"),
            codeSenders: CodeSenders(email: LogCodeSender(), phone: LogCodeSender()))
        let registry = parts.addRoutes(to: .init(context: ParleyRequestContext.self))
        #expect(registry.endpoints == Set(Endpoint.allCases))
        let connectionFrames: Set<ClientFrameType> = [.auth, .ping]
        #expect(
            parts.frameHandlers.types
                == Set(ClientFrameType.allCases.filter { !connectionFrames.contains($0) }.map(\.rawValue)),
            "every request frame but the connection's own has exactly one feature handler")
        try store.close()
    }
}
