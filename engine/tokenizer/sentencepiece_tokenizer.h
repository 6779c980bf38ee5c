#pragma once
// A sentencepiece .model wrapped in Precis's Tokenizer interface, with the ids a
// BART-family checkpoint expects. Two id layouts occur in practice:
//   * "direct": the model was trained with the checkpoint's ids, e.g.
//     --bos_id=0 --pad_id=1 --eos_id=2 --unk_id=3; ids pass through unchanged.
//   * "fairseq": sentencepiece's defaults (<unk>=0, <s>=1, </s>=2) under a fairseq
//     dictionary (mBART, XLM-R): <s>=0 <pad>=1 </s>=2 <unk>=3, every other piece
//     shifted up by one. This is what HF's XLMRobertaTokenizer/MBartTokenizer do.
// In both, <mask> is the model's own "<mask>" piece if it has one, otherwise an
// extra id appended after the last piece (fairseq appends it to the dictionary).
#include <filesystem>
#include <memory>

#include "engine/tokenizer/added_tokens.h"
#include "engine/tokenizer/tokenizer.h"

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace precis {

class SentencePieceTokenizer final : public Tokenizer {
public:
    explicit SentencePieceTokenizer(const std::filesystem::path& model_file);
    ~SentencePieceTokenizer() override;

    std::vector<int64_t> encode(std::string_view text, bool add_special_tokens = true) const override;
    std::string decode(const std::vector<int64_t>& ids, bool skip_special_tokens = false) const override;
    int64_t vocab_size() const override { return vocab_size_; }
    int64_t token_to_id(std::string_view token) const override;
    std::string id_to_token(int64_t id) const override;
    std::string kind() const override { return "sentencepiece"; }

    // 1 for the fairseq layout, 0 for the direct one (see above).
    int64_t id_offset() const { return offset_; }

private:
    int64_t to_ours(int spm_id) const;
    std::filesystem::path file_;
    std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
    int64_t offset_ = 0;
    int64_t vocab_size_ = 0;
    AddedTokenSplitter specials_;  // <s> <pad> </s> <unk> <mask> as literal text
};

}  // namespace precis
