#pragma once
// A host tensor: dtype, shape and a reference-counted storage that is either an
// owned 64-byte aligned buffer or a view into memory someone else keeps alive
// (a memory-mapped checkpoint). Row-major, always contiguous.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/dtype.h"
#include "engine/core/error.h"

namespace precis {

using Shape = std::vector<int64_t>;

// Element count; throws precis::Error when it overflows int64 (a zero dimension gives 0).
int64_t shape_numel(const Shape& s);
// Element count times the element size; throws precis::Error on overflow.
size_t shape_nbytes(const Shape& s, DType dtype);
std::string shape_str(const Shape& s);  // "[2, 3, 4]"

class Tensor {
public:
    Tensor() = default;

    static Tensor empty(DType dtype, Shape shape);  // uninitialized
    // The same for a buffer that is written whole right away (activations, cross-attention
    // keys and values): from 64 KB up its pages are made resident in one call
    // (engine/core/populate.h) instead of faulting in one by one, and from 2 MB up, while
    // huge pages arrive fast here (engine/core/huge_page_choice.h), it starts on a 2 MB
    // boundary and its whole 2 MB pages are offered to transparent huge pages.
    static Tensor empty_written_whole(DType dtype, Shape shape);
    static Tensor zeros(DType dtype, Shape shape);
    // Wraps memory kept alive by `owner` (for example an mmap); no copy.
    static Tensor view(DType dtype, Shape shape, const void* data, std::shared_ptr<const void> owner);
    static Tensor from_floats(Shape shape, const std::vector<float>& values);
    static Tensor from_ints(Shape shape, const std::vector<int64_t>& values);

    bool defined() const { return owner_ != nullptr || data_ != nullptr; }
    DType dtype() const { return dtype_; }
    const Shape& shape() const { return shape_; }
    int rank() const { return int(shape_.size()); }
    int64_t dim(int i) const { return shape_.at(i < 0 ? shape_.size() + i : i); }
    int64_t numel() const { return shape_numel(shape_); }
    size_t nbytes() const { return shape_nbytes(shape_, dtype_); }

    template <class T> T* data() { return static_cast<T*>(const_cast<void*>(data_)); }
    template <class T> const T* data() const { return static_cast<const T*>(data_); }
    const void* raw() const { return data_; }

    // Same storage, new shape (numel must match).
    Tensor reshape(Shape shape) const;
    // Deep copy converted to float32 (F16/BF16/F32/I64/I32 accepted).
    Tensor to_f32() const;
    // Deep copy in the same dtype.
    Tensor clone() const;
    // A copy converted to `dtype` (float types only).
    Tensor to(DType dtype) const;

    std::vector<float> to_float_vector() const;
    std::vector<int64_t> to_int_vector() const;

private:
    static Tensor allocate(DType dtype, Shape shape, bool written_whole);

    DType dtype_ = DType::F32;
    Shape shape_;
    const void* data_ = nullptr;
    std::shared_ptr<const void> owner_;
};

}  // namespace precis
