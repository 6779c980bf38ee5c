#pragma once
// GPT-2 / RoBERTa / BART byte-level BPE (fixtures README section 3):
// added tokens -> pre-tokenizer regex -> byte-to-unicode map -> rank-based merges.
#include <array>
#include <filesystem>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/tokenizer/added_tokens.h"
#include "engine/tokenizer/byte_level.h"
#include "engine/tokenizer/tokenizer.h"

namespace precis {

class ByteLevelBpeTokenizer final : public Tokenizer {
public:
    // Everything a byte-level BPE tokenizer is made of, independent of the file format.
    struct Spec {
        std::vector<std::pair<std::string, int64_t>> vocab;        // vocabulary-form token -> id
        std::vector<std::pair<std::string, std::string>> merges;   // in rank order
        std::vector<AddedToken> added_tokens;
        std::vector<int64_t> prefix_ids, suffix_ids;  // framing added by add_special_tokens
        std::string unk_token;                        // "" when the model has none
        bool add_prefix_space = false;                // ByteLevel pre-tokenizer flag
    };

    explicit ByteLevelBpeTokenizer(Spec spec);

    // HuggingFace tokenizer.json with a BPE model and a ByteLevel pre-tokenizer.
    static std::unique_ptr<ByteLevelBpeTokenizer> from_tokenizer_json(const std::filesystem::path& file);
    // The older vocab.json + merges.txt pair, with BART's standard special tokens.
    static std::unique_ptr<ByteLevelBpeTokenizer> from_vocab_and_merges(const std::filesystem::path& vocab_file,
                                                                        const std::filesystem::path& merges_file);

    std::vector<int64_t> encode(std::string_view text, bool add_special_tokens = true) const override;
    std::string decode(const std::vector<int64_t>& ids, bool skip_special_tokens = false) const override;
    int64_t vocab_size() const override { return int64_t(id_to_token_.size()); }
    int64_t token_to_id(std::string_view token) const override;
    std::string id_to_token(int64_t id) const override;
    std::string kind() const override { return "byte-level BPE"; }

private:
    static Spec spec_from_tokenizer_json(const nlohmann::json& root, const std::filesystem::path& file);

    struct Merge {
        int32_t rank;
        int32_t result;  // symbol id of the merged string
    };
    // Hashing for heterogeneous (string_view) lookups, so cache probes do not allocate.
    struct StringHash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    using StringMap = std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>>;

    static uint64_t pair_key(int32_t a, int32_t b) { return (uint64_t(uint32_t(a)) << 32) | uint32_t(b); }

    void encode_text(std::string_view text, std::vector<int64_t>& out) const;
    // BPE of one pre-token (raw bytes), returning final symbol ids.
    void merge_word(std::string_view piece, std::vector<int32_t>& symbols) const;

    StringMap vocab_;                        // vocabulary-form token -> id
    std::vector<std::string> id_to_token_;   // vocabulary or added token text per id
    std::vector<std::string> id_to_bytes_;   // what each id decodes to
    std::vector<bool> special_;              // dropped by skip_special_tokens
    std::unordered_map<uint64_t, Merge> merges_;
    std::array<int32_t, 256> byte_symbol_{};  // symbol of each single byte
    int32_t first_extra_symbol_ = 0;          // symbols from here on are not in the vocabulary
    std::vector<int64_t> prefix_ids_, suffix_ids_;
    bool add_prefix_space_ = false;
    AddedTokenSplitter added_;
    ByteLevelPreTokenizer pre_tokenizer_;

    // Per-word cache: documents repeat words a lot, and BPE of a word is pure.
    // Guarded by a mutex because a const tokenizer is shared between threads.
    mutable std::mutex cache_mutex_;
    mutable std::unordered_map<std::string, std::vector<int32_t>, StringHash, std::equal_to<>> cache_;
};

}  // namespace precis
