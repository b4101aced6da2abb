import Testing

/// Waits (in real time) until `condition` holds. The limit is generous because it only
/// matters when the test fails; a loaded CI machine can be 100 times slower than a quiet one,
/// and a clean-clone CI run once stalled the whole test process for 33 s at its start (even
/// tests with no I/O at all finished after 33 s), which failed every test waiting here for 30.
/// `every` is the pause between checks: longer for a check that costs a request.
public func eventually(
    _ message: String = "", timeout: Duration = .seconds(90), every: Duration = .milliseconds(2),
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: every)
    }
    Issue.record("condition not met in time \(message)")
    throw CancellationError()
}
