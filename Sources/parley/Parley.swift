import ArgumentParser

/// The `parley` command: the server today, the command-line client's commands beside it later.
@main
struct Parley: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley",
        abstract: "Parley: a self-hostable instant-messaging server and client.",
        subcommands: [Serve.self])
}
