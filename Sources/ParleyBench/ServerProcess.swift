import Foundation

/// The server's processes (one per node), read from `/proc`: their CPU time and memory, added up.
struct ServerProcess: Sendable {
    let pids: [Int32]

    /// User plus system CPU time consumed so far, in seconds; nil if a process is gone.
    var cpuSeconds: Double? {
        sum { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
            return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }
    }

    /// Resident memory in KiB; nil if a process is gone.
    var residentKiB: Double? {
        sum { pid in
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
            else { return nil }
            return line.split(separator: " ").dropFirst().first.flatMap { Double($0) }
        }
    }

    /// `read` of every process, added up; nil if any has none.
    private func sum(_ read: (Int32) -> Double?) -> Double? {
        var total = 0.0
        for pid in pids {
            guard let value = read(pid) else { return nil }
            total += value
        }
        return total
    }
}
