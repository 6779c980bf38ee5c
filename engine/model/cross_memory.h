#pragma once
// The decoder's cross-attention keys and values of one layer for one document: the
// encoder output projected once by the layer's k and v weights, then read by every
// decoding step of every beam. On long inputs they outweigh the decoder's weights in
// the bytes a step reads (bart-large, 4k tokens: 400 MB in float32 against 228 MB of
// int8 weights), so they are kept as compactly as the compute type allows:
//   fp32          float32 [heads, S, hd], the values the reference computes; where
//                 float_key_tiles_apply(hd) (attend.h: AVX-512, hd a multiple of 16) the
//                 keys as [heads, S / 16 rounded up, hd, 16] tiles instead, so that every
//                 step's queries multiply them without transposing them (AttendArgs::k_tiles);
//   fp16-weights  IEEE half [heads, S, hd] (rounding 2^-11, below the fixtures' tolerance);
//   int8          int8 [heads, S, hd] with a float scale per head and position (symmetric,
//                 max|row| / 127): a quarter of the float32 bytes. The rounding (at most
//                 1/254 of the row's largest) is of the order of the int8 weights' own.
// One head's keys are a single run of memory, which a step streams front to back. (In
// [S, D], a head's rows lie a model width apart: fp32 greedy and beam-4 steps over 16k
// LSG tokens took 1.4-1.5x as long, in alternated runs.)
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/model/compute_type.h"

namespace precis {

class Backend;
struct AttendArgs;
struct AttentionWeights;

struct CrossMemory {
    Tensor k, v;                // as above
    Tensor k_scales, v_scales;  // int8 only: [heads, S]
    int64_t S = 0, heads = 0, hd = 0;
    bool k_tiled = false;       // fp32 keys as tiles of sixteen (above)

    // Sets a's keys and values (k/v, k_tiles/v, k16/v16 or k8/v8 with scales, and their
    // strides) to head h.
    void point_at_head(AttendArgs& a, int64_t h) const;
    size_t bytes() const;
    // What bytes() will be for S positions of a compute type, before projecting (bench).
    static size_t bytes_for(int64_t S, int64_t heads, int64_t hd, ComputeType compute);
    // One position's keys and values (and int8 scales), without the fp32 tiles' padding: the
    // rate a batch plan multiplies by its documents' lengths.
    static size_t bytes_per_position(int64_t heads, int64_t hd, ComputeType compute);
};

// Projects memory [S, heads * hd] through each layer's k and v: one CrossMemory per layer,
// all of them views into one buffer. Each step reads every layer's keys and values (815 MB
// a step for 32 bart-base documents of 128-1,024 tokens), so a document's are one run of
// memory, made resident whole before it is written (Tensor::empty_written_whole) and offered
// to huge pages where they arrive fast (huge_page_choice.h). When these pages faulted in as
// they were first written, the 32-document beam-4 batch's cross-attention took 3-13 s on
// the 2-core VM we measure on, against 2.6-2.75 s on huge pages; made resident at once,
// 4 KB pages read as fast as huge ones there (2026-12-02).
// The projection is made in parts of at most 512 rows on their way to the head-major
// layout, so it never exists whole in [S, D]; `part` is that part's buffer, reused between
// calls. `buffer` (optional): on entry a buffer to write into instead of allocating one, used
// when it holds cross_memories_bytes() (DecoderState hands a leaving document's to the next
// one, see there); on return the buffer the memories view.
std::vector<CrossMemory> project_cross_memories(Backend& be, const std::vector<const AttentionWeights*>& layers,
                                                const float* memory, int64_t S, int64_t heads, int64_t hd,
                                                ComputeType compute, Tensor& part,
                                                std::shared_ptr<Tensor>* buffer = nullptr);
// The bytes of the one buffer project_cross_memories() puts `layers` layers' memories in.
size_t cross_memories_bytes(int64_t S, int64_t heads, int64_t hd, ComputeType compute, size_t layers);

// Rows [row0, row0 + rows) of a [S, heads * hd] float matrix into the same rows of a
// [heads, S, hd] layout: as they are, rounded to half, or to int8 with scales [heads, S].
// A row that is not finite gets a NaN scale, so the attention passes the NaN on as float32
// would.
void store_rows_as_floats(const float* src, int64_t rows, int64_t row0, int64_t S, int64_t heads, int64_t hd,
                          float* dst);
// The same rows of keys into [heads, S / 16 rounded up, hd, 16] tiles; the part that writes
// key S - 1 zeroes the lanes after it.
void store_rows_as_float_tiles(const float* src, int64_t rows, int64_t row0, int64_t S, int64_t heads, int64_t hd,
                               float* dst);
void store_rows_as_halves(const float* src, int64_t rows, int64_t row0, int64_t S, int64_t heads, int64_t hd,
                          uint16_t* dst);
void store_rows_as_int8(const float* src, int64_t rows, int64_t row0, int64_t S, int64_t heads, int64_t hd, int8_t* dst,
                        float* scales);

}  // namespace precis
