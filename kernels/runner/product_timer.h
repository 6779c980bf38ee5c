#pragma once
// Device time of chosen spans of a stream (the encoder's products, for `precis bench`'s
// "products alone" column), measured with CUDA events and summed when asked. Off, it costs
// nothing; on, two events per span.
#include <cuda_runtime.h>

#include <vector>

namespace precis::cuda {

class ProductTimer {
public:
    ~ProductTimer();
    void enable(bool on) { on_ = on; }
    bool enabled() const { return on_; }
    void begin(cudaStream_t stream);
    void end(cudaStream_t stream);
    // Waits for the stream's recorded spans and returns their total in seconds; starts over.
    double collect();

private:
    cudaEvent_t event(size_t i);
    bool on_ = false;
    size_t used_ = 0;
    std::vector<cudaEvent_t> events_;
};

// Times one span when the timer is on (RAII).
class TimedSpan {
public:
    TimedSpan(ProductTimer& t, cudaStream_t s) : t_(t), s_(s) {
        if (t_.enabled()) t_.begin(s_);
    }
    ~TimedSpan() {
        if (t_.enabled()) t_.end(s_);
    }

private:
    ProductTimer& t_;
    cudaStream_t s_;
};

}  // namespace precis::cuda
