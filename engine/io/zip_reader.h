#pragma once
// A minimal reader of uncompressed ("stored") zip archives, as torch.save writes them.
// Reads the central directory (zip64 when present); entries are byte ranges inside a
// memory map of the archive. Compressed or encrypted entries are rejected.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/io/mapped_file.h"

namespace precis {

struct ZipEntry {
    std::string name;
    uint64_t offset = 0;  // of the entry's data, from the start of the archive
    uint64_t size = 0;
};

class ZipReader {
public:
    // Throws precis::Error naming the file if it is not a zip archive this reader handles.
    explicit ZipReader(const std::filesystem::path& path);

    const std::vector<ZipEntry>& entries() const { return entries_; }
    const ZipEntry* find(std::string_view name) const;  // nullptr when absent
    // The bytes of an entry; valid while this reader or a copy of owner() lives.
    std::string_view data(const ZipEntry& e) const;
    const uint8_t* base() const { return map_->data(); }
    std::shared_ptr<const void> owner() const { return map_; }
    const std::filesystem::path& path() const { return map_->path(); }

private:
    std::shared_ptr<const MappedFile> map_;
    std::vector<ZipEntry> entries_;
};

}  // namespace precis
