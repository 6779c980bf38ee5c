#pragma once
// Text <-> token ids, reproducing HuggingFace's tokenizers id for id. A loaded
// tokenizer is immutable and may be shared between threads as const.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace precis {

class Tokenizer {
public:
    virtual ~Tokenizer() = default;

    // Text -> ids. With add_special_tokens the ids are framed bos ... eos like HF
    // (BART: 0 ... 2). Literal special tokens in the text ("<mask>") become their ids.
    virtual std::vector<int64_t> encode(std::string_view text, bool add_special_tokens = true) const = 0;
    // Ids -> text. skip_special_tokens drops bos/eos/pad and the other special tokens
    // like HF. Ids outside the vocabulary contribute nothing.
    virtual std::string decode(const std::vector<int64_t>& ids, bool skip_special_tokens = false) const = 0;

    virtual int64_t vocab_size() const = 0;
    virtual int64_t token_to_id(std::string_view token) const = 0;  // -1 if absent
    virtual std::string id_to_token(int64_t id) const = 0;           // "" if out of range

    // -1 when the tokenizer has no such token.
    int64_t bos_id() const { return bos_id_; }
    int64_t eos_id() const { return eos_id_; }
    int64_t pad_id() const { return pad_id_; }
    int64_t unk_id() const { return unk_id_; }
    int64_t mask_id() const { return mask_id_; }

    virtual std::string kind() const = 0;  // "byte-level BPE" / "sentencepiece"

protected:
    int64_t bos_id_ = -1, eos_id_ = -1, pad_id_ = -1, unk_id_ = -1, mask_id_ = -1;
};

// Loads the tokenizer of a model folder, trying in order:
//   tokenizer.json (byte-level BPE), vocab.json + merges.txt (byte-level BPE),
//   a sentencepiece model (sentencepiece.bpe.model, spm.model, tokenizer.model,
//   else the folder's only *.model file).
// Throws precis::Error naming the file and the problem (missing files, not JSON,
// wrong structure, unsupported tokenizer type).
std::unique_ptr<Tokenizer> load_tokenizer(const std::filesystem::path& dir);

// True when `dir` holds any file load_tokenizer() reads (complete or not), so a caller
// can tell "this folder has no tokenizer" from "its tokenizer is broken".
bool has_tokenizer_files(const std::filesystem::path& dir);

}  // namespace precis
