#pragma once
// Device memory owned by one object (cudaMalloc / cudaFree), and typed views of it.
// Plain allocations only: managed memory is never used.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/cuda_check.h"

namespace precis::cuda {

// Bytes held by every DeviceBuffer of this process now, and the most since the last reset
// (the bench's peak GPU memory; cuBLAS's own workspace is a DeviceBuffer too).
uint64_t device_bytes_now();
uint64_t device_bytes_peak();
void reset_device_bytes_peak();
void count_device_bytes(int64_t delta);

class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t bytes) { resize(bytes); }
    ~DeviceBuffer() { release(); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept
        : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        if (this != &o) {
            release();
            ptr_ = std::exchange(o.ptr_, nullptr);
            bytes_ = std::exchange(o.bytes_, 0);
        }
        return *this;
    }

    // Grows (never shrinks) to at least `bytes`; old contents are not kept.
    void reserve(size_t bytes) {
        if (bytes > bytes_) resize(bytes);
    }
    void resize(size_t bytes) {
        release();
        if (bytes == 0) return;
        PRECIS_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
        bytes_ = bytes;
        count_device_bytes(int64_t(bytes));
    }
    void release() {
        if (ptr_) {
            cudaFree(ptr_);
            count_device_bytes(-int64_t(bytes_));
        }
        ptr_ = nullptr;
        bytes_ = 0;
    }

    void* get() const { return ptr_; }
    template <class T>
    T* as() const {
        return static_cast<T*>(ptr_);
    }
    size_t bytes() const { return bytes_; }

private:
    void* ptr_ = nullptr;
    size_t bytes_ = 0;
};

// Page-locked host memory (cudaHostAlloc), for the per-step copies: an asynchronous copy
// from it is a plain DMA on the stream, with no staging and no implicit wait.
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    explicit PinnedBuffer(size_t bytes) {
        if (bytes) PRECIS_CUDA_CHECK(cudaHostAlloc(&ptr_, bytes, cudaHostAllocDefault));
    }
    ~PinnedBuffer() {
        if (ptr_) cudaFreeHost(ptr_);
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)) {}
    PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
        if (this != &o) {
            if (ptr_) cudaFreeHost(ptr_);
            ptr_ = std::exchange(o.ptr_, nullptr);
        }
        return *this;
    }
    template <class T>
    T* as() const {
        return static_cast<T*>(ptr_);
    }

private:
    void* ptr_ = nullptr;
};

// Helpers for set-up and tests (not for the per-token path).
//
// `host` copied to new device memory on `stream`, ordered before what is queued there after
// it. The vector may go as soon as this returns (a pageable source is staged by then), but
// the copy may still be under way: a kernel on another stream, or a non-blocking one, is not
// ordered after it.
template <class T>
DeviceBuffer upload(const T* host, size_t count, cudaStream_t stream) {
    DeviceBuffer b(count * sizeof(T));
    if (count) PRECIS_CUDA_CHECK(cudaMemcpyAsync(b.get(), host, count * sizeof(T), cudaMemcpyHostToDevice, stream));
    return b;
}
template <class T>
DeviceBuffer upload(const std::vector<T>& host, cudaStream_t stream) {
    return upload(host.data(), host.size(), stream);
}

// The same, complete when it returns (a plain cudaMemcpy from pageable memory may return
// before its copy lands, which a non-blocking stream's kernels would not wait for).
template <class T>
DeviceBuffer upload(const std::vector<T>& host) {
    DeviceBuffer b = upload(host, nullptr);
    PRECIS_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    return b;
}

template <class T>
std::vector<T> download(const void* device, size_t count) {
    std::vector<T> host(count);
    if (count) PRECIS_CUDA_CHECK(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
}

}  // namespace precis::cuda
