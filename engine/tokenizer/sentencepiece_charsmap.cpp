#include "engine/tokenizer/sentencepiece_charsmap.h"

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <optional>

#include "engine/core/error.h"

namespace precis {

namespace {

// Protobuf wire format, just enough to walk fields: a reader over one message's bytes.
struct WireReader {
    std::string_view in;
    size_t pos = 0;

    std::optional<uint64_t> varint() {
        uint64_t v = 0;
        for (int shift = 0; shift < 64 && pos < in.size(); shift += 7) {
            const auto b = static_cast<uint8_t>(in[pos++]);
            v |= uint64_t(b & 0x7F) << shift;
            if (!(b & 0x80)) return v;
        }
        return std::nullopt;
    }

    // The next field: its number, and for length-delimited fields their bytes. False at
    // the end of the message or at a malformed field.
    bool next(uint32_t& field, std::optional<std::string_view>& bytes) {
        if (pos >= in.size()) return false;
        const auto tag = varint();
        if (!tag) return false;
        field = uint32_t(*tag >> 3);
        bytes.reset();
        switch (*tag & 7) {
            case 0: return varint().has_value();
            case 1: return skip(8);
            case 5: return skip(4);
            case 2: {
                const auto n = varint();
                if (!n || *n > in.size() - pos) return false;
                bytes = in.substr(pos, size_t(*n));
                pos += size_t(*n);
                return true;
            }
            default: return false;  // groups are not used by sentencepiece
        }
    }

    bool skip(size_t n) {
        if (n > in.size() - pos) return false;
        pos += n;
        return true;
    }
};

constexpr uint32_t kNormalizerSpecField = 3;    // ModelProto.normalizer_spec
constexpr uint32_t kDenormalizerSpecField = 5;  // ModelProto.denormalizer_spec
constexpr uint32_t kCharsmapField = 2;          // NormalizerSpec.precompiled_charsmap

// darts-clone's unit layout, as sentencepiece's Darts::DoubleArray reads it.
bool is_value_unit(uint32_t u) { return u >> 31; }
bool has_leaf(uint32_t u) { return (u >> 8) & 1; }
uint32_t child_offset(uint32_t u) { return (u >> 10) << ((u & (1U << 9)) >> 6); }
uint32_t value_of(uint32_t u) { return u & ((1U << 31) - 1); }

// sentencepiece keeps the matches of one lookup in a fixed array of this many and then
// reads as many as the trie reported, so no path may hold more values than this.
constexpr int kMaxMatchesPerLookup = 32;

// The trie must be a tree (a cycle matches without end) whose paths each hold at most
// kMaxMatchesPerLookup values. Depth-first from the root, without recursion: a hostile
// trie may be deep. Assumes every node's children lie inside the trie (checked before).
template <class UnitAt>
std::string path_problem(size_t units, const UnitAt& unit_at) {
    enum : uint8_t { kUnseen, kOnPath, kDone };
    std::vector<uint8_t> state(units, kUnseen);
    std::vector<int> values_below(units, 0);  // most values on a path starting below the node
    struct Frame {
        size_t node;
        int next_byte;
    };
    std::vector<Frame> path{{0, 0}};
    state[0] = kOnPath;
    while (!path.empty()) {
        Frame& f = path.back();
        const size_t base = f.node ^ child_offset(unit_at(f.node));
        if (f.next_byte > 0xFF) {
            state[f.node] = kDone;
            const size_t done = f.node;
            path.pop_back();
            if (!path.empty()) {
                const size_t parent = path.back().node;
                const int through = values_below[done] + (has_leaf(unit_at(done)) ? 1 : 0);
                values_below[parent] = std::max(values_below[parent], through);
                if (values_below[parent] > kMaxMatchesPerLookup) return "a trie path holds too many values";
            }
            continue;
        }
        const int byte = f.next_byte++;
        const size_t child = base ^ size_t(byte);
        const uint32_t cu = unit_at(child);
        if (is_value_unit(cu) || (cu & 0xFF) != uint32_t(byte)) continue;  // no such edge
        if (child == 0 || state[child] == kOnPath) return "its trie has a cycle";
        if (state[child] == kDone) {
            const int through = values_below[child] + (has_leaf(cu) ? 1 : 0);
            values_below[f.node] = std::max(values_below[f.node], through);
            if (values_below[f.node] > kMaxMatchesPerLookup) return "a trie path holds too many values";
            continue;
        }
        state[child] = kOnPath;
        path.push_back({child, 0});
    }
    return {};
}

// Empty when the map is sound, else what is wrong with it.
std::string charsmap_problem(std::string_view blob) {
    uint32_t trie_bytes = 0;
    if (blob.size() < sizeof trie_bytes) return "it is shorter than its header";
    std::memcpy(&trie_bytes, blob.data(), sizeof trie_bytes);  // little-endian, as sentencepiece writes it
    blob.remove_prefix(sizeof trie_bytes);
    if (trie_bytes >= blob.size()) return "its trie is larger than the map";
    const size_t units = trie_bytes / 4;
    const std::string_view strings = blob.substr(trie_bytes);
    // Each replacement is read with strlen: the last one must end inside the map.
    if (units == 0) return "its trie is empty";
    if (strings.empty() || strings.back() != '\0') return "its replacement strings are not terminated";
    auto unit_at = [&](size_t i) {
        uint32_t u = 0;
        std::memcpy(&u, blob.data() + 4 * i, 4);
        return u;
    };
    for (size_t p = 0; p < units; ++p) {
        const uint32_t u = unit_at(p);
        // A value unit's label never matches a byte, so lookups stop there; but every
        // lookup starts at the root, whatever kind of unit it is.
        if (is_value_unit(u) && p != 0) continue;
        const size_t base = p ^ child_offset(u);
        // A lookup goes on to base ^ byte for any byte 0..255.
        if ((base | 0xFF) >= units) return "a trie node points outside the trie";
        if (has_leaf(u) && value_of(unit_at(base)) >= strings.size())
            return "a trie value points outside the replacement strings";
    }
    return path_problem(units, unit_at);
}

}  // namespace

std::vector<std::string_view> sentencepiece_charsmaps(std::string_view serialized_model) {
    std::vector<std::string_view> maps;
    WireReader model{serialized_model};
    uint32_t field = 0;
    std::optional<std::string_view> bytes;
    while (model.next(field, bytes)) {
        if ((field != kNormalizerSpecField && field != kDenormalizerSpecField) || !bytes) continue;
        WireReader spec{*bytes};
        std::optional<std::string_view> spec_bytes;
        while (spec.next(field, spec_bytes))
            if (field == kCharsmapField && spec_bytes && !spec_bytes->empty()) maps.push_back(*spec_bytes);
    }
    return maps;
}

void check_sentencepiece_charsmaps(std::string_view serialized_model, const std::string& what) {
    for (std::string_view map : sentencepiece_charsmaps(serialized_model))
        if (const std::string problem = charsmap_problem(map); !problem.empty())
            throw Error(what + " has a damaged normalization map (" + problem + "); it cannot be loaded.");
}

}  // namespace precis
