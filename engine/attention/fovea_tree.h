#pragma once
// The Fovea multi-scale block tree of one head (lsg-spec.md section 7). Exposed for tests.
#include <vector>

namespace precis {

class FoveaTree {
public:
    // k, v: token rows (row stride ld, head_dim floats used per row); key_mask: additive per
    // token (null = all attendable). Tokens beyond `tokens` (padding to a multiple of
    // block_size) are zero keys/values, masked. Level 0 node j is block j; level q node j is
    // the element-wise mean of level q-1 nodes j and j + 2^(q-1) (blocks [j, j + 2^q)).
    // A node key is valid (mask 0) if any member token at that position is valid (mask == 0),
    // else it is masked (lowest float).
    void build(const float* k, const float* v, int ld, int tokens, const float* key_mask, int block_size,
               int head_dim, int top_level);

    int levels() const { return int(keys_.size()); }
    int num_blocks() const { return num_blocks_; }
    int nodes(int level) const { return num_blocks_ - (1 << level) + 1; }
    int block_size() const { return block_size_; }
    // block_size x head_dim, row-major
    const float* key(int level, int node) const { return keys_[level].data() + node_offset(node); }
    const float* value(int level, int node) const { return values_[level].data() + node_offset(node); }
    // block_size additive mask entries
    const float* mask(int level, int node) const { return masks_[level].data() + size_t(node) * block_size_; }

private:
    size_t node_offset(int node) const { return size_t(node) * block_size_ * head_dim_; }
    int num_blocks_ = 0, block_size_ = 0, head_dim_ = 0;
    std::vector<std::vector<float>> keys_, values_, masks_;
};

}  // namespace precis
