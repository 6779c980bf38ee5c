#pragma once
// Reads the state dict that torch.save writes (zip format, torch >= 1.6): a pickle
// `<top>/data.pkl` plus raw storages `<top>/data/<key>`.
//
// The unpickler is RESTRICTED: it interprets the pickle opcodes a state dict needs as
// plain data and resolves only these globals, which it implements itself:
//   collections.OrderedDict, torch._utils._rebuild_tensor_v2, torch._utils._rebuild_tensor,
//   torch._utils._rebuild_parameter, torch.{Float,Half,BFloat16,Long,Int,Byte}Storage.
// Any other global (os.system, torch.storage._load_from_bytes, ...) or object-building
// opcode is refused with an error naming it and the file. Nothing is ever executed.
#include <filesystem>
#include <map>
#include <string>

#include "engine/core/tensor.h"

namespace precis {

// Contiguous tensors are views into the memory-mapped archive (tensors sharing a storage
// share memory); non-contiguous ones are copied. Throws precis::Error naming the file.
std::map<std::string, Tensor> read_torch_checkpoint(const std::filesystem::path& bin);

}  // namespace precis
