import Foundation
import ParleyCore
import ParleyTesting
import Testing

@testable import ParleyServer

/// The sensitive-word list (`--sensitive-words`): what it finds, where the server applies it,
/// and its reload on SIGHUP.
@Suite struct SensitiveWordTests {
    static let words = ["法轮功", "BadWord", "ﾃｽﾄ語", "  spaced out  ", "!!!"]

    @Test func aWordIsFoundThroughCaseWidthSpacesPunctuationAndInvisibleCharacters() {
        let list = WordList(Self.words)
        #expect(list.count == 4, "'!!!' folds to nothing, so it is no word")
        for text in [
            "我喜欢法轮功", "法 轮 功", "法.轮-功！", "法\u{200B}轮\u{200D}功", "badword", "BADWORD", "ＢａｄＷｏｒｄ",
            "b a d w o r d", "b.a.d_w-o🙂r|d", "xxbadwordxx", "テスト語", "spacedout", "SPACED-OUT",
            "bad\u{2764}\u{FE0F}word", "b\u{0335}a\u{0335}d\u{0335}w\u{0335}o\u{0335}r\u{0335}d\u{0335}",
            "法\u{3164}轮\u{034F}功", "bad\u{20E3}word",
        ] {
            #expect(list.matches(text), "\(text)")
        }
        for text in ["法轮", "轮功法", "badwor", "good words", "テスト", ""] {
            #expect(!list.matches(text), "\(text)")
        }
        #expect(!WordList([]).matches("anything"))
        // Overlapping words: the automaton's fallbacks find a word that starts inside another's prefix.
        let overlapping = WordList(["abcd", "bce"])
        #expect(overlapping.matches("xabce"))
        #expect(!overlapping.matches("abcbd"))
    }

    @Test func namesAndProfileTextsWithAListedWordAreRefusedByFieldAndChangeNothing() async throws {
        let file = try Self.wordFile(["法轮功", "badword"])
        try await withServer(configure: { $0.sensitiveWordsPath = file }) { api in
            let register = try await api.raw(
                .post, "/v1/accounts", body: #"{"username":"carol","password":"Passw0rd!","nickname":"Ｂad Ｗord"}"#)
            #expect(register.status == 400)
            let error = try decodeJSON(ErrorBody.self, register.body).error
            #expect(error.code == .textNotAllowed)
            #expect(error.message == "'nickname' contains a word that is not allowed here.", "names the field only")
            let username = try await api.raw(
                .post, "/v1/accounts", body: #"{"username":"xbadwordx","password":"Passw0rd!"}"#)
            #expect(try decodeJSON(ErrorBody.self, username.body).error.message.hasPrefix("'username'"))
            let nobody = try await api.raw(.post, "/v1/sessions", body: #"{"login":"carol","password":"Passw0rd!"}"#)
            #expect(nobody.status == 401, "the refused account was not created")

            let alice = try await api.signUp("alice")
            let bob = try await api.signUp("bob")
            for (body, field) in [
                (#"{"nickname":"Alice 法-轮-功"}"#, "nickname"), (#"{"signature":"I say B.A.D.W.O.R.D"}"#, "signature"),
            ] {
                let refused = try await api.raw(.patch, "/v1/me", body: body, token: alice.token)
                #expect(refused.status == 400)
                #expect(try decodeJSON(ErrorBody.self, refused.body).error.message.hasPrefix("'\(field)'"))
            }
            let me: Account = try await api.call(.get, "/v1/me", token: alice.token)
            #expect(me.user.nickname == "alice" && me.user.signature.isEmpty, "nothing changed")

            let create = try await capture {
                _ = try await api.createGroup("法轮功 fans", by: alice, with: [bob])
            }
            #expect(create?.error.code == .textNotAllowed)
            #expect(create?.error.message.hasPrefix("'name'") == true)
            let group = try await api.createGroup("Team", by: alice, with: [bob])
            let path = "/v1/conversations/\(group)"
            for (body, field) in [(#"{"name":"BadWord"}"#, "name"), (#"{"description":"a badword"}"#, "description")] {
                let refused = try await api.raw(.patch, path, body: body, token: alice.token)
                #expect(refused.status == 400)
                #expect(try decodeJSON(ErrorBody.self, refused.body).error.message.hasPrefix("'\(field)'"))
            }
            let alias = try await api.raw(
                .patch, "\(path)/members/\(alice.id)", body: #"{"nickname":"badword"}"#, token: alice.token)
            #expect(try decodeJSON(ErrorBody.self, alias.body).error.code == .textNotAllowed)
            let detail: ConversationDetail = try await api.call(.get, path, token: alice.token)
            #expect(detail.conversation.group?.name == "Team")
            #expect(detail.members.allSatisfy { $0.nickname == nil })

            let allowed: Account = try await api.call(
                .patch, "/v1/me", ProfileUpdate(nickname: "法轮", signature: "good words"), token: alice.token)
            #expect(allowed.user.nickname == "法轮", "a part of a word is not the word")
        }
    }

    /// SIGHUP reloads the list; a list that cannot be read then keeps the one in use, and
    /// one that cannot be read at start stops the server from starting.
    @Test func sighupReloadsTheListAndAnUnreadableOneKeepsTheListInUse() async throws {
        let file = try Self.wordFile(["oldword"])
        try await withServer(configure: { $0.sensitiveWordsPath = file }) { api in
            let alice = try await api.signUp("alice")
            func nicknameRefused(_ nickname: String) async throws -> Bool {
                let answer = try await api.raw(
                    .patch, "/v1/me", body: #"{"nickname":"\#(nickname)"}"#, token: alice.token)
                return answer.status == 400
            }
            #expect(try await nicknameRefused("oldword"))
            #expect(try await !nicknameRefused("newword"))

            try "newword\n".write(toFile: file, atomically: true, encoding: .utf8)
            kill(getpid(), SIGHUP)
            try await eventually(every: .milliseconds(20)) { try await nicknameRefused("newword") }
            #expect(try await nicknameRefused("newword"))
            #expect(try await !nicknameRefused("oldword"))

            try FileManager.default.removeItem(atPath: file)
            kill(getpid(), SIGHUP)
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await nicknameRefused("newword"), "the list in use stays")
        }
        let missing = await #expect(throws: ParleyError.self) {
            try await withServer(configure: { $0.sensitiveWordsPath = file }) { _ in }
        }
        #expect(missing?.message == "Cannot read the sensitive-word list at \(file).")
    }

    static func wordFile(_ words: [String]) throws -> String {
        let path = temporaryDirectory() + "/words.txt"
        try ("# words not allowed\n\n" + words.joined(separator: "\n") + "\n").write(
            toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
