/// A code could not be handed to its sender's service; the message says why, with no code
/// or secret in it.
public struct CodeDeliveryError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}
