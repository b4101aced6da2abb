import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A fresh empty directory for one test, named `name-<uuid>`, in this run's temporary root.
public func temporaryDirectory(_ name: String = "parley") -> String {
    let path = temporaryPath(name)
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// A fresh path (nothing there yet) for one test's file or directory, named `name-<uuid>`, in
/// this run's temporary root.
public func temporaryPath(_ name: String) -> String {
    TestRunRoot.path + "/\(name)-\(UUID().uuidString)"
}

/// Where one test process keeps its temporary files: a fresh `parley-run-<pid>-<uuid>` in
/// the system's temporary directory, removed when the process exits (a run left thousands of
/// stores and homes behind otherwise). The process holds a lock on the root's `.lock` for its
/// life; a root whose lock nobody holds belongs to a run that did not exit normally, and the
/// next run removes it. A lock, unlike a pid, also tells processes in other pid namespaces
/// (containers sharing /tmp) apart.
private enum TestRunRoot {
    static let prefix = "parley-run-"
    static let lockName = ".lock"

    static let path: String = {
        let base = FileManager.default.temporaryDirectory.path
        removeAbandonedRoots(in: base)
        let root = base + "/" + prefix + "\(getpid())-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        let lock = open(root + "/" + lockName, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        if lock >= 0 { _ = flock(lock, LOCK_EX) }  // held until the process ends
        atexit { try? FileManager.default.removeItem(atPath: TestRunRoot.path) }
        return root
    }()

    /// Removes the roots whose lock can be taken: their process is gone. A root without a
    /// lock file yet may be one another run is making; it is left unless an hour old.
    private static func removeAbandonedRoots(in base: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [] where name.hasPrefix(prefix) {
            let root = base + "/" + name
            let lock = open(root + "/" + lockName, O_RDWR | O_CLOEXEC)
            if lock < 0 {
                let made = (try? FileManager.default.attributesOfItem(atPath: root)[.modificationDate]) as? Date
                if let made, made < Date(timeIntervalSinceNow: -3600) { try? FileManager.default.removeItem(atPath: root) }
                continue
            }
            defer { close(lock) }
            if flock(lock, LOCK_EX | LOCK_NB) == 0 { try? FileManager.default.removeItem(atPath: root) }
        }
    }
}
