#include "engine/io/zip_reader.h"

#include <algorithm>

#include "engine/core/error.h"

namespace precis {

namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50, kZip64LocatorSig = 0x07064b50;

uint64_t rd(const uint8_t* p, int bytes) {
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

[[noreturn]] void zip_fail(const std::filesystem::path& path, const std::string& problem) {
    throw Error("checkpoint '" + path.string() + "' " + problem);
}

}  // namespace

ZipReader::ZipReader(const std::filesystem::path& path) : map_(MappedFile::open(path)) {
    const uint8_t* b = map_->data();
    const uint64_t size = map_->size();
    if (size < 22) zip_fail(path, "is too short to be a zip archive");

    // The end-of-central-directory record sits in the last 22 + 65535 bytes.
    uint64_t eocd = UINT64_MAX;
    uint64_t lowest = size > 22 + 65535 ? size - 22 - 65535 : 0;
    for (uint64_t p = size - 22 + 1; p-- > lowest;) {
        if (rd(b + p, 4) == kEndSig && p + 22 + rd(b + p + 20, 2) <= size) {
            eocd = p;
            break;
        }
    }
    if (eocd == UINT64_MAX) zip_fail(path, "is not a zip archive (no end-of-central-directory record)");
    if (rd(b + eocd + 4, 2) != 0 || rd(b + eocd + 6, 2) != 0) zip_fail(path, "is a multi-disk zip archive");
    uint64_t count = rd(b + eocd + 10, 2);
    uint64_t cd_size = rd(b + eocd + 12, 4);
    uint64_t cd_offset = rd(b + eocd + 16, 4);
    if (count == 0xffff || cd_size == 0xffffffff || cd_offset == 0xffffffff) {
        if (eocd < 20 || rd(b + eocd - 20, 4) != kZip64LocatorSig)
            zip_fail(path, "needs zip64 but has no zip64 locator");
        uint64_t z = rd(b + eocd - 20 + 8, 8);
        if (z > size || size - z < 56 || rd(b + z, 4) != kZip64EndSig)
            zip_fail(path, "has a broken zip64 end-of-central-directory record");
        count = rd(b + z + 32, 8);
        cd_size = rd(b + z + 40, 8);
        cd_offset = rd(b + z + 48, 8);
    }
    if (cd_offset > size || cd_size > size - cd_offset) zip_fail(path, "has a central directory outside the file");
    if (count > cd_size / 46) zip_fail(path, "declares more entries than its central directory can hold");

    uint64_t p = cd_offset;
    const uint64_t cd_end = cd_offset + cd_size;
    entries_.reserve(count);
    for (uint64_t i = 0; i < count; ++i) {
        if (cd_end - p < 46 || rd(b + p, 4) != kCentralSig) zip_fail(path, "has a corrupt central directory");
        const uint64_t flags = rd(b + p + 8, 2), method = rd(b + p + 10, 2);
        uint64_t csize = rd(b + p + 20, 4), usize = rd(b + p + 24, 4);
        const uint64_t nlen = rd(b + p + 28, 2), xlen = rd(b + p + 30, 2), clen = rd(b + p + 32, 2);
        uint64_t local = rd(b + p + 42, 4);
        if (cd_end - p < 46 + nlen + xlen + clen) zip_fail(path, "has a corrupt central directory");
        ZipEntry e;
        e.name.assign(reinterpret_cast<const char*>(b + p + 46), nlen);
        // zip64 extra field: the 0xffffffff fields, in order usize, csize, local offset.
        const uint8_t* x = b + p + 46 + nlen;
        for (uint64_t q = 0; q + 4 <= xlen;) {
            uint64_t id = rd(x + q, 2), len = rd(x + q + 2, 2);
            if (q + 4 + len > xlen) break;
            if (id == 0x0001) {
                uint64_t r = q + 4;
                auto take = [&](uint64_t& field) {
                    if (field != 0xffffffff) return;
                    if (r + 8 > q + 4 + len) zip_fail(path, "has a truncated zip64 field for entry '" + e.name + "'");
                    field = rd(x + r, 8);
                    r += 8;
                };
                take(usize);
                take(csize);
                take(local);
            }
            q += 4 + len;
        }
        if (flags & 1) zip_fail(path, "has an encrypted entry '" + e.name + "'");
        if (method != 0)
            zip_fail(path, "has a compressed entry '" + e.name + "' (method " + std::to_string(method) +
                 "); only uncompressed archives as written by torch.save are supported");
        if (csize != usize) zip_fail(path, "has a stored entry '" + e.name + "' whose sizes disagree");
        if (local > size || size - local < 30 || rd(b + local, 4) != kLocalSig)
            zip_fail(path, "has a bad local header for entry '" + e.name + "'");
        const uint64_t data = local + 30 + rd(b + local + 26, 2) + rd(b + local + 28, 2);
        if (data > size || usize > size - data) zip_fail(path, "has entry '" + e.name + "' extending past the end of the file");
        e.offset = data;
        e.size = usize;
        entries_.push_back(std::move(e));
        p += 46 + nlen + xlen + clen;
    }
}

const ZipEntry* ZipReader::find(std::string_view name) const {
    auto it = std::find_if(entries_.begin(), entries_.end(), [&](const ZipEntry& e) { return e.name == name; });
    return it == entries_.end() ? nullptr : &*it;
}

std::string_view ZipReader::data(const ZipEntry& e) const {
    return std::string_view(reinterpret_cast<const char*>(map_->data() + e.offset), e.size);
}

}  // namespace precis
