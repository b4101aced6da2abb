/// A list of words that may not appear in names and profile texts, matched so that a word
/// is found inside text with no spaces (Chinese, Japanese) and is not hidden by case,
/// full-width letters, or spaces, punctuation, symbols or invisible characters put between
/// its letters.
///
/// Both the words and the text are reduced to their letters, marks and digits after NFKC
/// normalisation and lowercasing (``folded(_:)``), and the reduced words are found in the
/// reduced text by one Aho-Corasick automaton, so a check costs one pass over the text
/// whatever the length of the list.
struct WordList: Sendable {
    /// The automaton: per state, the next state for a scalar; state 0 is the root.
    private var transitions: [[Unicode.Scalar: Int]] = [[:]]
    /// Per state, the state of its longest proper suffix that is also a prefix of a word.
    private var fallbacks: [Int] = [0]
    /// Per state, whether a word ends there (or at one of its fallbacks).
    private var ends: [Bool] = [false]
    /// How many distinct words the list holds (after folding).
    private(set) var count = 0

    init(_ words: some Sequence<String>) {
        for word in words {
            let scalars = Self.folded(word)
            if !scalars.isEmpty { insert(scalars) }
        }
        linkFallbacks()
    }

    /// Whether `text` contains one of the words, once folded.
    func matches(_ text: String) -> Bool {
        var state = 0
        for scalar in Self.folded(text) {
            while state != 0, transitions[state][scalar] == nil { state = fallbacks[state] }
            state = transitions[state][scalar] ?? 0
            if ends[state] { return true }
        }
        return false
    }

    /// `text` as the list compares it: NFKC (full-width and other compatibility forms become
    /// their plain letters, and a letter with an accent that has a precomposed form becomes
    /// it), lowercased, keeping only letters, spacing marks and digits. Dropped: spaces,
    /// punctuation, symbols and emoji, and marks left loose after composition (strike-through
    /// overlays, variation selectors such as the one in ❤️, keycaps), and every default-
    /// ignorable code point (zero-width characters, the Hangul filler).
    static func folded(_ text: String) -> [Unicode.Scalar] {
        text.precomposedStringWithCompatibilityMapping.lowercased().unicodeScalars.filter { scalar in
            guard !scalar.properties.isDefaultIgnorableCodePoint else { return false }
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .spacingMark,
                .decimalNumber, .letterNumber, .otherNumber:
                return true
            default:
                return false
            }
        }
    }

    private mutating func insert(_ word: [Unicode.Scalar]) {
        var state = 0
        for scalar in word {
            if let next = transitions[state][scalar] {
                state = next
            } else {
                transitions.append([:])
                fallbacks.append(0)
                ends.append(false)
                transitions[state][scalar] = transitions.count - 1
                state = transitions.count - 1
            }
        }
        if !ends[state] { count += 1 }
        ends[state] = true
    }

    /// Sets each state's fallback, breadth first from the root's children (whose fallback is
    /// the root), so that every shorter state is final before a longer one uses it.
    private mutating func linkFallbacks() {
        var queue = Array(transitions[0].values)
        var index = 0
        while index < queue.count {
            let state = queue[index]
            index += 1
            for (scalar, child) in transitions[state] {
                var fallback = fallbacks[state]
                while fallback != 0, transitions[fallback][scalar] == nil { fallback = fallbacks[fallback] }
                fallbacks[child] = transitions[fallback][scalar] ?? 0
                ends[child] = ends[child] || ends[fallbacks[child]]
                queue.append(child)
            }
        }
    }
}
