#include "engine/pipeline/input_text.h"

#include <algorithm>
#include <cctype>

#include "engine/model/model.h"
#include "engine/model/run_options.h"

namespace precis {

const Tokenizer& require_tokenizer(const Model& model) {
    if (!model.tokenizer())
        throw Error("model " + model.path().string() + " has no tokenizer files, so it cannot read text");
    return *model.tokenizer();
}

bool is_blank(std::string_view text) {
    return std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c) != 0; });
}

int readable_input_tokens(const Model& model, const AttentionOptions& attention, int requested) {
    int limit = model.max_input_tokens();
    if (requested > 0) limit = std::min(limit, requested);
    const int B = attention.lsg.block_size;
    if (attention.kind == EncoderAttention::Lsg && B > 0 && limit > 2 * B) limit = limit / B * B;
    return limit;
}

std::vector<int64_t> truncate_ids(const std::vector<int64_t>& ids, int max_tokens, int64_t eos) {
    if (int(ids.size()) <= max_tokens) return ids;
    std::vector<int64_t> out(ids.begin(), ids.begin() + (max_tokens - 1));
    out.push_back(eos);
    return out;
}

}  // namespace precis
