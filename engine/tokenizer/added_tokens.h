#pragma once
// Step 1 of HuggingFace tokenization, shared by both tokenizer kinds: literal
// "added" tokens (<s>, </s>, <mask>, ...) are found in the raw text before any
// model sees it, and each match becomes its id directly.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace precis {

struct AddedToken {
    std::string content;
    int64_t id = -1;
    bool lstrip = false;   // swallow the whitespace just before a match (BART's <mask>)
    bool rstrip = false;   // swallow the whitespace just after a match
    bool special = false;  // dropped by decode(..., skip_special_tokens = true)
};

// One piece of the split: either an added token (id >= 0) or text for the model (id < 0).
struct TextSegment {
    std::string_view text;
    int64_t added_id = -1;
};

// Splits text on added tokens, taking the leftmost-longest match as HF's
// Aho-Corasick matcher does. Immutable after construction, so it is thread-safe.
class AddedTokenSplitter {
public:
    AddedTokenSplitter() = default;
    explicit AddedTokenSplitter(std::vector<AddedToken> tokens);

    const std::vector<AddedToken>& tokens() const { return tokens_; }
    // The added token with this id or content, or nullptr.
    const AddedToken* find_id(int64_t id) const;
    const AddedToken* find_content(std::string_view content) const;

    // Segments in text order; text segments are never empty. The views point into `text`.
    std::vector<TextSegment> split(std::string_view text) const;

private:
    std::vector<AddedToken> tokens_;
    // Indices into tokens_ by first byte, longest first, so a scan only compares
    // the candidates that can start at a given byte.
    std::vector<std::vector<uint32_t>> by_first_byte_ = std::vector<std::vector<uint32_t>>(256);
};

}  // namespace precis
