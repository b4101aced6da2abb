import Testing

@testable import ParleyServer

/// A socket's requests are answered in order by one task at a time, which runs only while
/// there are requests, and the socket stops reading while too many wait.
@Suite struct RequestInboxTests {
    @Test func theFirstRequestStartsATaskAndTheRestWaitForIt() {
        let inbox = RequestInbox(backlog: 4)
        #expect(inbox.push(.text("a")), "no task answers: the caller starts one")
        #expect(!inbox.push(.text("b")), "one is answering: it takes this one too")
        #expect(inbox.take()?.request == .text("a"))
        #expect(inbox.take()?.request == .text("b"))
        #expect(inbox.take() == nil, "dry: the task ends")
        #expect(inbox.push(.token("t")), "the next request starts another")
        #expect(inbox.take()?.request == .token("t"))
    }

    @Test func readingStopsAtTheBacklogAndResumesOnceBelowIt() {
        let inbox = RequestInbox(backlog: 3)
        _ = inbox.push(.text("1"))
        _ = inbox.push(.text("2"))
        #expect(!inbox.isBacklogged)
        _ = inbox.push(.text("3"))
        _ = inbox.push(.text("4"))
        #expect(inbox.isBacklogged)
        #expect(inbox.take()?.belowBacklog == false, "3 still wait")
        #expect(inbox.take()?.belowBacklog == true, "2 wait: reading may resume")
        #expect(!inbox.isBacklogged)
        #expect(inbox.take()?.belowBacklog == false, "said once, on the way down")
        #expect(inbox.take()?.belowBacklog == false)
        #expect(inbox.take() == nil)
    }

    @Test func aClosedInboxDropsWhatWaitsAndRefusesWhatComes() {
        let inbox = RequestInbox()
        _ = inbox.push(.text("a"))
        _ = inbox.push(.binary)
        inbox.close()
        #expect(inbox.take() == nil)
        #expect(!inbox.push(.text("late")), "no task starts for a closed socket")
        #expect(inbox.take() == nil)
    }
}
