import ParleyCore

/// The storage the server is written against. Every backend (SQLite now, PostgreSQL later)
/// implements exactly this and passes the same contract tests.
///
/// Invariants every implementation keeps:
/// - A message gets its `seq` in the transaction that stores it; seqs within a conversation
///   are 1, 2, 3, … with no hole and no repeat, and `(sender, clientMsgId)` is unique, so a
///   retried send returns the original message.
/// - Each user's event stream has dense, strictly increasing seqs.
/// - Authorisation that depends on stored state (membership) is checked inside the same
///   transaction as the write it guards.
/// - After each committed write, the change is published on ``changes`` in commit order.
///
/// Domain failures are thrown as ``ParleyError``; anything else is an internal failure.
public protocol ParleyStore: Sendable {
    /// Committed changes, in commit order, for real-time fan-out.
    var changes: ChangeFeed { get }

    /// Succeeds when the storage can serve reads and writes (readiness).
    func checkReady() async throws

    /// Releases the storage; called once the server has stopped using it.
    func close() async throws

    // MARK: Accounts

    /// Stores a new user; throws `username_taken`, `email_taken` or `phone_taken`.
    func createUser(_ user: NewUser) async throws -> UserRecord
    /// Finds a user by username, email (case-insensitive) or phone.
    func findUser(login: String) async throws -> UserRecord?
    func user(id: UserID) async throws -> UserRecord?
    func user(username: String) async throws -> UserRecord?
    /// Changes the fields given; appends a `profile.updated` event for the user.
    func updateProfile(userId: UserID, nickname: String?, signature: String?, at now: Int64) async throws -> UserRecord

    // MARK: Sessions

    func createSession(_ session: NewSession) async throws -> SessionRecord
    /// The live session whose access token hashes to `accessTokenHash`, or nil when unknown,
    /// revoked or expired at `now`.
    func session(accessTokenHash: String, at now: Int64) async throws -> SessionRecord?
    /// Replaces the tokens of the live session holding `refreshTokenHash`; nil when unknown,
    /// revoked or expired. A refresh token works once: presenting one that was already
    /// rotated away (a stolen copy, or the thief's after the owner's) revokes the session it
    /// belonged to, publishing ``StoreChange/sessionRevoked(_:)``, and answers nil.
    func rotateTokens(refreshTokenHash: String, to tokens: SessionTokens, at now: Int64) async throws -> SessionRecord?
    /// All sessions of a user, newest first, revoked ones included.
    func sessions(of userId: UserID) async throws -> [SessionRecord]
    /// Revokes a session of `userId`; false when it does not exist or was already revoked.
    /// Publishes ``StoreChange/sessionRevoked(_:)``.
    func revokeSession(_ id: SessionID, of userId: UserID, at now: Int64) async throws -> Bool

    // MARK: Conversations

    /// The direct conversation between two users, created (with `conversation.added` events
    /// for both) if it does not exist yet.
    func openDirectConversation(between userId: UserID, and peerId: UserID, at now: Int64) async throws
        -> ConversationSummary
    /// A new group owned by `ownerId` with the given other members.
    func createGroup(name: String, ownerId: UserID, memberIds: [UserID], at now: Int64) async throws
        -> ConversationSummary
    /// Adds users to a group `actorId` is a member of; returns those not already members.
    func addMembers(_ userIds: [UserID], to conversationId: ConversationID, by actorId: UserID, at now: Int64)
        async throws -> [UserID]
    /// The conversation as `userId` sees it; throws `not_a_member` when they are not in it.
    func conversation(_ id: ConversationID, for userId: UserID) async throws -> ConversationDetail
    /// A page of a user's conversations, most recently active first, starting after `cursor`.
    func conversations(of userId: UserID, after cursor: ConversationListCursor?, limit: Int) async throws
        -> [ConversationSummary]

    // MARK: Messages

    /// Stores a message and assigns its seq, or returns the original for a repeated
    /// `(sender, clientMsgId)`. Throws `not_a_member` when the sender is not in the conversation.
    func appendMessage(_ message: NewMessage) async throws -> AppendResult
    /// A page of history for a member.
    func history(of conversationId: ConversationID, for userId: UserID, query: HistoryQuery) async throws -> HistoryPage
    /// Moves a member's read watermark forward to `seq` (clamped to the conversation's max
    /// seq); nil when it would not move.
    func markRead(_ conversationId: ConversationID, by userId: UserID, upTo seq: Int64, at now: Int64) async throws
        -> ReadReceipt?

    // MARK: Sync

    /// What changed for a user since `cursor` (nil: a full snapshot), at most `limit` of
    /// conversations and of events.
    func sync(userId: UserID, since cursor: SyncCursor?, limit: Int) async throws -> SyncBatch
}
