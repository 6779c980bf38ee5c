#pragma once
// Device time of chosen spans of a stream (the encoder's products, for `precis bench`'s
// "products alone" column; the parts of one attention layer, for precis-attention-bench),
// measured with CUDA events and summed when asked. Off, it costs nothing; on, two events per
// span.
#include <cuda_runtime.h>

#include <vector>

namespace precis::cuda {

class SpanTimer {
public:
    ~SpanTimer();
    void enable(bool on) { on_ = on; }
    bool enabled() const { return on_; }
    void begin(cudaStream_t stream);
    void end(cudaStream_t stream);
    // end() for a destructor: where the stream has failed already, the span is dropped and
    // the failure is left to the run's next checked call (a throw here would end the program).
    void end_unchecked(cudaStream_t stream) noexcept;
    // Waits for the stream's recorded spans and returns their total in seconds; starts over.
    double collect();

private:
    cudaEvent_t event(size_t i);
    bool on_ = false;
    size_t used_ = 0;
    std::vector<cudaEvent_t> events_;
};

// Times one span when there is a timer and it is on (RAII).
class TimedSpan {
public:
    TimedSpan(SpanTimer* t, cudaStream_t s) : t_(t && t->enabled() ? t : nullptr), s_(s) {
        if (t_) t_->begin(s_);
    }
    TimedSpan(SpanTimer& t, cudaStream_t s) : TimedSpan(&t, s) {}
    ~TimedSpan() {
        if (t_) t_->end_unchecked(s_);
    }
    TimedSpan(const TimedSpan&) = delete;
    TimedSpan& operator=(const TimedSpan&) = delete;

private:
    SpanTimer* t_;
    cudaStream_t s_;
};

}  // namespace precis::cuda
