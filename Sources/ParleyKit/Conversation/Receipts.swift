import ParleyCore

/// How far the user's own messages in a conversation got: the others' delivered and read
/// watermarks, and in a group each member's read watermark once fetched.
struct Receipts: Hashable, Sendable {
    var othersDeliveredSeq: Int64 = 0
    var othersReadSeq: Int64 = 0
    /// Every member's watermarks (groups, on demand); kept current by `receipt` frames.
    var members: ReceiptList?

    /// Read implies delivered.
    func delivery(of seq: Int64) -> ChatItem.Delivery {
        if seq <= othersReadSeq { return .read }
        return seq <= othersDeliveredSeq ? .delivered : .sent
    }

    /// How many members other than the sender read `seq`, when the watermarks are known.
    func readBy(_ seq: Int64, sentBy sender: UserID) -> Int? {
        members?.readers(of: seq, sentBy: sender).readBy.count
    }

    /// Applies one member's new read watermark (it never goes back).
    mutating func read(_ receipt: ReadReceipt) {
        othersReadSeq = max(othersReadSeq, receipt.seq)
        guard var list = members, let index = list.members.firstIndex(where: { $0.userId == receipt.userId }) else {
            return
        }
        list.members[index].readSeq = max(list.members[index].readSeq, receipt.seq)
        members = list
    }
}
