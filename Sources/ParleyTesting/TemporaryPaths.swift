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

/// Where one test process keeps its temporary files: `parley-run-<pid>` in the system's
/// temporary directory, removed when the process exits. A run leaves thousands of stores and
/// homes behind otherwise. The roots of runs that did not exit normally (their process is
/// gone) are removed when the next run starts.
private enum TestRunRoot {
    static let prefix = "parley-run-"

    static let path: String = {
        let base = FileManager.default.temporaryDirectory.path
        for name in (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [] {
            guard name.hasPrefix(prefix), let pid = pid_t(name.dropFirst(prefix.count)), pid != getpid(),
                kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            try? FileManager.default.removeItem(atPath: base + "/" + name)
        }
        let root = base + "/" + prefix + "\(getpid())"
        try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: TestRunRoot.path) }
        return root
    }()
}
