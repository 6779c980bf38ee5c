#pragma once
// How much of a document the encoder reads: the rules shared by summarizing,
// classifying and the GUI's re-tracing of source passages, so they all read the same
// tokens.
#include <cstdint>
#include <string_view>
#include <vector>

namespace precis {

class Model;
class Tokenizer;
struct AttentionOptions;

// The model's tokenizer; throws precis::Error naming the model folder when it has none.
const Tokenizer& require_tokenizer(const Model& model);

// True when the text holds nothing but whitespace.
bool is_blank(std::string_view text);

// Longest input the encoder reads: the position table (rounded down to a multiple of the
// block size for LSG, whose adaptive padding must stay inside the table), capped by
// `requested` when it is positive.
int readable_input_tokens(const Model& model, const AttentionOptions& attention, int requested = 0);

// Keeps the first max-1 tokens and the final eos, as a truncating tokenizer does.
std::vector<int64_t> truncate_ids(const std::vector<int64_t>& ids, int max_tokens, int64_t eos);

}  // namespace precis
