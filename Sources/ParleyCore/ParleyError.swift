/// A stable, machine-readable error code such as `username_taken`.
///
/// Codes are strings on the wire so that new ones never break an older client; the HTTP
/// status that goes with each code is defined here once, for every transport.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public let httpStatus: Int

    public init(rawValue: String) {
        self.rawValue = rawValue
        self.httpStatus = Self.known[rawValue] ?? 400
    }

    private init(_ rawValue: String, _ httpStatus: Int) {
        self.rawValue = rawValue
        self.httpStatus = httpStatus
    }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    public var description: String { rawValue }

    /// Whether the same request may succeed later unchanged: too many requests for now (429)
    /// or a server failure (5xx), rather than something wrong with the request.
    public var isTemporary: Bool { httpStatus == 429 || httpStatus >= 500 }

    // Malformed requests.
    public static let invalidJSON = ErrorCode("invalid_json", 400)
    public static let missingField = ErrorCode("missing_field", 400)
    public static let invalidField = ErrorCode("invalid_field", 400)
    public static let unknownField = ErrorCode("unknown_field", 400)
    public static let unknownFrameType = ErrorCode("unknown_frame_type", 400)
    public static let payloadTooLarge = ErrorCode("payload_too_large", 413)
    public static let notFound = ErrorCode("not_found", 404)
    public static let methodNotAllowed = ErrorCode("method_not_allowed", 405)
    // Accounts.
    public static let usernameInvalid = ErrorCode("username_invalid", 400)
    public static let usernameTaken = ErrorCode("username_taken", 409)
    public static let passwordTooShort = ErrorCode("password_too_short", 400)
    public static let passwordTooLong = ErrorCode("password_too_long", 400)
    public static let passwordTooWeak = ErrorCode("password_too_weak", 400)
    public static let passwordInvalid = ErrorCode("password_invalid", 400)
    public static let emailInvalid = ErrorCode("email_invalid", 400)
    public static let emailTaken = ErrorCode("email_taken", 409)
    public static let phoneInvalid = ErrorCode("phone_invalid", 400)
    public static let phoneTaken = ErrorCode("phone_taken", 409)
    public static let nicknameInvalid = ErrorCode("nickname_invalid", 400)
    public static let signatureInvalid = ErrorCode("signature_invalid", 400)
    public static let avatarInvalid = ErrorCode("avatar_invalid", 400)
    public static let genderInvalid = ErrorCode("gender_invalid", 400)
    public static let birthdayInvalid = ErrorCode("birthday_invalid", 400)
    public static let regionInvalid = ErrorCode("region_invalid", 400)
    /// A name or profile text contains a word on the server's sensitive-word list.
    public static let textNotAllowed = ErrorCode("text_not_allowed", 400)
    public static let invalidCredentials = ErrorCode("invalid_credentials", 401)
    /// Changing the password with a current password that is wrong.
    public static let currentPasswordWrong = ErrorCode("current_password_wrong", 403)
    public static let tooManyAttempts = ErrorCode("too_many_attempts", 429)
    /// Too many requests of one kind from this account or address; `Retry-After` says when to try again.
    public static let rateLimited = ErrorCode("rate_limited", 429)
    // Sessions.
    public static let unauthenticated = ErrorCode("unauthenticated", 401)
    public static let invalidToken = ErrorCode("invalid_token", 401)
    public static let alreadyAuthenticated = ErrorCode("already_authenticated", 409)
    // Two-factor login.
    /// A code from the authenticator app (or a recovery code) that is wrong, expired or used.
    public static let codeInvalid = ErrorCode("code_invalid", 400)
    /// The email or phone a code would verify is missing, or verified already.
    public static let nothingToVerify = ErrorCode("nothing_to_verify", 409)
    /// A second-factor challenge that is unknown, forged or expired: log in again.
    public static let challengeInvalid = ErrorCode("challenge_invalid", 401)
    public static let twoFactorEnabled = ErrorCode("two_factor_enabled", 409)
    public static let twoFactorNotEnabled = ErrorCode("two_factor_not_enabled", 409)
    public static let twoFactorNotPending = ErrorCode("two_factor_not_pending", 409)
    // Conversations and messages.
    public static let notAMember = ErrorCode("not_a_member", 403)
    public static let forbidden = ErrorCode("forbidden", 403)
    public static let userNotFound = ErrorCode("user_not_found", 404)
    public static let conversationNotFound = ErrorCode("conversation_not_found", 404)
    public static let messageInvalid = ErrorCode("message_invalid", 400)
    public static let clientMessageIDReused = ErrorCode("client_msg_id_reused", 409)
    public static let groupFull = ErrorCode("group_full", 409)
    // Group administration.
    public static let memberNotFound = ErrorCode("member_not_found", 404)
    public static let groupDissolved = ErrorCode("group_dissolved", 409)
    public static let muted = ErrorCode("muted", 403)
    public static let ownerMustTransfer = ErrorCode("owner_must_transfer", 409)
    public static let inviteNotFound = ErrorCode("invite_not_found", 404)
    public static let inviteExpired = ErrorCode("invite_expired", 410)
    public static let tooManyInviteLinks = ErrorCode("too_many_invite_links", 409)
    public static let joinRequestNotFound = ErrorCode("join_request_not_found", 404)
    public static let invalidCursor = ErrorCode("invalid_cursor", 400)
    // Message actions.
    public static let messageNotFound = ErrorCode("message_not_found", 404)
    public static let messageRecalled = ErrorCode("message_recalled", 409)
    public static let notMessageSender = ErrorCode("not_message_sender", 403)
    public static let recallWindowPassed = ErrorCode("recall_window_passed", 403)
    public static let editWindowPassed = ErrorCode("edit_window_passed", 403)
    public static let messageNotEditable = ErrorCode("message_not_editable", 400)
    public static let messageNotForwardable = ErrorCode("message_not_forwardable", 400)
    public static let replyOutsideConversation = ErrorCode("reply_outside_conversation", 400)
    public static let mentionAllNotAllowed = ErrorCode("mention_all_not_allowed", 403)
    // Contacts
    public static let cannotAddSelf = ErrorCode("cannot_add_self", 400)
    public static let alreadyFriends = ErrorCode("already_friends", 409)
    public static let notAcceptingRequests = ErrorCode("not_accepting_requests", 403)
    public static let blocked = ErrorCode("blocked", 403)
    public static let notAFriend = ErrorCode("not_a_friend", 403)
    public static let friendRequestNotFound = ErrorCode("friend_request_not_found", 404)
    public static let friendRequestClosed = ErrorCode("friend_request_closed", 409)
    public static let contactNotFound = ErrorCode("contact_not_found", 404)
    public static let tooManyFriends = ErrorCode("too_many_friends", 409)
    public static let tooManyPendingRequests = ErrorCode("too_many_pending_requests", 409)
    public static let tooManyBlocks = ErrorCode("too_many_blocks", 409)
    public static let remarkInvalid = ErrorCode("remark_invalid", 400)
    public static let friendGroupNotFound = ErrorCode("friend_group_not_found", 404)
    public static let friendGroupExists = ErrorCode("friend_group_exists", 409)
    public static let tooManyFriendGroups = ErrorCode("too_many_friend_groups", 409)
    // Files.
    public static let fileNotFound = ErrorCode("file_not_found", 404)
    public static let uploadNotFound = ErrorCode("upload_not_found", 404)
    public static let fileTooLarge = ErrorCode("file_too_large", 413)
    public static let fileTypeNotAllowed = ErrorCode("file_type_not_allowed", 415)
    public static let quotaExceeded = ErrorCode("quota_exceeded", 403)
    public static let tooManyUploads = ErrorCode("too_many_uploads", 409)
    public static let chunkInvalid = ErrorCode("chunk_invalid", 400)
    public static let uploadIncomplete = ErrorCode("upload_incomplete", 409)
    public static let fileMismatch = ErrorCode("file_mismatch", 422)
    public static let rangeNotSatisfiable = ErrorCode("range_not_satisfiable", 416)
    public static let linkInvalid = ErrorCode("link_invalid", 403)
    // Server side.
    public static let unavailable = ErrorCode("unavailable", 503)
    public static let internalError = ErrorCode("internal_error", 500)

    private static let known: [String: Int] = {
        let all: [ErrorCode] = [
            .invalidJSON, .missingField, .invalidField, .unknownField, .unknownFrameType,
            .payloadTooLarge, .notFound, .methodNotAllowed, .usernameInvalid, .usernameTaken, .passwordTooShort,
            .passwordTooLong, .passwordTooWeak, .passwordInvalid, .alreadyAuthenticated, .emailInvalid, .emailTaken,
            .phoneInvalid,
            .phoneTaken, .nicknameInvalid, .signatureInvalid, .avatarInvalid, .genderInvalid, .birthdayInvalid,
            .regionInvalid, .textNotAllowed, .invalidCredentials,
            .tooManyAttempts, .unauthenticated, .invalidToken, .notAMember, .forbidden,
            .userNotFound, .conversationNotFound, .messageInvalid, .clientMessageIDReused,
            .groupFull, .invalidCursor, .unavailable, .internalError, .memberNotFound, .groupDissolved, .muted,
            .ownerMustTransfer, .inviteNotFound, .inviteExpired, .tooManyInviteLinks, .joinRequestNotFound,
            .messageNotFound, .messageRecalled, .notMessageSender, .recallWindowPassed, .editWindowPassed,
            .messageNotEditable, .messageNotForwardable, .replyOutsideConversation, .mentionAllNotAllowed,
            .cannotAddSelf, .alreadyFriends, .notAcceptingRequests, .blocked, .notAFriend, .friendRequestNotFound,
            .friendRequestClosed, .contactNotFound, .tooManyFriends, .tooManyPendingRequests, .tooManyBlocks,
            .remarkInvalid, .friendGroupNotFound, .friendGroupExists, .tooManyFriendGroups, .fileNotFound,
            .uploadNotFound, .fileTooLarge, .fileTypeNotAllowed, .quotaExceeded, .tooManyUploads, .chunkInvalid,
            .uploadIncomplete, .fileMismatch, .rangeNotSatisfiable, .linkInvalid, .codeInvalid, .challengeInvalid,
            .twoFactorEnabled, .twoFactorNotEnabled, .twoFactorNotPending, .currentPasswordWrong,
            .rateLimited, .nothingToVerify,
        ]
        return Dictionary(uniqueKeysWithValues: all.map { ($0.rawValue, $0.httpStatus) })
    }()
}

/// An error a client can act on: a code for programs and a sentence for people.
///
/// Rendered over HTTP as `{"error": {"code": …, "message": …}}` and over the WebSocket as an
/// `error` frame with the same body.
public struct ParleyError: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    /// When the condition ends, in ms since the epoch (a mute's end, for `muted`); absent
    /// for most errors.
    public var until: Int64?

    public init(_ code: ErrorCode, _ message: String, until: Int64? = nil) {
        self.code = code
        self.message = message
        self.until = until
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// The JSON body of an HTTP error response.
public struct ErrorBody: Codable, Sendable {
    public var error: ParleyError
    public init(error: ParleyError) { self.error = error }
}
