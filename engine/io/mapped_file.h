#pragma once
// A read-only memory map of a whole file. Tensors loaded from checkpoints are views into
// it; they keep the map alive through `owner()`, and the last one to go unmaps the file.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>

namespace precis {

class MappedFile {
public:
    // Throws precis::Error naming the file when it cannot be opened or mapped.
    // An empty file is mapped as zero bytes (data() is then nullptr).
    static std::shared_ptr<const MappedFile> open(const std::filesystem::path& path);

    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const uint8_t* data() const { return data_; }
    size_t size() const { return size_; }
    const std::filesystem::path& path() const { return path_; }

private:
    MappedFile() = default;
    const uint8_t* data_ = nullptr;
    size_t size_ = 0;
    std::filesystem::path path_;
};

}  // namespace precis
