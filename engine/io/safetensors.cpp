#include "engine/io/safetensors.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "engine/io/json_file.h"
#include "engine/io/mapped_file.h"
#include "engine/io/temp_sibling.h"

namespace precis {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMaxHeaderBytes = uint64_t(100) << 20;  // the reference library's limit

[[noreturn]] void fail(const fs::path& path, const std::string& problem) {
    throw Error("safetensors file '" + path.string() + "' " + problem);
}

struct Entry {
    std::string name;
    DType dtype;
    Shape shape;
    uint64_t begin, end;
};

bool as_u64(const nlohmann::json& j, uint64_t& out) {
    if (j.is_number_unsigned()) { out = j.get<uint64_t>(); return true; }
    if (j.is_number_integer()) {
        int64_t v = j.get<int64_t>();
        if (v < 0) return false;
        out = uint64_t(v);
        return true;
    }
    return false;
}

Entry parse_entry(const fs::path& path, const std::string& name, const nlohmann::json& j) {
    const std::string who = "tensor '" + name + "'";
    if (!j.is_object()) fail(path, "describes " + who + " with something that is not a JSON object");
    Entry e;
    e.name = name;
    auto dt = j.find("dtype");
    if (dt == j.end() || !dt->is_string()) fail(path, "gives " + who + " no \"dtype\" string");
    if (!dtype_from_name(dt->get<std::string>(), e.dtype))
        fail(path, "gives " + who + " the unsupported dtype \"" + dt->get<std::string>() +
                       "\" (supported: F32, F16, BF16, I64, I32, U8)");
    auto sh = j.find("shape");
    if (sh == j.end() || !sh->is_array()) fail(path, "gives " + who + " no \"shape\" array");
    // numel * itemsize must fit comfortably; checked with overflow guards.
    unsigned __int128 bytes = dtype_size(e.dtype);
    for (const auto& d : *sh) {
        uint64_t v;
        if (!as_u64(d, v) || v > uint64_t(std::numeric_limits<int64_t>::max()))
            fail(path, "gives " + who + " a shape entry that is not a non-negative integer");
        e.shape.push_back(int64_t(v));
        bytes *= v;
        if (bytes > (unsigned __int128)(std::numeric_limits<int64_t>::max()))
            fail(path, "gives " + who + " an absurdly large shape " + shape_str(e.shape));
    }
    auto off = j.find("data_offsets");
    if (off == j.end() || !off->is_array() || off->size() != 2 || !as_u64((*off)[0], e.begin) ||
        !as_u64((*off)[1], e.end))
        fail(path, "gives " + who + " no valid \"data_offsets\" pair of non-negative integers");
    if (e.end < e.begin)
        fail(path, "gives " + who + " data_offsets [" + std::to_string(e.begin) + ", " +
                       std::to_string(e.end) + "] that end before they begin");
    if ((unsigned __int128)(e.end - e.begin) != bytes)
        fail(path, "gives " + who + " " + std::to_string(e.end - e.begin) + " bytes of data but its " +
                       dt->get<std::string>() + " shape " + shape_str(e.shape) + " needs " +
                       std::to_string(uint64_t(bytes)));
    return e;
}

void write_all(int fd, const void* data, size_t n, const fs::path& tmp) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
        ssize_t w = ::write(fd, p, std::min<size_t>(n, size_t(1) << 30));
        if (w < 0) {
            if (errno == EINTR) continue;
            throw Error(std::strerror(errno));
        }
        if (w == 0) throw Error("write returned 0 bytes for '" + tmp.string() + "'");
        p += w;
        n -= size_t(w);
    }
}

}  // namespace

SafetensorsFile read_safetensors(const fs::path& path) {
    std::shared_ptr<const MappedFile> map = MappedFile::open(path);
    const uint8_t* base = map->data();
    const uint64_t size = map->size();
    if (size < 8) fail(path, "is too short (" + std::to_string(size) + " bytes) to hold a header length");
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | base[i];
    if (n > size - 8)
        fail(path, "declares a header of " + std::to_string(n) + " bytes but the file has only " +
                       std::to_string(size - 8) + " bytes after the length field (truncated or not safetensors)");
    if (n > kMaxHeaderBytes)
        fail(path, "declares an absurd header length of " + std::to_string(n) + " bytes");
    if (n < 2) fail(path, "has an empty header");

    check_json_depth(std::string_view(reinterpret_cast<const char*>(base + 8), size_t(n)),
                     "safetensors file '" + path.string() + "' has a header that");
    nlohmann::json header = nlohmann::json::parse(base + 8, base + 8 + n, nullptr, false);
    if (header.is_discarded()) fail(path, "has a header that is not valid JSON");
    if (!header.is_object()) fail(path, "has a header that is not a JSON object");

    const uint64_t data_size = size - 8 - n;
    const uint8_t* data = base + 8 + n;
    SafetensorsFile out;
    std::vector<Entry> entries;
    for (auto it = header.begin(); it != header.end(); ++it) {
        if (it.key() == "__metadata__") {
            if (!it->is_object()) fail(path, "has a \"__metadata__\" entry that is not a JSON object");
            for (auto m = it->begin(); m != it->end(); ++m) {
                if (!m->is_string())
                    fail(path, "has a \"__metadata__\" value for '" + m.key() + "' that is not a string");
                out.metadata[m.key()] = m->get<std::string>();
            }
            continue;
        }
        entries.push_back(parse_entry(path, it.key(), *it));
        const Entry& e = entries.back();
        if (e.end > data_size)
            fail(path, "gives tensor '" + e.name + "' data_offsets [" + std::to_string(e.begin) + ", " +
                           std::to_string(e.end) + "] beyond the " + std::to_string(data_size) +
                           "-byte data section (truncated file or corrupt header)");
    }

    // No two tensors may share bytes.
    std::vector<const Entry*> order;
    for (const Entry& e : entries)
        if (e.end > e.begin) order.push_back(&e);
    std::sort(order.begin(), order.end(), [](const Entry* a, const Entry* b) { return a->begin < b->begin; });
    for (size_t i = 1; i < order.size(); ++i)
        if (order[i]->begin < order[i - 1]->end)
            fail(path, "has overlapping data for tensors '" + order[i - 1]->name + "' and '" + order[i]->name + "'");

    std::shared_ptr<const void> owner = map;
    for (Entry& e : entries) {
        const uint8_t* p = data + e.begin;
        const size_t item = dtype_size(e.dtype);
        Tensor t;
        if (e.end == e.begin) {
            t = Tensor::empty(e.dtype, e.shape);
        } else if (reinterpret_cast<uintptr_t>(p) % item == 0) {
            t = Tensor::view(e.dtype, e.shape, p, owner);
        } else {  // misaligned for its element type: copy into an aligned buffer
            t = Tensor::empty(e.dtype, e.shape);
            std::memcpy(t.data<void>(), p, t.nbytes());
        }
        out.tensors.emplace(e.name, std::move(t));
    }
    return out;
}

void write_safetensors(const fs::path& path, const std::vector<std::pair<std::string, Tensor>>& tensors,
                       const std::map<std::string, std::string>& metadata, const ByteProgress* progress) {
    nlohmann::ordered_json header = nlohmann::ordered_json::object();
    if (!metadata.empty()) {
        nlohmann::ordered_json m = nlohmann::ordered_json::object();
        for (const auto& [k, v] : metadata) m[k] = v;
        header["__metadata__"] = std::move(m);
    }
    std::set<std::string> seen;
    uint64_t offset = 0;
    for (const auto& [name, t] : tensors) {
        if (name == "__metadata__" || name.empty())
            throw Error("cannot write '" + path.string() + "': \"" + name + "\" is not a valid tensor name");
        if (!seen.insert(name).second)
            throw Error("cannot write '" + path.string() + "': tensor '" + name + "' appears twice");
        if (!t.defined() && t.numel() != 0)
            throw Error("cannot write '" + path.string() + "': tensor '" + name + "' has no data");
        nlohmann::ordered_json e;
        e["dtype"] = dtype_name(t.dtype());
        e["shape"] = t.shape();
        e["data_offsets"] = {offset, offset + t.nbytes()};
        header[name] = std::move(e);
        offset += t.nbytes();
    }
    std::string h = header.dump();
    h.append((8 - h.size() % 8) % 8, ' ');
    uint8_t len[8];
    for (int i = 0; i < 8; ++i) len[i] = uint8_t((uint64_t(h.size()) >> (8 * i)) & 0xff);

    const fs::path tmp = temp_sibling(path, "tmp");
    const fs::path dir = tmp.parent_path();
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        throw Error("cannot write '" + path.string() + "': creating a temporary file in '" + dir.string() +
                    "' failed: " + std::strerror(errno));
    try {
        write_all(fd, len, 8, tmp);
        write_all(fd, h.data(), h.size(), tmp);
        uint64_t written = 0;
        for (const auto& [name, t] : tensors) {
            const char* data = static_cast<const char*>(t.raw());
            for (uint64_t at = 0; at < t.nbytes(); at += kByteProgressChunk) {
                if (progress) progress->check_abort();
                const uint64_t n = std::min<uint64_t>(kByteProgressChunk, t.nbytes() - at);
                write_all(fd, data + at, n, tmp);
                written += n;
                if (progress) progress->report(written, offset);
            }
        }
        if (::fsync(fd) != 0) throw Error(std::strerror(errno));
        int rc = ::close(fd);
        fd = -1;
        if (rc != 0) throw Error(std::strerror(errno));
        std::error_code ec;
        fs::rename(tmp, path, ec);
        if (ec) throw Error(ec.message());
    } catch (const Cancelled&) {
        if (fd >= 0) ::close(fd);
        std::error_code ec;
        fs::remove(tmp, ec);
        throw;
    } catch (const Error& e) {
        if (fd >= 0) ::close(fd);
        std::error_code ec;
        fs::remove(tmp, ec);
        throw Error("cannot write '" + path.string() + "': " + e.what());
    }
}

}  // namespace precis
