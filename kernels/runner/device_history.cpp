#include "kernels/runner/device_history.h"

#include <algorithm>

#include "engine/core/error.h"
#include "kernels/cuda_check.h"

namespace precis::cuda {

DeviceHistory::DeviceHistory(int rows, int max_length, cudaStream_t stream)
    : rows_(rows), stride_(max_length), stream_(stream), count_(size_t(rows) * size_t(max_length)),
      host_(count_ * sizeof(int32_t)), device_(count_ * sizeof(int32_t)) {
    std::fill_n(host_.as<int32_t>(), count_, 0);
}

const int32_t* DeviceHistory::upload(const std::vector<std::vector<int64_t>>& seqs) {
    check(int(seqs.size()) == rows_, "search: one token history per row is required");
    std::vector<const std::vector<int64_t>*> rows;
    for (const std::vector<int64_t>& s : seqs) rows.push_back(&s);
    return upload(rows);
}

const int32_t* DeviceHistory::upload(const std::vector<const std::vector<int64_t>*>& seqs) {
    check(int(seqs.size()) <= rows_, "search: more token histories than rows");
    int32_t* h = host_.as<int32_t>();
    size_t used = 0;  // the longest history so far: the rest of each row is not read
    for (size_t r = 0; r < seqs.size(); ++r) {
        if (!seqs[r]) continue;
        const std::vector<int64_t>& seq = *seqs[r];
        const size_t len = std::min(seq.size(), size_t(stride_));
        for (size_t i = 0; i < len; ++i) h[r * size_t(stride_) + i] = int32_t(seq[i]);
        used = std::max(used, r * size_t(stride_) + len);
    }
    if (used > 0)
        PRECIS_CUDA_CHECK(
            cudaMemcpyAsync(device_.get(), h, used * sizeof(int32_t), cudaMemcpyHostToDevice, stream_));
    return device_.as<int32_t>();
}

}  // namespace precis::cuda
