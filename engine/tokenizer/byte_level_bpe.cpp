#include "engine/tokenizer/byte_level_bpe.h"

#include <algorithm>
#include <climits>
#include <fstream>
#include <functional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/core/checked.h"
#include "engine/core/error.h"
#include "engine/io/json_file.h"
#include "engine/io/regular_file.h"
#include "engine/tokenizer/utf8.h"

namespace precis {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Bounds the word cache; a long-running app tokenizes many documents.
constexpr size_t kMaxCacheEntries = 200000;

std::string read_file(const fs::path& file) {
    return read_regular_file(file, "the tokenizer file " + file.string(), kMaxTokenizerFileBytes);
}

json parse_json_file(const fs::path& file) {
    return parse_json_text(read_file(file), "the tokenizer file " + file.string());
}

[[noreturn]] void bad_structure(const fs::path& file, const std::string& problem) {
    throw Error("the tokenizer file " + file.string() + " is malformed: " + problem + ".");
}

// Splits a merges line "A B" into its two halves; false when it is not exactly two parts.
bool split_merge(std::string_view line, std::pair<std::string, std::string>& out) {
    const size_t sp = line.find(' ');
    if (sp == std::string_view::npos || sp == 0 || sp + 1 >= line.size()) return false;
    if (line.find(' ', sp + 1) != std::string_view::npos) return false;
    out = {std::string(line.substr(0, sp)), std::string(line.substr(sp + 1))};
    return true;
}

std::vector<std::pair<std::string, int64_t>> read_vocab(const json& v, const fs::path& file, const char* where) {
    if (!v.is_object()) bad_structure(file, std::string(where) + " is not an object of token -> id");
    std::vector<std::pair<std::string, int64_t>> out;
    out.reserve(v.size());
    for (auto it = v.begin(); it != v.end(); ++it) {
        if (!it.value().is_number_integer() || it.value().get<int64_t>() < 0 || it.value().get<int64_t>() > INT32_MAX)
            bad_structure(file, std::string(where) + " maps \"" + it.key() + "\" to something other than a valid id");
        out.emplace_back(it.key(), it.value().get<int64_t>());
    }
    return out;
}

// The ByteLevel pre-tokenizer, directly or inside a Sequence; nullptr if absent.
const json* find_byte_level(const json& pre) {
    if (!pre.is_object()) return nullptr;
    const std::string type = pre.value("type", "");
    if (type == "ByteLevel") return &pre;
    if (type == "Sequence" && pre.contains("pretokenizers") && pre["pretokenizers"].is_array()) {
        if (pre["pretokenizers"].size() != 1) return nullptr;  // anything else in front would change the splits
        return find_byte_level(pre["pretokenizers"][0]);
    }
    return nullptr;
}

// The ids a tokenizer file gives must describe a vocabulary, not an address space: the
// id table is as long as the largest id, so one id near INT32_MAX would ask for tens of
// gigabytes. Gaps are tolerated up to as many ids again as the file has tokens.
void check_spec(const ByteLevelBpeTokenizer::Spec& spec, const fs::path& file) {
    if (spec.vocab.empty()) bad_structure(file, "its vocabulary is empty");
    const int64_t tokens = int64_t(spec.vocab.size() + spec.added_tokens.size());
    const int64_t limit = 2 * tokens + 1024;
    auto check_id = [&](const std::string& token, int64_t id) {
        if (id >= limit)
            bad_structure(file, "the token \"" + token.substr(0, 40) + "\" has the id " + std::to_string(id) +
                                    ", far beyond its " + std::to_string(tokens) + " tokens (ids must stay below " +
                                    std::to_string(limit) + ")");
    };
    int64_t size = 0;
    for (const auto& [tok, id] : spec.vocab) {
        check_id(tok, id);
        size = std::max(size, id + 1);
    }
    for (const auto& t : spec.added_tokens) {
        check_id(t.content, t.id);
        size = std::max(size, t.id + 1);
    }
    for (const auto* framing : {&spec.prefix_ids, &spec.suffix_ids})
        for (int64_t id : *framing)
            if (id < 0 || id >= size)
                bad_structure(file, "its post_processor adds the id " + std::to_string(id) +
                                        ", which is not in its vocabulary of " + std::to_string(size) + " ids");
    // Per id: the token text, its bytes and a flag (two strings and a bit), plus the map entry.
    require_memory(checked_mul(uint64_t(size), uint64_t(2 * sizeof(std::string) + 64), "the tokenizer's id table"),
                   "the tokenizer file " + file.string() + " with " + std::to_string(size) + " ids");
}

}  // namespace

ByteLevelBpeTokenizer::ByteLevelBpeTokenizer(Spec spec)
    : prefix_ids_(std::move(spec.prefix_ids)),
      suffix_ids_(std::move(spec.suffix_ids)),
      add_prefix_space_(spec.add_prefix_space) {
    const ByteUnicodeMap& bytes = ByteUnicodeMap::instance();

    int64_t size = 0;
    for (const auto& [tok, id] : spec.vocab) size = std::max(size, id + 1);
    for (const auto& t : spec.added_tokens) size = std::max(size, t.id + 1);
    id_to_token_.assign(size_t(size), {});
    id_to_bytes_.assign(size_t(size), {});
    special_.assign(size_t(size), false);

    vocab_.reserve(spec.vocab.size());
    for (auto& [tok, id] : spec.vocab) {
        id_to_bytes_[id] = bytes.decode(tok);
        id_to_token_[id] = tok;
        vocab_.emplace(std::move(tok), int32_t(id));
    }
    // Added tokens decode to their literal text, whatever the vocabulary says.
    for (const auto& t : spec.added_tokens) {
        id_to_token_[t.id] = t.content;
        id_to_bytes_[t.id] = t.content;
        special_[t.id] = t.special;
    }

    // BPE works on symbol ids: the vocabulary id where the string has one, else a
    // fresh id past the vocabulary (a merge may produce a string the vocab lacks).
    first_extra_symbol_ = int32_t(size);
    StringMap extra;
    auto symbol_of = [&](const std::string& s) -> int32_t {
        if (auto it = vocab_.find(s); it != vocab_.end()) return it->second;
        auto [it, inserted] = extra.emplace(s, first_extra_symbol_ + int32_t(extra.size()));
        return it->second;
    };
    for (int b = 0; b < 256; ++b) byte_symbol_[b] = symbol_of(bytes.encode_byte(uint8_t(b)));
    merges_.reserve(spec.merges.size() * 2);
    for (size_t rank = 0; rank < spec.merges.size(); ++rank) {
        const auto& [a, b] = spec.merges[rank];
        // The first occurrence of a duplicated pair keeps its (lower) rank.
        merges_.emplace(pair_key(symbol_of(a), symbol_of(b)), Merge{int32_t(rank), symbol_of(a + b)});
    }

    if (!spec.unk_token.empty()) unk_id_ = token_to_id(spec.unk_token);
    bos_id_ = token_to_id("<s>");
    eos_id_ = token_to_id("</s>");
    pad_id_ = token_to_id("<pad>");
    mask_id_ = token_to_id("<mask>");
    if (unk_id_ < 0) unk_id_ = token_to_id("<unk>");
    // Framing tokens are the real bos/eos when the model names them (RoBERTa's cls/sep).
    if (!prefix_ids_.empty()) bos_id_ = prefix_ids_.front();
    if (!suffix_ids_.empty()) eos_id_ = suffix_ids_.back();

    added_ = AddedTokenSplitter(std::move(spec.added_tokens));
}

std::unique_ptr<ByteLevelBpeTokenizer> ByteLevelBpeTokenizer::from_tokenizer_json(const fs::path& file) {
    const json root = parse_json_file(file);
    // The checks below name the usual mistakes; any other wrong type (a number
    // where a string belongs) surfaces as a json::exception, reported the same way.
    try {
        Spec spec = spec_from_tokenizer_json(root, file);
        check_spec(spec, file);
        return std::make_unique<ByteLevelBpeTokenizer>(std::move(spec));
    } catch (const json::exception& e) {
        bad_structure(file, e.what());
    }
}

ByteLevelBpeTokenizer::Spec ByteLevelBpeTokenizer::spec_from_tokenizer_json(const json& root, const fs::path& file) {
    if (!root.is_object()) bad_structure(file, "the top level is not an object");
    if (!root.contains("model") || !root["model"].is_object()) bad_structure(file, "it has no \"model\" object");
    const json& model = root["model"];
    const std::string type = model.value("type", "BPE");
    if (type != "BPE")
        throw Error("the tokenizer file " + file.string() + " uses a " + type +
                    " model; only byte-level BPE tokenizer.json files are supported.");
    if (root.contains("normalizer") && !root["normalizer"].is_null())
        throw Error("the tokenizer file " + file.string() + " has a normalizer, which byte-level BPE does not support.");
    const json* byte_level = root.contains("pre_tokenizer") ? find_byte_level(root["pre_tokenizer"]) : nullptr;
    if (!byte_level)
        throw Error("the tokenizer file " + file.string() +
                    " does not use a ByteLevel pre-tokenizer; only byte-level BPE is supported.");
    if (!byte_level->value("use_regex", true))
        throw Error("the tokenizer file " + file.string() + " turns off the ByteLevel regex, which is not supported.");
    if (model.contains("byte_fallback") && model["byte_fallback"].is_boolean() && model["byte_fallback"].get<bool>())
        throw Error("the tokenizer file " + file.string() + " uses BPE byte fallback, which is not supported.");

    Spec spec;
    spec.add_prefix_space = byte_level->value("add_prefix_space", false);
    if (!model.contains("vocab")) bad_structure(file, "model.vocab is missing");
    spec.vocab = read_vocab(model["vocab"], file, "model.vocab");
    if (!model.contains("merges") || !model["merges"].is_array()) bad_structure(file, "model.merges is not a list");
    spec.merges.reserve(model["merges"].size());
    for (const json& m : model["merges"]) {
        // Older files store "A B", newer ones ["A", "B"].
        std::pair<std::string, std::string> pair;
        if (m.is_string() && split_merge(m.get_ref<const std::string&>(), pair)) {
            spec.merges.push_back(std::move(pair));
        } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
            spec.merges.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
        } else {
            bad_structure(file, "merge " + std::to_string(spec.merges.size()) + " is not \"A B\" or [\"A\", \"B\"]");
        }
    }
    if (model.contains("unk_token") && model["unk_token"].is_string()) spec.unk_token = model["unk_token"];

    if (root.contains("added_tokens")) {
        if (!root["added_tokens"].is_array()) bad_structure(file, "added_tokens is not a list");
        for (const json& t : root["added_tokens"]) {
            if (!t.is_object() || !t.contains("id") || !t["id"].is_number_integer() || !t.contains("content") ||
                !t["content"].is_string() || t["id"].get<int64_t>() < 0 || t["id"].get<int64_t>() > INT32_MAX)
                bad_structure(file, "an entry of added_tokens lacks a valid id or content");
            spec.added_tokens.push_back({t["content"].get<std::string>(), t["id"].get<int64_t>(),
                                         t.value("lstrip", false), t.value("rstrip", false), t.value("special", false)});
        }
    }

    // Framing: RoBERTa/BERT processing gives cls ... sep; a template gives its
    // special tokens around "A"; anything else (ByteLevel, none) adds nothing.
    if (root.contains("post_processor") && root["post_processor"].is_object()) {
        const json& pp = root["post_processor"];
        const std::string pp_type = pp.value("type", "");
        auto pair_id = [&](const char* key) -> int64_t {
            if (!pp.contains(key) || !pp[key].is_array() || pp[key].size() != 2 || !pp[key][1].is_number_integer())
                bad_structure(file, std::string("post_processor.") + key + " is not [token, id]");
            return pp[key][1].get<int64_t>();
        };
        if (pp_type == "RobertaProcessing" || pp_type == "BertProcessing") {
            spec.prefix_ids = {pair_id("cls")};
            spec.suffix_ids = {pair_id("sep")};
        } else if (pp_type == "TemplateProcessing" && pp.contains("single") && pp["single"].is_array()) {
            bool after_sequence = false;
            for (const json& item : pp["single"]) {
                if (item.contains("Sequence")) {
                    after_sequence = true;
                } else if (item.contains("SpecialToken")) {
                    const std::string name = item["SpecialToken"].value("id", "");
                    const json* st = pp.contains("special_tokens") && pp["special_tokens"].contains(name)
                                         ? &pp["special_tokens"][name]
                                         : nullptr;
                    if (!st || !st->contains("ids") || !(*st)["ids"].is_array())
                        bad_structure(file, "post_processor names the unknown special token \"" + name + "\"");
                    for (const json& id : (*st)["ids"])
                        (after_sequence ? spec.suffix_ids : spec.prefix_ids).push_back(id.get<int64_t>());
                }
            }
        }
    }
    return spec;
}

std::unique_ptr<ByteLevelBpeTokenizer> ByteLevelBpeTokenizer::from_vocab_and_merges(const fs::path& vocab_file,
                                                                                    const fs::path& merges_file) {
    Spec spec;
    spec.vocab = read_vocab(parse_json_file(vocab_file), vocab_file, "the top level");

    const std::string text = read_file(merges_file);
    std::istringstream in(text);
    std::string line;
    size_t line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || (line_no == 1 && line.rfind("#version", 0) == 0)) continue;
        std::pair<std::string, std::string> pair;
        if (!split_merge(line, pair))
            bad_structure(merges_file, "line " + std::to_string(line_no) + " is not two tokens separated by a space");
        spec.merges.push_back(std::move(pair));
    }

    // BartTokenizer's defaults: the five special tokens, <mask> swallowing the space before it.
    const std::pair<const char*, bool> specials[] = {
        {"<s>", false}, {"<pad>", false}, {"</s>", false}, {"<unk>", false}, {"<mask>", true}};
    for (const auto& [content, lstrip] : specials) {
        // Captured by name: clang 14 cannot capture a structured binding.
        auto it = std::find_if(spec.vocab.begin(), spec.vocab.end(),
                               [name = content](const auto& e) { return e.first == name; });
        if (it != spec.vocab.end()) spec.added_tokens.push_back({content, it->second, lstrip, false, true});
    }
    spec.unk_token = "<unk>";
    for (const auto& t : spec.added_tokens) {
        if (t.content == "<s>") spec.prefix_ids = {t.id};
        if (t.content == "</s>") spec.suffix_ids = {t.id};
    }
    check_spec(spec, vocab_file);
    return std::make_unique<ByteLevelBpeTokenizer>(std::move(spec));
}

int64_t ByteLevelBpeTokenizer::token_to_id(std::string_view token) const {
    if (const AddedToken* t = added_.find_content(token)) return t->id;
    if (auto it = vocab_.find(token); it != vocab_.end()) return it->second;
    return -1;
}

std::string ByteLevelBpeTokenizer::id_to_token(int64_t id) const {
    if (id < 0 || id >= vocab_size()) return {};
    return id_to_token_[size_t(id)];
}

void ByteLevelBpeTokenizer::merge_word(std::string_view piece, std::vector<int32_t>& symbols) const {
    // Reference semantics (README section 3): repeatedly take the lowest-ranked
    // adjacent pair and merge all its occurrences left to right. Rescanning the word
    // after every merge is quadratic, which a long unbroken run (a URL, a PDF line
    // without spaces) makes visible, so this keeps a doubly linked list of symbols
    // and a min-heap of candidate pairs instead: O(n log n).
    //
    // Equivalence: all heap entries of the lowest rank are taken out together and
    // applied in text order, skipping those an earlier merge destroyed. A merge
    // only creates pairs involving the new, longer symbol, so it cannot create
    // another occurrence of the pair being merged; any pair it creates waits for
    // the next round, exactly as in the reference loop.
    const size_t n = piece.size();
    symbols.clear();
    if (n == 0) return;
    std::vector<int32_t> sym(n), prev(n), next(n);
    for (size_t i = 0; i < n; ++i) {
        sym[i] = byte_symbol_[static_cast<unsigned char>(piece[i])];
        prev[i] = int32_t(i) - 1;
        next[i] = (i + 1 < n) ? int32_t(i + 1) : -1;
    }
    std::vector<bool> alive(n, true);

    struct Candidate {
        int32_t rank, left, a, b;  // pair (a, b) starting at symbol index `left`
        bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
    };
    std::vector<Candidate> heap;
    auto push = [&](int32_t left) {
        if (left < 0 || next[left] < 0) return;
        const int32_t a = sym[left], b = sym[next[left]];
        if (auto it = merges_.find(pair_key(a, b)); it != merges_.end()) {
            heap.push_back({it->second.rank, left, a, b});
            std::push_heap(heap.begin(), heap.end(), std::greater<>{});
        }
    };
    for (size_t i = 0; i + 1 < n; ++i) push(int32_t(i));

    std::vector<Candidate> round;
    while (!heap.empty()) {
        // All candidates of the lowest rank, in text order (list order is index order).
        round.clear();
        const int32_t rank = heap.front().rank;
        while (!heap.empty() && heap.front().rank == rank) {
            std::pop_heap(heap.begin(), heap.end(), std::greater<>{});
            round.push_back(heap.back());
            heap.pop_back();
        }
        const int32_t merged = merges_.find(pair_key(round.front().a, round.front().b))->second.result;
        for (const Candidate& c : round) {
            const int32_t right = next[c.left];
            // Stale if an earlier merge consumed either symbol or changed them.
            if (!alive[c.left] || right < 0 || sym[c.left] != c.a || sym[right] != c.b) continue;
            sym[c.left] = merged;
            alive[right] = false;
            next[c.left] = next[right];
            if (next[right] >= 0) prev[next[right]] = c.left;
            push(prev[c.left]);
            push(c.left);
        }
    }
    for (int32_t i = 0; i >= 0; i = next[i]) symbols.push_back(sym[i]);
}

void ByteLevelBpeTokenizer::encode_text(std::string_view text, std::vector<int64_t>& out) const {
    std::string prefixed;
    if (add_prefix_space_ && text.front() != ' ') {
        prefixed = " " + std::string(text);
        text = prefixed;
    }
    std::vector<std::string_view> pieces;
    pre_tokenizer_.split(text, pieces);
    std::vector<int32_t> symbols;
    for (std::string_view piece : pieces) {
        bool cached = false;
        {
            std::lock_guard<std::mutex> lock(cache_mutex_);
            if (auto it = cache_.find(piece); it != cache_.end()) {
                symbols = it->second;
                cached = true;
            }
        }
        if (!cached) {
            merge_word(piece, symbols);
            std::lock_guard<std::mutex> lock(cache_mutex_);
            if (cache_.size() >= kMaxCacheEntries) cache_.clear();
            cache_.emplace(std::string(piece), symbols);
        }
        for (int32_t s : symbols) {
            // A symbol outside the vocabulary (only possible with an incomplete vocab)
            // becomes <unk>, or is dropped when there is none, as HF's BPE does.
            if (s < first_extra_symbol_) {
                out.push_back(s);
            } else if (unk_id_ >= 0) {
                out.push_back(unk_id_);
            }
        }
    }
}

std::vector<int64_t> ByteLevelBpeTokenizer::encode(std::string_view text, bool add_special_tokens) const {
    // The regex runs without PCRE2's UTF check, so repair invalid input once here
    // (each bad sequence becomes U+FFFD, as Python would when decoding the bytes).
    std::string repaired;
    if (!utf8::is_valid(text)) {
        repaired = utf8::replace_invalid(text);
        text = repaired;
    }
    std::vector<int64_t> ids;
    ids.reserve(text.size() / 3 + 4);
    if (add_special_tokens) ids.insert(ids.end(), prefix_ids_.begin(), prefix_ids_.end());
    for (const TextSegment& seg : added_.split(text)) {
        if (seg.added_id >= 0) {
            ids.push_back(seg.added_id);
        } else {
            encode_text(seg.text, ids);
        }
    }
    if (add_special_tokens) ids.insert(ids.end(), suffix_ids_.begin(), suffix_ids_.end());
    return ids;
}

std::string ByteLevelBpeTokenizer::decode(const std::vector<int64_t>& ids, bool skip_special_tokens) const {
    std::string bytes;
    for (int64_t id : ids) {
        if (id < 0 || id >= vocab_size()) continue;
        if (skip_special_tokens && special_[size_t(id)]) continue;
        bytes += id_to_bytes_[size_t(id)];
    }
    // Tokens may end inside a multi-byte character; HF replaces such bytes with U+FFFD.
    return utf8::replace_invalid(bytes);
}

}  // namespace precis
