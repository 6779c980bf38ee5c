#include "kernels/span_timer.h"

#include "kernels/cuda_check.h"

namespace precis::cuda {

SpanTimer::~SpanTimer() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
}

cudaEvent_t SpanTimer::event(size_t i) {
    while (events_.size() <= i) {
        cudaEvent_t e;
        PRECIS_CUDA_CHECK(cudaEventCreate(&e));
        events_.push_back(e);
    }
    return events_[i];
}

void SpanTimer::begin(cudaStream_t stream) {
    try {
        PRECIS_CUDA_CHECK(cudaEventRecord(event(used_++), stream));
    } catch (...) {
        --used_;  // no span began: collect() pairs the events two by two
        throw;
    }
}
void SpanTimer::end(cudaStream_t stream) { PRECIS_CUDA_CHECK(cudaEventRecord(event(used_++), stream)); }

void SpanTimer::end_unchecked(cudaStream_t stream) noexcept {
    try {
        end(stream);
    } catch (...) {
        used_ = used_ >= 2 ? used_ - 2 : 0;  // end() counted its event: the span's two go
    }
}

double SpanTimer::collect() {
    double total_ms = 0;
    for (size_t i = 0; i + 1 < used_; i += 2) {
        PRECIS_CUDA_CHECK(cudaEventSynchronize(events_[i + 1]));
        float ms = 0;
        PRECIS_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[i], events_[i + 1]));
        total_ms += ms;
    }
    used_ = 0;
    return total_ms / 1000.0;
}

}  // namespace precis::cuda
