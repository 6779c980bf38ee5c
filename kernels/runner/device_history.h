#pragma once
// The token histories the search's n-gram rule reads on the device, [rows, max_length] int32.
// Only the rows' tokens so far are sent each step (a few kilobytes), not the scores, from
// pinned memory, which is rewritten only after the search has synchronized on the previous
// step.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "kernels/device_buffer.h"

namespace precis::cuda {

class DeviceHistory {
public:
    DeviceHistory(int rows, int max_length, cudaStream_t stream);

    // Every row's tokens so far (one sequence a row, start token included).
    const int32_t* upload(const std::vector<std::vector<int64_t>>& seqs);
    // The same with a pointer a row; a null row (a free slot's) sends nothing, and its rules
    // must not read a history. rows <= the rows it was made for.
    const int32_t* upload(const std::vector<const std::vector<int64_t>*>& seqs);
    int stride() const { return stride_; }

private:
    int rows_, stride_;
    cudaStream_t stream_;
    size_t count_;
    PinnedBuffer host_;
    DeviceBuffer device_;
};

}  // namespace precis::cuda
