#include "engine/core/tensor.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "engine/core/huge_page_choice.h"
#include "engine/core/populate.h"

namespace precis {

int64_t shape_numel(const Shape& s) {
    // A zero dimension makes any shape empty, however large the others are.
    for (int64_t d : s)
        if (d == 0) return 0;
    int64_t n = 1;
    for (int64_t d : s)
        if (__builtin_mul_overflow(n, d, &n))
            throw Error("tensor shape " + shape_str(s) + " has more elements than 64-bit integers can count");
    return n;
}

size_t shape_nbytes(const Shape& s, DType dtype) {
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(uint64_t(shape_numel(s)), uint64_t(dtype_size(dtype)), &bytes))
        throw Error("tensor shape " + shape_str(s) + " has more bytes than 64-bit integers can count");
    return size_t(bytes);
}

std::string shape_str(const Shape& s) {
    std::ostringstream os;
    os << '[';
    for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
    os << ']';
    return os.str();
}

Tensor Tensor::empty(DType dtype, Shape shape) { return allocate(dtype, std::move(shape), false); }

// The encoder's activations (12.6 MB each for 4k tokens of bart-base) and the decoder's
// cross-attention keys and values are written whole as soon as they exist: on huge pages
// their first touch takes a few dozen page faults instead of thousands, and reading them
// takes one address translation per 2 MB instead of per 4 KB; where fresh huge pages come
// slowly (a VM whose host takes freed memory back) they are no longer offered
// (huge_page_choice.h). Either way the buffer is made resident in one call rather than a
// fault per page (on the 2-core VM we measure on, a fault cost about 12 us, and the first
// encoder layer's four 768 x 768 products went from 0.17 s to 0.06 s). Buffers only partly written
// (the decoder's self-attention cache, sized for the longest output) stay on 4 KB pages:
// there a huge page would make 2 MB resident for every few rows touched.
Tensor Tensor::empty_written_whole(DType dtype, Shape shape) { return allocate(dtype, std::move(shape), true); }

Tensor Tensor::allocate(DType dtype, Shape shape, bool written_whole) {
    for (int64_t d : shape) check(d >= 0, "negative tensor dimension in " + shape_str(shape));
    Tensor t;
    t.dtype_ = dtype;
    t.shape_ = std::move(shape);
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(uint64_t(t.numel()), uint64_t(dtype_size(dtype)), &bytes) || bytes > (uint64_t(1) << 62))
        throw Error("tensor shape " + shape_str(t.shape_) + " needs more bytes than any machine has");
    // aligned_alloc wants a size that is a multiple of the alignment (AddressSanitizer holds
    // it to that), so a huge-page buffer is rounded up to whole 2 MB pages; but only the
    // pages it fills are offered: a huge page holding the tail would make up to 2 MB
    // resident that the tensor never uses, while untouched small pages cost nothing.
    const bool huge = written_whole && bytes >= kHugePageBytes && huge_page_choice().offer();
    const uint64_t alignment = huge ? kHugePageBytes : 64;
    const uint64_t allocated = (std::max<uint64_t>(bytes, 1) + alignment - 1) / alignment * alignment;
    void* p = std::aligned_alloc(alignment, allocated);
    if (!p) throw Error("out of memory allocating a tensor of shape " + shape_str(t.shape_));
    if (huge) {
        madvise(p, bytes / kHugePageBytes * kHugePageBytes, MADV_HUGEPAGE);  // a no-op where THP is off
        huge_page_choice().populate_offered(p, bytes);  // and learns how fast they came
    } else if (written_whole && bytes >= (uint64_t(64) << 10)) {
        // Below 64 KB the memory usually comes from malloc's resident heap: nothing to gain.
        populate_for_writing(p, bytes);
    }
    t.owner_ = std::shared_ptr<const void>(p, [](const void* q) { std::free(const_cast<void*>(q)); });
    t.data_ = p;
    return t;
}

Tensor Tensor::zeros(DType dtype, Shape shape) {
    Tensor t = empty(dtype, std::move(shape));
    std::memset(t.data<void>(), 0, t.nbytes());
    return t;
}

Tensor Tensor::view(DType dtype, Shape shape, const void* data, std::shared_ptr<const void> owner) {
    for (int64_t d : shape) check(d >= 0, "negative tensor dimension in " + shape_str(shape));
    shape_nbytes(shape, dtype);  // throws when the element or byte count overflows
    Tensor t;
    t.dtype_ = dtype;
    t.shape_ = std::move(shape);
    t.data_ = data;
    t.owner_ = std::move(owner);
    return t;
}

Tensor Tensor::from_floats(Shape shape, const std::vector<float>& values) {
    Tensor t = empty(DType::F32, std::move(shape));
    check(int64_t(values.size()) == t.numel(), "from_floats: value count does not match shape");
    std::memcpy(t.data<float>(), values.data(), t.nbytes());
    return t;
}

Tensor Tensor::from_ints(Shape shape, const std::vector<int64_t>& values) {
    Tensor t = empty(DType::I64, std::move(shape));
    check(int64_t(values.size()) == t.numel(), "from_ints: value count does not match shape");
    std::memcpy(t.data<int64_t>(), values.data(), t.nbytes());
    return t;
}

Tensor Tensor::reshape(Shape shape) const {
    check(shape_numel(shape) == numel(),
          "cannot reshape " + shape_str(shape_) + " to " + shape_str(shape));
    Tensor t = *this;
    t.shape_ = std::move(shape);
    return t;
}

Tensor Tensor::clone() const {
    Tensor t = empty(dtype_, shape_);
    if (nbytes()) std::memcpy(t.data<void>(), data_, nbytes());
    return t;
}

Tensor Tensor::to_f32() const { return to(DType::F32); }

Tensor Tensor::to(DType dtype) const {
    if (dtype == dtype_) return clone();
    Tensor out = empty(dtype, shape_);
    const int64_t n = numel();
    // The conversions of whole weight matrices at load, vectorized.
    if (dtype_ == DType::F32 && dtype == DType::F16) {
        halves_from_floats(data<float>(), out.data<uint16_t>(), n);
        return out;
    }
    if (dtype_ == DType::F16 && dtype == DType::F32) {
        floats_from_halves(data<uint16_t>(), out.data<float>(), n);
        return out;
    }
    // Convert through float.
    auto get = [&](int64_t i) -> float {
        switch (dtype_) {
            case DType::F32: return data<float>()[i];
            case DType::F16: return half_to_float(data<uint16_t>()[i]);
            case DType::BF16: return bf16_to_float(data<uint16_t>()[i]);
            case DType::I64: return float(data<int64_t>()[i]);
            case DType::I32: return float(data<int32_t>()[i]);
            case DType::U8: return float(data<uint8_t>()[i]);
            case DType::I8: return float(data<int8_t>()[i]);
        }
        return 0.f;
    };
    for (int64_t i = 0; i < n; ++i) {
        float v = get(i);
        switch (dtype) {
            case DType::F32: out.data<float>()[i] = v; break;
            case DType::F16: out.data<uint16_t>()[i] = float_to_half(v); break;
            case DType::BF16: out.data<uint16_t>()[i] = float_to_bf16(v); break;
            case DType::I64: out.data<int64_t>()[i] = int64_t(v); break;
            case DType::I32: out.data<int32_t>()[i] = int32_t(v); break;
            case DType::U8: out.data<uint8_t>()[i] = uint8_t(v); break;
            case DType::I8: out.data<int8_t>()[i] = int8_t(v); break;
        }
    }
    return out;
}

std::vector<float> Tensor::to_float_vector() const {
    Tensor f = dtype_ == DType::F32 ? *this : to_f32();
    return std::vector<float>(f.data<float>(), f.data<float>() + f.numel());
}

std::vector<int64_t> Tensor::to_int_vector() const {
    std::vector<int64_t> out(static_cast<size_t>(numel()));
    for (int64_t i = 0; i < numel(); ++i) {
        switch (dtype_) {
            case DType::I64: out[i] = data<int64_t>()[i]; break;
            case DType::I32: out[i] = data<int32_t>()[i]; break;
            default: throw Error("to_int_vector: tensor is not an integer tensor");
        }
    }
    return out;
}

}  // namespace precis
