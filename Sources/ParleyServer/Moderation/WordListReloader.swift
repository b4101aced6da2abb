import Dispatch
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Reloads the sensitive-word list when the process gets SIGHUP (`kill -HUP`), for as long
/// as the server runs. Registered when the server is built, so a SIGHUP that arrives while
/// it starts is not the default action (which ends the process).
///
/// One dispatch source serves every server of the process and is never cancelled:
/// libdispatch on Linux stops delivering a signal to all of its sources once one of them
/// is cancelled (seen with several in-process servers in the tests).
final class WordListReloader: Service, Sendable {
    private let filter: WordFilter
    private let logger: Logger

    init(filter: WordFilter, logger: Logger) {
        self.filter = filter
        self.logger = logger
        Self.listening.withLock { state in
            state.reloaders[ObjectIdentifier(self)] = self
            if state.source == nil { state.source = Self.startListening() }
        }
    }

    func run() async throws {
        try? await gracefulShutdown()
        _ = Self.listening.withLock { $0.reloaders.removeValue(forKey: ObjectIdentifier(self)) }
    }

    private func reload() {
        do {
            let count = try filter.reload()
            logger.notice("Reloaded the sensitive-word list", metadata: ["words": "\(count)"])
        } catch {
            logger.error("Kept the sensitive-word list in use", metadata: ["error": "\(error)"])
        }
    }

    private struct Listening: ~Copyable {
        var reloaders: [ObjectIdentifier: WordListReloader] = [:]
        var source: (any DispatchSourceSignal)?
    }

    private static let listening = Mutex(Listening())

    private static func startListening() -> any DispatchSourceSignal {
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler {
            for reloader in listening.withLock({ Array($0.reloaders.values) }) { reloader.reload() }
        }
        source.resume()
        return source
    }
}
