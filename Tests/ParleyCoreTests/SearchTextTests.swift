import Foundation
import ParleyCore
import Testing

@Suite struct SearchTextTests {
    @Test func foldingIgnoresCaseDiacriticsAndWidthButKeepsKanaVoicingAndHangul() {
        #expect(SearchText.fold("Crème BRÛLÉE") == "creme brulee")
        #expect(SearchText.fold("ＡＢＣ１２３") == "abc123")
        #expect(SearchText.fold("ｶﾀｶﾅ") == "カタカナ")
        #expect(SearchText.fold("がぱ ガパ") == "がぱ ガパ", "voicing marks change the word")
        #expect(SearchText.fold("한국어 中文 日本語") == "한국어 中文 日本語")
        #expect(SearchText.fold("İstanbul Ñandú ΆΣΟΣ") == "istanbul nandu ασοσ")
        #expect(SearchText.fold("😀👍🏽") == "😀👍🏽")
        #expect(SearchText.fold("東京TOWERに行く") == "東京towerに行く", "the scalar path for CJK and ASCII")
        #expect(SearchText.fold("東京ＴＯＷＥＲ") == "東京tower", "full width takes Foundation's path")
    }

    @Test func aQueryIsSplitIntoFoldedTermsOnceEach() throws {
        #expect(try SearchText.terms(of: "  Hello   WORLD hello\u{3000}北京 ") == ["hello", "world", "北京"])
        #expect(try SearchText.terms(of: "京") == ["京"])
    }

    @Test(arguments: [
        ("", "something to search for"), ("   ", "something to search for"),
        (String(repeating: "a", count: 101), "at most 100 characters"), ("a\u{0}b", "control characters"),
        ("a b c d e f g h i", "at most 8 words"),
    ])
    func aQueryThatCannotBeSearchedIsRefusedWithItsReason(_ query: String, _ reason: String) {
        let error = #expect(throws: ParleyError.self) { try SearchText.terms(of: query) }
        #expect(error?.code == .invalidField)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }

    @Test func highlightsAreUTF16RangesOfTheOriginalTextMergedWhereTheyTouch() {
        let text = "Crème brûlée, CRÈME! 😀 北京"
        let ranges = SearchText.highlights(of: ["creme", "北京"], in: text)
        let utf16 = Array(text.utf16)
        let marked = ranges.map { String(decoding: utf16[$0.start..<$0.start + $0.length], as: UTF16.self) }
        #expect(marked == ["Crème", "CRÈME", "北京"])
        #expect(ranges.last == TextRange(start: 24, length: 2), "the emoji before counts two UTF-16 units")
        #expect(SearchText.highlights(of: ["ab", "bc"], in: "xabcx") == [TextRange(start: 1, length: 3)])
        #expect(SearchText.highlights(of: ["ss"], in: "Straße") == [TextRange(start: 4, length: 1)], "ß folds to ss")
        #expect(SearchText.highlights(of: ["zz"], in: "abc").isEmpty)
    }

    @Test func likePatternsEscapeTheirWildcards() {
        #expect(SearchText.likePattern("100%_a\\b") == "%100\\%\\_a\\\\b%")
    }

    @Test func aQueryStringRoundTripsAndEachBadParameterIsNamed() throws {
        var query = try MessageSearchQuery(
            "北京 hello", conversationId: ConversationID(7), senderId: UserID(3), since: 10, until: 20, kind: .file,
            hasFile: true, limit: 5,
            cursor: SearchCursor(tier: 1, messageId: MessageID(99)))
        let parameters = Dictionary(uniqueKeysWithValues: query.parameters.map { ($0.name, $0.value) })
        #expect(try MessageSearchQuery(parameters: parameters) == query)
        #expect(parameters["cursor"] == "s1.1.99")
        query.cursor = nil
        #expect(!query.parameters.contains { $0.name == "cursor" })

        for (parameters, named) in [
            ([:], "'q' is required"), (["q": "a", "limit": "0"], "'limit'"), (["q": "a", "limit": "101"], "'limit'"),
            (["q": "a", "limit": "x"], "'limit'"), (["q": "a", "conversationId": "0"], "'conversationId'"),
            (["q": "a", "since": "5", "until": "5"], "'since' must be before"),
            (["q": "a", "hasFile": "yes"], "'hasFile'"),
            (["q": "a", "kind": "image"], "'kind' must be one of file, location, reply, text"),
            (["q": "a", "cursor": "s1.2.5"], "'cursor'"), (["q": "a", "cursor": "c1.0.5"], "'cursor'"),
        ] as [([String: String], String)] {
            let error = #expect(throws: ParleyError.self) { try MessageSearchQuery(parameters: parameters) }
            #expect(error?.message.contains(named) == true, "\(error?.message ?? "no error") for \(parameters)")
        }
    }

    @Test func aPageIsFetchedTierByTierFromTheCursorsOn() throws {
        var query = try MessageSearchQuery("Project  RELEASE")
        #expect(
            query.passes == [
                SearchPass(tier: 0, holds: ["project release"], lacks: nil, before: nil),
                SearchPass(tier: 1, holds: ["project", "release"], lacks: "project release", before: nil),
            ])
        query.cursor = SearchCursor(tier: 0, messageId: MessageID(7))
        #expect(query.passes.map(\.before) == [MessageID(7), nil], "the cursor bounds its own tier only")
        query.cursor = SearchCursor(tier: 1, messageId: MessageID(7))
        #expect(query.passes.map(\.tier) == [1], "a cursor in tier 1 has seen all of tier 0")

        var one = try MessageSearchQuery("北京")
        #expect(one.passes == [SearchPass(tier: 0, holds: ["北京"], lacks: nil, before: nil)])
        #expect(one.passes[0].indexedAndShort.short == ["北京"])
        one.cursor = SearchCursor(tier: 1, messageId: MessageID(7))
        #expect(one.passes.isEmpty, "a one-term query has no tier 1")
    }
}
