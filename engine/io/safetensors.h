#pragma once
// The safetensors format: an 8-byte little-endian header length N, N bytes of JSON
// (tensor name -> dtype, shape, data_offsets; optional "__metadata__" string map),
// then the raw little-endian tensor data.
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/byte_progress.h"
#include "engine/core/tensor.h"

namespace precis {

struct SafetensorsFile {
    std::map<std::string, Tensor> tensors;
    std::map<std::string, std::string> metadata;
};

// Memory-maps the file; every tensor is a view that keeps the map alive (a tensor whose
// data is not aligned to its element size is copied instead). The header is validated
// (length vs file size, JSON, known dtypes F32/F16/BF16/I64/I32/U8, shape vs byte span,
// offsets inside the data section, no overlaps); any violation throws precis::Error
// naming the file and, where there is one, the tensor.
SafetensorsFile read_safetensors(const std::filesystem::path& path);

// Writes the tensors in the given order, header padded with spaces to a multiple of 8.
// The data go to a temporary file in the same folder that is renamed over `path` only
// once everything was written and flushed, so a failure (full disk) never leaves a
// half-written file behind. Throws precis::Error naming the file on any failure, and
// precis::Cancelled (the temporary file removed) when `progress` asks to stop.
void write_safetensors(const std::filesystem::path& path,
                       const std::vector<std::pair<std::string, Tensor>>& tensors,
                       const std::map<std::string, std::string>& metadata = {},
                       const ByteProgress* progress = nullptr);

}  // namespace precis
