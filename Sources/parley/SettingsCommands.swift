import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit

/// `parley pin|unpin|mute|unmute|hide|unhide <conversation>`: the user's own settings for a
/// conversation, the same on all their devices.
struct SettingCommand: AsyncParsableCommand {
    /// What one of the commands sets, and the word it reports it with.
    enum Setting {
        case pin, unpin, mute, unmute, hide, unhide

        var change: UpdateSettingsRequest {
            switch self {
            case .pin: UpdateSettingsRequest(pinned: true)
            case .unpin: UpdateSettingsRequest(pinned: false)
            case .mute: UpdateSettingsRequest(muted: true)
            case .unmute: UpdateSettingsRequest(muted: false)
            case .hide: UpdateSettingsRequest(hidden: true)
            case .unhide: UpdateSettingsRequest(hidden: false)
            }
        }

        var done: String {
            switch self {
            case .pin: "Pinned"
            case .unpin: "Unpinned"
            case .mute: "Muted"
            case .unmute: "Unmuted"
            case .hide: "Hid"
            case .unhide: "Unhid"
            }
        }
    }

    static func run(_ setting: Setting, _ conversation: String, options: ClientOptions) async throws {
        try await userFacing(options) {
            let client = try await options.signedInClient()
            let summary = try await resolveConversation(conversation, client: client)
            let updated = try await client.settings.update(summary.id, setting.change)
            var line = "\(setting.done) \(await title(updated, client: client))."
            if setting == .hide { line += " It comes back with the next message." }
            print(line)
        }
    }
}

struct Pin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pin a conversation: pinned ones come first, in the order pinned.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "A username, a group name or a conversation id.") var conversation: String
    func run() async throws { try await SettingCommand.run(.pin, conversation, options: options) }
}

struct Unpin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Unpin a conversation.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "A username, a group name or a conversation id.") var conversation: String
    func run() async throws { try await SettingCommand.run(.unpin, conversation, options: options) }
}

struct MuteConversation: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mute", abstract: "Mute a conversation for yourself: no notifications from it.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "A username, a group name or a conversation id.") var conversation: String
    func run() async throws { try await SettingCommand.run(.mute, conversation, options: options) }
}

struct UnmuteConversation: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unmute", abstract: "Unmute a conversation.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "A username, a group name or a conversation id.") var conversation: String
    func run() async throws { try await SettingCommand.run(.unmute, conversation, options: options) }
}

struct Hide: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Hide a conversation from the list until a new message arrives in it.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "A username, a group name or a conversation id.") var conversation: String
    func run() async throws { try await SettingCommand.run(.hide, conversation, options: options) }
}

struct Unhide: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show a hidden conversation in the list again.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "A username, a group name or a conversation id.") var conversation: String
    func run() async throws { try await SettingCommand.run(.unhide, conversation, options: options) }
}
