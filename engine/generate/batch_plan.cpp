#include "engine/generate/batch_plan.h"

#include <algorithm>
#include <numeric>

#include "engine/core/checked.h"
#include "engine/model/bart_weights.h"
#include "engine/model/decoder.h"
#include "engine/model/model.h"

namespace precis {

bool BatchLimits::halve() {
    if (max_documents <= 1) return false;
    max_documents /= 2;
    return true;
}

std::vector<int> longest_first(const std::vector<int>& lengths) {
    std::vector<int> order(lengths.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return lengths[size_t(a)] > lengths[size_t(b)]; });
    return order;
}

std::vector<std::vector<int>> group_in_order(const std::vector<int>& order, const std::vector<int>& lengths,
                                             int max_documents, int64_t token_budget,
                                             const std::function<bool(int, int)>& together) {
    std::vector<std::vector<int>> groups;
    int64_t longest = 0;
    for (int doc : order) {
        const int64_t len = lengths[size_t(doc)];
        const bool fits = !groups.empty() && int(groups.back().size()) < std::max(1, max_documents) &&
                          (token_budget <= 0 || std::max(longest, len) * int64_t(groups.back().size() + 1) <= token_budget) &&
                          (!together || together(groups.back().front(), doc));
        if (!fits) {
            groups.emplace_back();
            longest = 0;
        }
        groups.back().push_back(doc);
        longest = std::max(longest, len);
    }
    return groups;
}

uint64_t decoder_step_weight_bytes(const BartWeights& w) {
    auto lin = [](const LinearWeights& l) {
        return uint64_t(l.weight.defined() ? l.weight.nbytes() : 0) + (l.scales.defined() ? l.scales.nbytes() : 0);
    };
    uint64_t n = lin(w.lm_head);
    // The cross-attention keys' and values' weights are read once per document, when it joins.
    for (const auto& l : w.decoder_layers)
        n += lin(l.self_attn.q) + lin(l.self_attn.k) + lin(l.self_attn.v) + lin(l.self_attn.out) + lin(l.cross_attn.q) +
             lin(l.cross_attn.out) + lin(l.fc1) + lin(l.fc2);
    return n;
}

DocumentCost document_cost(const Model& model, int max_length) {
    DocumentCost c;
    c.per_row = DecoderState::bytes_for_rows(model, 1, max_length);
    // The cross-attention keys/values, plus the float32 encoder output a document keeps
    // until its summary is made (the source passages are computed from it).
    c.read_per_memory_row = DecoderState::bytes_per_memory_row(model);
    c.per_memory_row = c.read_per_memory_row + uint64_t(model.config().d_model) * 4;
    return c;
}

int step_rows_target(ComputeType compute, bool device) {
    if (device) return 256;
    return compute == ComputeType::Fp32 ? 64 : 128;
}

BatchLimits auto_batch_limits(const DocumentCost& cost, int beams, int64_t longest_memory_rows, int documents,
                              uint64_t free_bytes, int rows_target) {
    BatchLimits l;
    l.automatic = true;
    // Half of what is free: the encoder of the next document, the tokenizer and whatever
    // else the machine runs need the rest.
    l.memory_bytes = free_bytes / 2;
    const uint64_t one = cost.per_row * uint64_t(std::max(beams, 1)) +
                         cost.per_memory_row * uint64_t(std::max<int64_t>(longest_memory_rows, 1));
    int by_rows = std::max(1, rows_target / std::max(beams, 1));
    if (cost.shared_step_bytes > 0) {
        const uint64_t own = cost.read_per_memory_row * uint64_t(std::max<int64_t>(longest_memory_rows, 1));
        by_rows = std::min<uint64_t>(by_rows, std::max<uint64_t>(1, kSharedReadsFactor * cost.shared_step_bytes / std::max<uint64_t>(own, 1)));
    }
    int by_memory = l.memory_bytes == 0 ? by_rows : int(std::min<uint64_t>(l.memory_bytes / std::max<uint64_t>(one, 1), 1 << 20));
    l.max_documents = std::max(1, std::min({by_rows, by_memory, std::max(documents, 1)}));
    return l;
}

BatchLimits fixed_batch_limits(int documents, uint64_t free_bytes) {
    BatchLimits l;
    l.max_documents = std::max(1, documents);
    l.memory_bytes = free_bytes / 2;
    return l;
}

std::string describe(const BatchLimits& l) {
    std::string s = std::to_string(l.max_documents) + (l.max_documents == 1 ? " document" : " documents");
    if (l.automatic) s += " (auto";
    if (l.memory_bytes) s += std::string(l.automatic ? ", " : " (") + "within " + human_bytes(l.memory_bytes);
    if (l.automatic || l.memory_bytes) s += ")";
    return s;
}

}  // namespace precis
