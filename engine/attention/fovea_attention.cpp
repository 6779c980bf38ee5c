// Fovea attention (lsg-spec.md section 7, the Fovea Transformer paper) for BART.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "engine/attention/attention.h"
#include "engine/attention/attention_kernels.h"
#include "engine/attention/attention_pattern.h"
#include "engine/attention/fovea_tree.h"

namespace precis {

using attn_detail::kMaskMin;

void FoveaTree::build(const float* k, const float* v, int ld, int tokens, const float* key_mask, int block_size,
                      int head_dim, int top_level) {
    check(block_size > 0 && head_dim > 0 && tokens > 0, "FoveaTree: block_size, head_dim and tokens must be positive");
    block_size_ = block_size;
    head_dim_ = head_dim;
    num_blocks_ = (tokens + block_size - 1) / block_size;
    check(top_level >= 0 && (1 << top_level) <= num_blocks_,
          "FoveaTree: level " + std::to_string(top_level) + " does not exist with " + std::to_string(num_blocks_) +
              " blocks");
    const int BL = block_size, hd = head_dim, NB = num_blocks_;
    keys_.resize(size_t(top_level) + 1);  // resize, not assign: a rebuilt tree reuses its memory
    values_.resize(size_t(top_level) + 1);
    masks_.resize(size_t(top_level) + 1);
    keys_[0].assign(size_t(NB) * BL * hd, 0.0f);
    values_[0].assign(size_t(NB) * BL * hd, 0.0f);
    masks_[0].assign(size_t(NB) * BL, kMaskMin);
    for (int t = 0; t < tokens; ++t) {
        std::memcpy(keys_[0].data() + size_t(t) * hd, k + size_t(t) * ld, sizeof(float) * hd);
        std::memcpy(values_[0].data() + size_t(t) * hd, v + size_t(t) * ld, sizeof(float) * hd);
        masks_[0][size_t(t)] = key_mask ? key_mask[t] : 0.0f;
    }
    for (int q = 1; q <= top_level; ++q) {
        const int n = nodes(q), half = 1 << (q - 1);
        const size_t node_floats = size_t(BL) * hd;
        keys_[q].resize(size_t(n) * node_floats);
        values_[q].resize(size_t(n) * node_floats);
        masks_[q].resize(size_t(n) * BL);
        const auto& pk = keys_[q - 1];
        const auto& pv = values_[q - 1];
        const auto& pm = masks_[q - 1];
        auto& ck = keys_[q];
        auto& cv = values_[q];
        auto& cm = masks_[q];
#pragma omp parallel for schedule(static)
        for (int j = 0; j < n; ++j) {
            const float* a = pk.data() + size_t(j) * node_floats;
            const float* b = pk.data() + size_t(j + half) * node_floats;
            float* o = ck.data() + size_t(j) * node_floats;
            for (size_t e = 0; e < node_floats; ++e) o[e] = (a[e] + b[e]) * 0.5f;
            a = pv.data() + size_t(j) * node_floats;
            b = pv.data() + size_t(j + half) * node_floats;
            o = cv.data() + size_t(j) * node_floats;
            for (size_t e = 0; e < node_floats; ++e) o[e] = (a[e] + b[e]) * 0.5f;
            for (int i = 0; i < BL; ++i) {
                const bool valid = pm[size_t(j) * BL + i] == 0.0f || pm[size_t(j + half) * BL + i] == 0.0f;
                cm[size_t(j) * BL + i] = valid ? 0.0f : kMaskMin;
            }
        }
    }
}

void fovea_attention(const AttentionInput& in, const float* key_mask, int num_global, const FoveaSettings& s,
                     float* out, AttentionRecorder* recorder) {
    attn_detail::check_input(in, "fovea_attention");
    check(out != nullptr, "fovea_attention: out must not be null");
    check(num_global >= 0 && num_global < in.rows,
          "fovea_attention: num_global " + std::to_string(num_global) + " must be in [0, rows) with rows " +
              std::to_string(in.rows));
    check(s.block_size > 0, "fovea_attention: block_size must be positive (got " + std::to_string(s.block_size) + ")");
    check(s.wing >= 1, "fovea_attention: wing must be >= 1 (got " + std::to_string(s.wing) + ")");
    if (recorder) recorder->blocks.clear();
    const int G = num_global, T = in.rows - G, D = in.heads * in.head_dim, hd = in.head_dim, BL = s.block_size;
    const int NB = (T + BL - 1) / BL;
    const int top = fovea_top_level(NB, s);
    const float scale = 1.0f / std::sqrt(float(hd));
    attn_detail::BlasSingleThreadScope blas_guard;

    // Global queries see every row.
    if (G > 0) attn_detail::dense_attention_rows(in, 0, G, key_mask, out, recorder);

    std::vector<std::vector<FoveaNode>> selection(static_cast<size_t>(NB));
    for (int b = 0; b < NB; ++b) selection[size_t(b)] = fovea_select_nodes(NB, b, s);
    size_t rec_base = 0;
    if (recorder) {
        rec_base = recorder->blocks.size();
        recorder->blocks.resize(rec_base + size_t(NB));
    }
    const float* token_mask = key_mask ? key_mask + G : nullptr;
    // Heads go in groups of one per thread: each thread builds one head's tree, then all
    // threads share the (query block, head) tasks of the group. Memory: one tree per thread.
    const int group = std::max(1, std::min(in.heads, omp_get_max_threads()));
    std::vector<FoveaTree> trees(static_cast<size_t>(group));
    for (int h0 = 0; h0 < in.heads; h0 += group) {
        const int gh = std::min(group, in.heads - h0);
#pragma omp parallel
        {
#pragma omp for schedule(static, 1)
            for (int j = 0; j < gh; ++j) {
                const int h = h0 + j;
                trees[size_t(j)].build(in.k + size_t(G) * D + size_t(h) * hd, in.v + size_t(G) * D + size_t(h) * hd, D,
                                       T, token_mask, BL, hd, top);
            }
            attn_detail::BlockScratch scratch;
            std::vector<attn_detail::KeySegment> segs;
#pragma omp for schedule(dynamic, 1)
            for (int task = 0; task < NB * gh; ++task) {
                const int b = task / gh, h = h0 + task % gh;
                const FoveaTree& tree = trees[size_t(task % gh)];
                const auto& nodes = selection[size_t(b)];
                // One segment per node, read in place from the tree (each node is BL x hd).
                segs.clear();
                if (G > 0) segs.push_back({in.k + size_t(h) * hd, in.v + size_t(h) * hd, D, G, key_mask});
                for (const FoveaNode& nd : nodes)
                    segs.push_back({tree.key(nd.level, nd.start), tree.value(nd.level, nd.start), hd, BL,
                                    tree.mask(nd.level, nd.start)});
                const int q0 = G + b * BL, nq = std::min(BL, T - b * BL);
                AttentionRecorder::Block* blk =
                    (recorder && recorder->head == h) ? &recorder->blocks[rec_base + size_t(b)] : nullptr;
                attn_detail::block_attention(in.q + size_t(q0) * D + size_t(h) * hd, D, nq, segs.data(),
                                             int(segs.size()), hd, scale, out + size_t(q0) * D + size_t(h) * hd, D,
                                             scratch, blk ? &blk->weights : nullptr);
                if (blk) {
                    blk->query_begin = q0;
                    blk->query_end = q0 + nq;
                    blk->keys.clear();
                    for (int j = 0; j < G; ++j) blk->keys.push_back({j, j + 1, 1, AttentionKeyKind::Global});
                    for (const FoveaNode& nd : nodes)
                        for (int i = 0; i < BL; ++i) {
                            // rows row_begin, row_begin + BL, ... < row_end (row_end <= row_begin: padding)
                            const int r0 = G + nd.start * BL + i;
                            const int r1 = std::min(G + (nd.start + (1 << nd.level)) * BL, G + T);
                            blk->keys.push_back({r0, r1, BL, AttentionKeyKind::Fovea});
                        }
                }
            }
        }
    }
}

}  // namespace precis
