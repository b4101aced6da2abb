// swift-tools-version:6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "parley",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "ParleyCore", targets: ["ParleyCore"]),
        .library(name: "ParleyStore", targets: ["ParleyStore"]),
        .library(name: "ParleyStoreSQLite", targets: ["ParleyStoreSQLite"]),
        .library(name: "ParleyFiles", targets: ["ParleyFiles"]),
        .library(name: "ParleyServer", targets: ["ParleyServer"]),
        .library(name: "ParleyKit", targets: ["ParleyKit"]),
        .library(name: "ParleyKitTransport", targets: ["ParleyKitTransport"]),
        .library(name: "ParleyUI", targets: ["ParleyUI"]),
        .executable(name: "parley", targets: ["parley"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.15.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.3.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
    ],
    targets: [
        // Wire protocol and domain rules shared by the server and every client. No I/O.
        .target(name: "ParleyCore", swiftSettings: swiftSettings),
        // The storage contract the server is written against, with no backend in it.
        .target(name: "ParleyStore", dependencies: ["ParleyCore"], swiftSettings: swiftSettings),
        // The embedded default backend: SQLite in WAL mode through GRDB.
        .target(
            name: "ParleyStoreSQLite",
            dependencies: [
                "ParleyStore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        // The scale-out backend: PostgreSQL through postgres-nio, with LISTEN/NOTIFY fan-out
        // between server nodes.
        .target(
            name: "ParleyStorePostgres",
            dependencies: [
                "ParleyStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // File contents by key: on local disk, or in any S3-compatible object store.
        .target(
            name: "ParleyFiles",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The Hummingbird application: HTTP API, WebSocket gateway, fan-out.
        .target(
            name: "ParleyServer",
            dependencies: [
                "ParleyCore",
                "ParleyStore",
                "ParleyStoreSQLite",
                "ParleyStorePostgres",
                "ParleyFiles",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            resources: [.copy("Resources/openapi.yaml"), .copy("Resources/web")],
            swiftSettings: swiftSettings
        ),
        // The client SDK engine: connection, local store, sync, outbox, conversation contexts.
        // Depends on no transport, so apps can plug in URLSession ones.
        .target(
            name: "ParleyKit",
            dependencies: [
                "ParleyCore", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // Default transports for ParleyKit over SwiftNIO (Linux, macOS, iOS).
        .target(
            name: "ParleyKitTransport",
            dependencies: [
                "ParleyKit",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        // UI-independent view state on top of ParleyKit: message list presenter with diffs,
        // long-press menu, themes, composer, URL router, two-level cache.
        .target(
            name: "ParleyUI",
            dependencies: ["ParleyKit", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        // Test support shared by the test targets: manual time, a scripted transport, an
        // in-process server that can restart, and a chaos TCP proxy.
        .target(
            name: "ParleyTesting",
            dependencies: [
                "ParleyKit",
                "ParleyServer",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            swiftSettings: swiftSettings
        ),
        // `parley bench`: load scenarios against a running server, with HdrHistogram percentiles.
        .target(
            name: "ParleyBench",
            dependencies: [
                "ParleyCore", "ParleyKit", "ParleyKitTransport",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "parley",
            dependencies: [
                "ParleyServer",
                "ParleyStoreSQLite",
                "ParleyKit",
                "ParleyKitTransport",
                "ParleyUI",
                "ParleyBench",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "ParleyCoreTests", dependencies: ["ParleyCore"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ParleyStoreTests",
            dependencies: [
                "ParleyStore", "ParleyStoreSQLite", "ParleyStorePostgres", "ParleyTesting",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ParleyFilesTests",
            dependencies: [
                "ParleyFiles", "ParleyTesting",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ParleyKitTests",
            dependencies: [
                "ParleyKit", "ParleyKitTransport", "ParleyTesting", "ParleyCore", "ParleyUI", "ParleyServer",
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ParleyBenchTests",
            dependencies: ["ParleyBench", "ParleyTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ParleyUITests",
            dependencies: ["ParleyUI", "ParleyKit", "ParleyTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ParleyCLITests",
            dependencies: [
                "parley", "ParleyTesting", "ParleyKit", "ParleyKitTransport", "ParleyServer",
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ParleyServerTests",
            dependencies: [
                "ParleyServer",
                "ParleyFiles",
                "ParleyStoreSQLite",
                "ParleyStorePostgres",
                "ParleyTesting",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
