#pragma once
// precis-bench's second measure of peak GPU memory, beside the runner's own count of its
// buffers: fills bench_device_hooks()'s peak-memory hooks with a sampler of cudaMemGetInfo
// (see the .cpp), which also sees what the runner does not count (cuBLAS's own allocations,
// the CUDA runtime's). A no-op in builds without CUDA, and when hooks are registered already.
namespace precis::gpu {

void register_device_memory_probe();

}  // namespace precis::gpu
