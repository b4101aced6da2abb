import ArgumentParser

/// The `parley` command: the server and the command-line client, one subcommand each.
@main
struct Parley: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley",
        abstract: "Parley: a self-hostable instant-messaging server and client.",
        subcommands: [
            Serve.self, Register.self, Login.self, Logout.self, WhoAmI.self, Conversations.self, History.self,
            Send.self, Pin.self, Unpin.self, MuteConversation.self, UnmuteConversation.self, Hide.self, Unhide.self,
            Recall.self, Clear.self, ProfileCommand.self, SearchUser.self, Privacy.self, Friends.self, Friend.self,
            Block.self, Unblock.self, Group.self, Chat.self, PresenceCommand.self, DoNotDisturb.self,
            NotificationsCommand.self, SearchCommand.self, SendFile.self, Download.self, SessionsCommand.self,
            TwoFactorCommand.self, ChangePassword.self, ResetPassword.self, Verify.self, ChangeAddress.self,
            DeleteAccount.self,
            Bench.self,
        ])
}
