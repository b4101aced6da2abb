import ParleyStore
import PostgresNIO

extension PostgresStore {
    /// One statement takes the token (the refill of ``TokenBucket``, in SQL), so every node
    /// draws on the same bucket without a lock; the table is unlogged, since losing buckets in
    /// a crash only lets a little more through.
    public func takeToken(_ key: String, burst: Double, perMillisecond: Double, at now: Int64) async throws -> Int64? {
        try await plain { connection in
            let taken = try await connection.rows(
                """
                INSERT INTO rate_buckets AS b (key, tokens, updated_at, burst, refill) VALUES ($1, $2 - 1, $3, $2, $4)
                ON CONFLICT (key) DO UPDATE SET
                    tokens = GREATEST(LEAST($2, b.tokens + GREATEST($3 - b.updated_at, 0) * $4) - 1, 0),
                    updated_at = GREATEST(b.updated_at, $3), burst = $2, refill = $4
                WHERE LEAST($2, b.tokens + GREATEST($3 - b.updated_at, 0) * $4) >= 1 - \(TokenBucket.tolerance)
                RETURNING tokens
                """, [.text(key), .double(burst), .int(now), .double(perMillisecond)], logger: self.logger)
            guard taken.isEmpty else {
                if Int.random(in: 0..<4_096) == 0 {
                    // Now and then, forget the buckets that filled up again (forgetting a full
                    // bucket changes nothing); each remembers its own rule.
                    try await connection.rows(
                        "DELETE FROM rate_buckets WHERE tokens + GREATEST($1 - updated_at, 0) * refill >= burst",
                        [.int(now)],
                        logger: self.logger)
                }
                return nil
            }
            let row = try await connection.rows(
                "SELECT tokens, updated_at FROM rate_buckets WHERE key = $1", [.text(key)], logger: self.logger
            ).first
            var bucket = TokenBucket(
                tokens: try row?["tokens"].decode(Double.self) ?? 0, updatedAt: try row?.int("updated_at") ?? now)
            return bucket.take(burst: burst, perMillisecond: perMillisecond, at: now) ?? 1
        }
    }
}
