#include "engine/tokenizer/sentencepiece_tokenizer.h"

#include <sentencepiece_processor.h>

#include "engine/core/error.h"
#include "engine/io/json_file.h"
#include "engine/io/regular_file.h"
#include "engine/tokenizer/sentencepiece_charsmap.h"

namespace precis {

SentencePieceTokenizer::SentencePieceTokenizer(const std::filesystem::path& model_file)
    : file_(model_file), sp_(std::make_unique<sentencepiece::SentencePieceProcessor>()) {
    // Read here, not by sentencepiece: a FIFO or /dev/zero must be refused, not read forever.
    const std::string bytes =
        read_regular_file(model_file, "the sentencepiece model " + model_file.string(), kMaxTokenizerFileBytes);
    check_sentencepiece_charsmaps(bytes, "the sentencepiece model " + model_file.string());
    sentencepiece::util::Status status;
    try {
        status = sp_->LoadFromSerializedProto(bytes);
    } catch (const std::exception& e) {  // its trie builder throws on some pieces (one that is a NUL byte)
        throw Error("the sentencepiece model " + model_file.string() + " cannot be loaded: " + e.what() + ".");
    }
    if (!status.ok())
        throw Error("the sentencepiece model " + model_file.string() + " cannot be loaded: " + status.ToString() + ".");
    const int n = sp_->GetPieceSize();
    if (n <= 0) throw Error("the sentencepiece model " + model_file.string() + " has an empty vocabulary.");

    // sentencepiece's default reserved ids mean the fairseq layout; anything else
    // was chosen on purpose when training, so those ids are used as they are.
    const bool fairseq = sp_->unk_id() == 0 && sp_->bos_id() == 1 && sp_->eos_id() == 2 && sp_->pad_id() < 0;
    offset_ = fairseq ? 1 : 0;
    std::vector<AddedToken> specials;
    auto add = [&](int64_t id, std::string content, bool lstrip) {
        if (id >= 0) specials.push_back({std::move(content), id, lstrip, false, true});
        return id;
    };
    if (fairseq) {
        bos_id_ = add(0, "<s>", false);
        pad_id_ = add(1, "<pad>", false);
        eos_id_ = add(2, "</s>", false);
        unk_id_ = add(3, "<unk>", false);
    } else {
        auto piece = [&](int id) { return id >= 0 && id < n ? sp_->IdToPiece(id) : std::string(); };
        bos_id_ = add(sp_->bos_id(), piece(sp_->bos_id()), false);
        pad_id_ = add(sp_->pad_id(), piece(sp_->pad_id()), false);
        eos_id_ = add(sp_->eos_id(), piece(sp_->eos_id()), false);
        unk_id_ = add(sp_->unk_id(), piece(sp_->unk_id()), false);
    }
    vocab_size_ = n + offset_;
    // <mask> swallows the spaces before it, as in HF's BART/XLM-R tokenizers.
    const int mask_piece = sp_->PieceToId("<mask>");
    if (mask_piece != sp_->unk_id() || sp_->IdToPiece(mask_piece) == "<mask>") {
        mask_id_ = add(mask_piece + offset_, "<mask>", true);
    } else {
        mask_id_ = add(vocab_size_++, "<mask>", true);
    }
    specials_ = AddedTokenSplitter(std::move(specials));
}

SentencePieceTokenizer::~SentencePieceTokenizer() = default;

int64_t SentencePieceTokenizer::to_ours(int spm_id) const {
    return spm_id == sp_->unk_id() ? unk_id_ : spm_id + offset_;
}

std::vector<int64_t> SentencePieceTokenizer::encode(std::string_view text, bool add_special_tokens) const {
    std::vector<int64_t> ids;
    if (add_special_tokens && bos_id_ >= 0) ids.push_back(bos_id_);
    std::vector<int> pieces;
    // Special tokens are cut out first and each text piece is encoded on its own,
    // like HF's slow sentencepiece tokenizers (each piece gets the "▁" prefix).
    for (const TextSegment& seg : specials_.split(text)) {
        if (seg.added_id >= 0) {
            ids.push_back(seg.added_id);
            continue;
        }
        if (const auto status = sp_->Encode(std::string(seg.text), &pieces); !status.ok())
            throw Error("the sentencepiece model " + file_.string() + " failed to encode text: " + status.ToString() + ".");
        for (int p : pieces) ids.push_back(to_ours(p));
    }
    if (add_special_tokens && eos_id_ >= 0) ids.push_back(eos_id_);
    return ids;
}

std::string SentencePieceTokenizer::decode(const std::vector<int64_t>& ids, bool skip_special_tokens) const {
    std::string out, text;
    bool had_text = false;
    std::vector<int> run;  // consecutive ordinary pieces, decoded together so "▁" becomes spaces
    auto flush = [&] {
        if (run.empty()) return;
        if (const auto status = sp_->Decode(run, &text); !status.ok())
            throw Error("the sentencepiece model " + file_.string() + " failed to decode ids: " + status.ToString() + ".");
        // sentencepiece drops the leading "▁" of what it decodes (the dummy prefix);
        // when text came before the special token in between, that "▁" is a real
        // space between words, so keep it.
        if (had_text && (text.empty() || text.front() != ' ') &&
            sp_->IdToPiece(run.front()).rfind("\xE2\x96\x81", 0) == 0)
            out += ' ';
        out += text;
        had_text = true;
        run.clear();
    };
    for (int64_t id : ids) {
        if (id < 0 || id >= vocab_size_) continue;
        if (const AddedToken* special = specials_.find_id(id)) {
            if (skip_special_tokens) continue;
            flush();
            out += special->content;
            continue;
        }
        run.push_back(int(id - offset_));
    }
    flush();
    return out;
}

int64_t SentencePieceTokenizer::token_to_id(std::string_view token) const {
    if (const AddedToken* special = specials_.find_content(token)) return special->id;
    const int id = sp_->PieceToId(std::string(token));
    if (id == sp_->unk_id() && sp_->IdToPiece(id) != token) return -1;  // PieceToId answers unk for unknown pieces
    return to_ours(id);
}

std::string SentencePieceTokenizer::id_to_token(int64_t id) const {
    if (id < 0 || id >= vocab_size_) return {};
    if (const AddedToken* special = specials_.find_id(id)) return special->content;
    const int64_t piece = id - offset_;
    if (piece < 0 || piece >= sp_->GetPieceSize()) return {};
    return sp_->IdToPiece(int(piece));
}

}  // namespace precis
