#include "engine/io/torch_pickle.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "engine/io/zip_reader.h"

namespace precis {

namespace fs = std::filesystem;

namespace {

enum class Kind { None, Bool, Int, Float, Str, Bytes, Tuple, List, Dict, Global, Storage, Tensor };

// Ownership: every object lives in the unpickler's arena and containers point at their
// items without owning them. A pickle's memo can make a container hold itself (a cycle
// that reference counting would leak), and a very deep nesting would be torn down
// recursively; an arena frees everything in one flat pass, whatever the graph.
struct PyObj {
    Kind kind = Kind::None;
    DType dtype = DType::F32;    // Storage
    int32_t height = 0;          // containers: 1 + the deepest item's height when it was added
    int64_t i = 0;               // Int, Bool; Storage: numel; Tensor: index into the tensor arena
    double f = 0;                // Float
    std::string s;               // Str, Bytes, Global ("module.name"), Storage: zip entry name
    std::vector<PyObj*> items;   // Tuple, List; Dict as key, value, key, value...
};
using Obj = PyObj*;

// Limits no state dict comes near (torch.save batches dict items by 1000, and a state dict
// nests a handful of levels), so a hostile pickle is refused before it costs much memory.
constexpr size_t kMaxNesting = 1000;     // open MARKs, and container heights
constexpr size_t kMaxStack = 100000;     // objects on the stack at once
constexpr size_t kMaxObjects = size_t(4) << 20;

const char* kind_name(Kind k) {
    switch (k) {
        case Kind::None: return "None";
        case Kind::Bool: return "bool";
        case Kind::Int: return "int";
        case Kind::Float: return "float";
        case Kind::Str: return "str";
        case Kind::Bytes: return "bytes";
        case Kind::Tuple: return "tuple";
        case Kind::List: return "list";
        case Kind::Dict: return "dict";
        case Kind::Global: return "global";
        case Kind::Storage: return "storage";
        case Kind::Tensor: return "tensor";
    }
    return "?";
}

// The only globals a state dict needs. Storage classes map to their element type.
bool storage_dtype(const std::string& global, DType& out) {
    static const std::pair<const char*, DType> table[] = {
        {"torch.FloatStorage", DType::F32}, {"torch.HalfStorage", DType::F16},
        {"torch.BFloat16Storage", DType::BF16}, {"torch.LongStorage", DType::I64},
        {"torch.IntStorage", DType::I32}, {"torch.ByteStorage", DType::U8}};
    for (auto& [n, t] : table)
        if (global == n) { out = t; return true; }
    return false;
}

bool global_allowed(const std::string& g) {
    DType unused;
    return g == "collections.OrderedDict" || g == "torch._utils._rebuild_tensor_v2" ||
           g == "torch._utils._rebuild_tensor" || g == "torch._utils._rebuild_parameter" ||
           storage_dtype(g, unused);
}

class Unpickler {
public:
    Unpickler(const ZipReader& zip, std::string_view pickle, std::string prefix)
        : zip_(zip), p_(reinterpret_cast<const uint8_t*>(pickle.data())), n_(pickle.size()),
          prefix_(std::move(prefix)) {}

    Obj run();

private:
    [[noreturn]] void fail(const std::string& problem) const {
        throw Error("checkpoint '" + zip_.path().string() + "' " + problem);
    }
    Obj make(Kind k) {
        if (objects_.size() >= kMaxObjects)
            fail("has a pickle with more than " + std::to_string(kMaxObjects) +
                 " objects, far more than a state dict holds; refusing to load it");
        PyObj& o = objects_.emplace_back();
        o.kind = k;
        return &o;
    }
    Obj make_int(int64_t v) {
        Obj o = make(Kind::Int);
        o->i = v;
        return o;
    }
    Obj make_str(Kind k, std::string s) {
        Obj o = make(k);
        o->s = std::move(s);
        return o;
    }
    Obj make_tensor(Tensor t) {
        Obj o = make(Kind::Tensor);
        o->i = int64_t(tensors_.size());
        tensors_.push_back(std::move(t));
        return o;
    }
    void push(Obj o) {
        if (stack_.size() >= kMaxStack)
            fail("has a pickle that puts more than " + std::to_string(kMaxStack) +
                 " objects on its stack at once, far more than a state dict needs; refusing to load it");
        stack_.push_back(o);
    }
    // Puts `item` into `container`, keeping track of how deep the nesting gets.
    void add_item(PyObj& container, Obj item) {
        if (size_t(item->height) + 1 > size_t(container.height)) {
            if (size_t(item->height) + 1 > kMaxNesting) too_deep();
            container.height = item->height + 1;
        }
        container.items.push_back(item);
    }
    [[noreturn]] void too_deep() const {
        fail("has a pickle nested more than " + std::to_string(kMaxNesting) +
             " levels deep, which no state dict is; refusing to load it");
    }
    const uint8_t* take(size_t k) {
        if (n_ - pos_ < k) fail("has a truncated pickle (data.pkl ends inside an opcode)");
        const uint8_t* r = p_ + pos_;
        pos_ += k;
        return r;
    }
    uint64_t le(size_t k) {
        const uint8_t* b = take(k);
        uint64_t v = 0;
        for (size_t i = k; i-- > 0;) v = (v << 8) | b[i];
        return v;
    }
    std::string line() {
        size_t start = pos_;
        while (pos_ < n_ && p_[pos_] != '\n') ++pos_;
        if (pos_ >= n_) fail("has a truncated pickle (a text argument has no end of line)");
        std::string s(reinterpret_cast<const char*>(p_ + start), pos_ - start);
        ++pos_;
        return s;
    }
    std::string bytes_of(uint64_t len) {
        if (len > n_ - pos_) fail("has a truncated pickle (a string runs past the end of data.pkl)");
        const uint8_t* b = take(size_t(len));
        return std::string(reinterpret_cast<const char*>(b), size_t(len));
    }
    Obj pop() {
        if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) fail("has a malformed pickle (stack underflow)");
        Obj o = stack_.back();
        stack_.pop_back();
        return o;
    }
    Obj top() {
        if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) fail("has a malformed pickle (stack underflow)");
        return stack_.back();
    }
    std::vector<Obj> pop_mark() {
        if (marks_.empty()) fail("has a malformed pickle (no MARK on the stack)");
        size_t m = marks_.back();
        marks_.pop_back();
        std::vector<Obj> items(stack_.begin() + long(m), stack_.end());
        stack_.resize(m);
        return items;
    }
    void memo_put(uint64_t idx) { memo_[idx] = top(); }
    Obj memo_get(uint64_t idx) {
        auto it = memo_.find(idx);
        if (it == memo_.end()) fail("has a malformed pickle (memo entry " + std::to_string(idx) + " is unset)");
        return it->second;
    }
    void push_global(const std::string& module, const std::string& name) {
        const std::string g = module + "." + name;
        if (!global_allowed(g))
            fail("refers to the Python global '" + g +
                 "', which a PyTorch state dict does not need; refusing to load it (it could run code)");
        push(make_str(Kind::Global, g));
    }
    void add_items(PyObj& container, const std::vector<Obj>& items) {
        for (Obj item : items) add_item(container, item);
    }
    int64_t as_int(const Obj& o, const char* what) const {
        if (o->kind != Kind::Int && o->kind != Kind::Bool)
            fail(std::string("has a pickle where ") + what + " is a " + kind_name(o->kind) + ", not an int");
        return o->i;
    }
    Obj persistent_load(const Obj& pid);
    Obj reduce(const Obj& callable, const Obj& args);
    Obj rebuild_tensor(const std::vector<Obj>& a);

    const ZipReader& zip_;
    const uint8_t* p_;
    size_t n_;
    size_t pos_ = 0;
    std::string prefix_;
    std::deque<PyObj> objects_;  // the arena: owns every object (declared first, freed last)
    std::deque<Tensor> tensors_;
    std::vector<Obj> stack_;
    std::vector<size_t> marks_;
    std::unordered_map<uint64_t, Obj> memo_;

public:
    const Tensor& tensor_of(const PyObj& o) const { return tensors_[size_t(o.i)]; }
};

Obj Unpickler::persistent_load(const Obj& pid) {
    // ('storage', <storage class>, key, location, numel)
    if (pid->kind != Kind::Tuple || pid->items.size() != 5 || pid->items[0]->kind != Kind::Str ||
        pid->items[0]->s != "storage" || pid->items[1]->kind != Kind::Global || pid->items[2]->kind != Kind::Str)
        fail("has a persistent id that is not a torch storage reference");
    Obj st = make(Kind::Storage);
    if (!storage_dtype(pid->items[1]->s, st->dtype))
        fail("uses storage type '" + pid->items[1]->s + "', which is not supported");
    const std::string& key = pid->items[2]->s;
    st->i = as_int(pid->items[4], "a storage size");
    if (st->i < 0) fail("has storage '" + key + "' with a negative size");
    st->s = prefix_ + "data/" + key;
    const ZipEntry* e = zip_.find(st->s);
    if (!e) fail("has no data for storage '" + key + "' (missing entry '" + st->s + "')");
    if (uint64_t(st->i) > e->size / dtype_size(st->dtype))
        fail("has storage '" + key + "' with " + std::to_string(e->size) + " bytes, fewer than its " +
             std::to_string(st->i) + " " + dtype_name(st->dtype) + " elements need");
    return st;
}

Obj Unpickler::rebuild_tensor(const std::vector<Obj>& a) {
    // (storage, storage_offset, size, stride, ...)
    if (a.size() < 4 || a[0]->kind != Kind::Storage || a[2]->kind != Kind::Tuple || a[3]->kind != Kind::Tuple)
        fail("rebuilds a tensor with arguments that are not (storage, offset, size, stride)");
    const PyObj& st = *a[0];
    const int64_t offset = as_int(a[1], "a storage offset");
    Shape shape;
    std::vector<int64_t> stride;
    for (const Obj& d : a[2]->items) shape.push_back(as_int(d, "a tensor dimension"));
    for (const Obj& d : a[3]->items) stride.push_back(as_int(d, "a tensor stride"));
    if (shape.size() != stride.size()) fail("rebuilds a tensor whose size and stride differ in rank");
    if (offset < 0) fail("rebuilds a tensor with a negative storage offset");
    const size_t item = dtype_size(st.dtype);
    for (size_t i = 0; i < shape.size(); ++i)
        if (shape[i] < 0 || stride[i] < 0) fail("rebuilds a tensor with a negative size or stride");
    // The element count, multiplied with overflow checks (a zero dimension makes it 0).
    int64_t numel = 1;
    if (std::find(shape.begin(), shape.end(), 0) != shape.end()) {
        numel = 0;
    } else {
        for (int64_t d : shape)
            if (__builtin_mul_overflow(numel, d, &numel))
                fail("rebuilds a tensor of shape " + shape_str(shape) + " whose element count overflows 64-bit integers");
    }
    if (numel == 0) return make_tensor(Tensor::empty(st.dtype, shape));
    // The last element it reaches must lie inside the storage; checked term by term, so the
    // sum stays far inside 128 bits. `expect` is a suffix product of dims, at most numel.
    bool contiguous = true;
    int64_t expect = 1;
    unsigned __int128 last = uint64_t(offset);
    for (size_t i = shape.size(); i-- > 0;) {
        last += (unsigned __int128)uint64_t(shape[i] - 1) * uint64_t(stride[i]);
        if (last >= (unsigned __int128)uint64_t(st.i))
            fail("rebuilds a tensor of shape " + shape_str(shape) + " that reaches past the end of its storage ('" +
                 st.s + "', " + std::to_string(st.i) + " elements)");
        if (shape[i] != 1 && stride[i] != expect) contiguous = false;
        expect *= shape[i];
    }
    const uint8_t* base = zip_.base() + zip_.find(st.s)->offset;
    const uint8_t* first = base + size_t(offset) * item;
    if (contiguous && reinterpret_cast<uintptr_t>(first) % item == 0) {
        return make_tensor(Tensor::view(st.dtype, shape, first, zip_.owner()));
    }
    if (!contiguous && numel > st.i)
        fail("rebuilds a tensor of shape " + shape_str(shape) + " with more elements than its storage ('" + st.s +
             "'), an expanded view a state dict should not hold");
    // Non-contiguous (or misaligned): gather into a fresh row-major tensor.
    Tensor t = Tensor::empty(st.dtype, shape);
    uint8_t* dst = t.data<uint8_t>();
    const int64_t n = t.numel();
    std::vector<int64_t> idx(shape.size(), 0);
    for (int64_t k = 0; k < n; ++k) {
        int64_t src = offset;
        for (size_t d = 0; d < shape.size(); ++d) src += idx[d] * stride[d];
        std::memcpy(dst + size_t(k) * item, base + size_t(src) * item, item);
        for (size_t d = shape.size(); d-- > 0;) {
            if (++idx[d] < shape[d]) break;
            idx[d] = 0;
        }
    }
    return make_tensor(std::move(t));
}

Obj Unpickler::reduce(const Obj& callable, const Obj& args) {
    if (callable->kind != Kind::Global) fail("calls something that is not an allowed global");
    if (args->kind != Kind::Tuple) fail("calls '" + callable->s + "' with arguments that are not a tuple");
    const std::string& g = callable->s;
    const auto& a = args->items;
    if (g == "collections.OrderedDict") {
        Obj d = make(Kind::Dict);
        if (!a.empty()) {  // OrderedDict([(k, v), ...])
            if (a.size() != 1 || (a[0]->kind != Kind::List && a[0]->kind != Kind::Tuple))
                fail("builds an OrderedDict from unexpected arguments");
            for (const Obj& kv : a[0]->items) {
                if (kv->kind != Kind::Tuple || kv->items.size() != 2) fail("builds an OrderedDict from non-pairs");
                add_item(*d, kv->items[0]);
                add_item(*d, kv->items[1]);
            }
        }
        return d;
    }
    if (g == "torch._utils._rebuild_tensor_v2" || g == "torch._utils._rebuild_tensor") return rebuild_tensor(a);
    if (g == "torch._utils._rebuild_parameter") {
        if (a.empty() || a[0]->kind != Kind::Tensor) fail("rebuilds a parameter from something that is not a tensor");
        return a[0];
    }
    fail("calls '" + g + "', which is not something a state dict calls");
}

Obj Unpickler::run() {
    while (true) {
        const uint8_t op = *take(1);
        switch (op) {
            case 0x80: take(1); break;  // PROTO
            case 0x95: take(8); break;  // FRAME: framing is only a hint
            case '.': {                 // STOP
                if (stack_.size() != 1 || !marks_.empty()) fail("has a malformed pickle (stack not empty at STOP)");
                return stack_.back();
            }
            case '(':
                if (marks_.size() >= kMaxNesting) too_deep();
                marks_.push_back(stack_.size());
                break;
            case '0': pop(); break;
            case '1': pop_mark(); break;
            case '2': push(top()); break;
            case 'N': push(make(Kind::None)); break;
            case 0x88: case 0x89: {
                Obj o = make(Kind::Bool);
                o->i = op == 0x88;
                push(o);
                break;
            }
            case 'J': push(make_int(int32_t(uint32_t(le(4))))); break;
            case 'K': push(make_int(int64_t(le(1)))); break;
            case 'M': push(make_int(int64_t(le(2)))); break;
            case 0x8a: {  // LONG1: n-byte two's complement
                size_t k = size_t(le(1));
                if (k > 8) fail("has an integer too large for a state dict");
                uint64_t v = k ? le(k) : 0;
                if (k && k < 8 && (v >> (8 * k - 1)) & 1) v |= ~uint64_t(0) << (8 * k);
                push(make_int(int64_t(v)));
                break;
            }
            case 'I': {  // INT (text): also spells booleans "01"/"00"
                std::string s = line();
                Obj o;
                if (s == "01" || s == "00") {
                    o = make(Kind::Bool);
                    o->i = s == "01";
                } else {
                    try {
                        o = make_int(std::stoll(s));
                    } catch (const std::exception&) {
                        fail("has a malformed INT opcode");
                    }
                }
                push(o);
                break;
            }
            case 'G': {  // BINFLOAT, big endian
                const uint8_t* b = take(8);
                uint64_t u = 0;
                for (int i = 0; i < 8; ++i) u = (u << 8) | b[i];
                Obj o = make(Kind::Float);
                std::memcpy(&o->f, &u, 8);
                push(o);
                break;
            }
            case 'X': push(make_str(Kind::Str, bytes_of(le(4)))); break;
            case 0x8c: push(make_str(Kind::Str, bytes_of(le(1)))); break;
            case 0x8d: push(make_str(Kind::Str, bytes_of(le(8)))); break;
            case 'T': push(make_str(Kind::Str, bytes_of(le(4)))); break;  // BINSTRING
            case 'U': push(make_str(Kind::Str, bytes_of(le(1)))); break;  // SHORT_BINSTRING
            case 'B': push(make_str(Kind::Bytes, bytes_of(le(4)))); break;
            case 'C': push(make_str(Kind::Bytes, bytes_of(le(1)))); break;
            case 0x8e: push(make_str(Kind::Bytes, bytes_of(le(8)))); break;
            case ')': push(make(Kind::Tuple)); break;
            case 't': {
                Obj t = make(Kind::Tuple);
                auto items = pop_mark();
                add_items(*t, items);
                push(t);
                break;
            }
            case 0x85: case 0x86: case 0x87: {
                size_t k = size_t(op - 0x84);
                Obj t = make(Kind::Tuple);
                Obj parts[3];
                for (size_t i = k; i-- > 0;) parts[i] = pop();
                for (size_t i = 0; i < k; ++i) add_item(*t, parts[i]);
                push(t);
                break;
            }
            case ']': push(make(Kind::List)); break;
            case 'l': {
                Obj l = make(Kind::List);
                auto items = pop_mark();
                add_items(*l, items);
                push(l);
                break;
            }
            case 'a': {
                Obj v = pop();
                Obj l = top();
                if (l->kind != Kind::List) fail("has a malformed pickle (APPEND to a non-list)");
                add_item(*l, v);
                break;
            }
            case 'e': {
                auto items = pop_mark();
                Obj l = top();
                if (l->kind != Kind::List) fail("has a malformed pickle (APPENDS to a non-list)");
                add_items(*l, items);
                break;
            }
            case '}': push(make(Kind::Dict)); break;
            case 'd': {
                auto items = pop_mark();
                if (items.size() % 2) fail("has a malformed pickle (DICT with an odd item count)");
                Obj d = make(Kind::Dict);
                add_items(*d, items);
                push(d);
                break;
            }
            case 's': {
                Obj v = pop(), k = pop();
                Obj d = top();
                if (d->kind != Kind::Dict) fail("has a malformed pickle (SETITEM on a non-dict)");
                add_item(*d, k);
                add_item(*d, v);
                break;
            }
            case 'u': {
                auto items = pop_mark();
                Obj d = top();
                if (d->kind != Kind::Dict || items.size() % 2) fail("has a malformed pickle (bad SETITEMS)");
                add_items(*d, items);
                break;
            }
            case 'q': memo_put(le(1)); break;
            case 'r': memo_put(le(4)); break;
            case 0x94: memo_put(memo_.size()); break;  // MEMOIZE
            case 'h': push(memo_get(le(1))); break;
            case 'j': push(memo_get(le(4))); break;
            case 'p': case 'g': {  // PUT / GET (text)
                std::string s = line();
                uint64_t idx = 0;
                try {
                    idx = std::stoull(s);
                } catch (const std::exception&) {
                    fail("has a malformed PUT/GET opcode");
                }
                if (op == 'p') memo_put(idx); else push(memo_get(idx));
                break;
            }
            case 'c': {  // GLOBAL "module\nname\n"
                std::string module = line();
                std::string name = line();
                push_global(module, name);
                break;
            }
            case 0x93: {  // STACK_GLOBAL
                Obj name = pop(), module = pop();
                if (name->kind != Kind::Str || module->kind != Kind::Str)
                    fail("has a malformed pickle (STACK_GLOBAL without two strings)");
                push_global(module->s, name->s);
                break;
            }
            case 'Q': {  // BINPERSID
                Obj pid = pop();
                push(persistent_load(pid));
                break;
            }
            case 'R': {  // REDUCE
                Obj args = pop();
                Obj callable = pop();
                push(reduce(callable, args));
                break;
            }
            case 'b': {  // BUILD: only OrderedDict._metadata (or similar) state on a dict, ignored
                pop();
                if (top()->kind != Kind::Dict && top()->kind != Kind::Tensor)
                    fail("has a pickle that sets the state of a " + std::string(kind_name(top()->kind)) +
                         ", which a state dict never does");
                break;
            }
            default: {
                char hex[8];
                std::snprintf(hex, sizeof hex, "0x%02x", op);
                fail(std::string("uses the pickle opcode ") + hex +
                     " (object construction or an unknown opcode), which a state dict does not need; refusing to load it");
            }
        }
    }
}

}  // namespace

std::map<std::string, Tensor> read_torch_checkpoint(const fs::path& bin) {
    {
        std::shared_ptr<const MappedFile> head = MappedFile::open(bin);
        if (head->size() >= 2 && head->data()[0] == 0x80)
            throw Error("checkpoint '" + bin.string() +
                        "' uses the legacy (pre-1.6) torch.save format; re-save it with a recent PyTorch or as safetensors");
    }
    ZipReader zip(bin);
    const ZipEntry* pkl = nullptr;
    for (const ZipEntry& e : zip.entries()) {
        const std::string& n = e.name;
        if (n == "data.pkl" || (n.size() > 9 && n.compare(n.size() - 9, 9, "/data.pkl") == 0)) {
            if (pkl) throw Error("checkpoint '" + bin.string() + "' holds more than one data.pkl");
            pkl = &e;
        }
    }
    if (!pkl) throw Error("checkpoint '" + bin.string() + "' has no data.pkl entry; it is not a torch.save file");
    std::string prefix = pkl->name.substr(0, pkl->name.size() - 8);
    Unpickler u(zip, zip.data(*pkl), prefix);
    Obj root = u.run();
    if (root->kind != Kind::Dict)
        throw Error("checkpoint '" + bin.string() + "' holds a " + kind_name(root->kind) + ", not a state dict");
    std::map<std::string, Tensor> out;
    for (size_t i = 0; i + 1 < root->items.size(); i += 2) {
        const Obj& k = root->items[i];
        const Obj& v = root->items[i + 1];
        if (k->kind != Kind::Str)
            throw Error("checkpoint '" + bin.string() + "' has a state dict key that is not a string");
        if (v->kind != Kind::Tensor)
            throw Error("checkpoint '" + bin.string() + "' maps '" + k->s + "' to a " + kind_name(v->kind) +
                        ", not a tensor");
        out[k->s] = u.tensor_of(*v);
    }
    return out;
}

}  // namespace precis
