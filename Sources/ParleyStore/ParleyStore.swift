import ParleyCore

/// The storage the server is written against: one protocol per domain, which every backend
/// (SQLite, PostgreSQL) implements in files of the same names and which the same contract
/// tests check.
///
/// The rules live beside the protocols (``SendRules``, ``ConversationRules``,
/// ``ReadWatermark``, ``HistoryWindow``, ``SyncPaging``, ``LoginKey``, ``SessionRules``,
/// ``GroupRules``, ``MessageRules``, ``ContactRules``), so a
/// backend only runs SQL, maps rows and asks the rules what to do.
///
/// Invariants every implementation keeps:
/// - A message gets its `seq` in the transaction that stores it; seqs within a conversation
///   are 1, 2, 3, … with no hole and no repeat, and `(sender, clientMsgId)` is unique, so a
///   retried send returns the original message.
/// - Each user's event stream has dense, strictly increasing seqs.
/// - Authorisation that depends on stored state (membership) is checked inside the same
///   transaction as the write it guards.
/// - After each committed write, the change reaches the node's ``FanOut`` in commit order
///   (SQLite publishes it on its ``LocalFanOut``; PostgreSQL sends a NOTIFY in the
///   transaction, which every node's `PostgresFanOut` hears at commit).
///
/// Domain failures are thrown as ``ParleyError``; anything else is an internal failure.
public protocol ParleyStore: AccountStore, SessionStore, ConversationStore, GroupStore, MessageStore,
    MessageActionStore, SyncStore, ContactStore, PresenceStore, NotificationStore, SearchStore,
    FileStore, TwoFactorStore, SecurityLogStore, VerificationStore, RateLimitStore
{
    /// Succeeds when the storage can serve reads and writes (readiness).
    func checkReady() async throws

    /// Releases the storage; called once the server has stopped using it.
    func close() async throws
}
