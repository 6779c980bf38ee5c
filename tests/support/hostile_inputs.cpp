#include "tests/support/hostile_inputs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <future>
#include <stdexcept>
#include <thread>

namespace precis::test {

namespace fs = std::filesystem;

namespace {

void put(std::string& s, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) s.push_back(char((v >> (8 * i)) & 0xff));
}

}  // namespace

void write_file(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string deep_json(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string json_object_with_deep_value(const std::string& key, size_t depth) {
    return "{\"" + key + "\": " + deep_json(depth) + "}";
}

std::string make_zip(const std::vector<std::pair<std::string, std::string>>& files, uint16_t method, bool align) {
    std::string out, cd;
    for (const auto& [name, data] : files) {
        const uint64_t local = out.size();
        size_t pad = 0;
        if (align) pad = (64 - (local + 30 + name.size() + 4) % 64) % 64 + 4;
        put(out, 0x04034b50, 4);
        put(out, 20, 2);
        put(out, 0, 2);
        put(out, method, 2);
        put(out, 0, 4);  // time, date
        put(out, 0, 4);  // crc (not checked)
        put(out, data.size(), 4);
        put(out, data.size(), 4);
        put(out, name.size(), 2);
        put(out, pad, 2);
        out += name;
        if (pad) {
            put(out, 0x5043, 2);  // a private extra-field id, as torch's "FB" padding
            put(out, pad - 4, 2);
            out += std::string(pad - 4, 'Z');
        }
        out += data;
        put(cd, 0x02014b50, 4);
        put(cd, 20, 2);
        put(cd, 20, 2);
        put(cd, 0, 2);
        put(cd, method, 2);
        put(cd, 0, 4);
        put(cd, 0, 4);
        put(cd, data.size(), 4);
        put(cd, data.size(), 4);
        put(cd, name.size(), 2);
        put(cd, 0, 2);
        put(cd, 0, 2);
        put(cd, 0, 2);
        put(cd, 0, 2);
        put(cd, 0, 4);
        put(cd, local, 4);
        cd += name;
    }
    const uint64_t cd_offset = out.size();
    out += cd;
    put(out, 0x06054b50, 4);
    put(out, 0, 4);
    put(out, files.size(), 2);
    put(out, files.size(), 2);
    put(out, cd.size(), 4);
    put(out, cd_offset, 4);
    put(out, 0, 2);
    return out;
}

std::string torch_zip(const std::string& pickle, const std::vector<std::pair<std::string, std::string>>& storages) {
    std::vector<std::pair<std::string, std::string>> files{{"archive/data.pkl", pickle}};
    for (const auto& [key, bytes] : storages) files.emplace_back("archive/data/" + key, bytes);
    return make_zip(files);
}

std::string deep_list_pickle(size_t depth) {
    std::string p("\x80\x02", 2);
    p.append(depth, ']');
    p.append(depth - 1, 'a');
    return p + ".";
}

std::string deep_marked_list_pickle(size_t depth) {
    std::string p("\x80\x02", 2);
    for (size_t i = 0; i + 1 < depth; ++i) p += "](";
    p += ']';
    p.append(depth - 1, 'e');
    return p + ".";
}

std::string self_containing_list_pickle() {
    // EMPTY_LIST, BINPUT 0, BINGET 0, APPEND, STOP
    return std::string("\x80\x02]q\x00h\x00" "a.", 9);
}

void make_fifo(const fs::path& path) {
    std::error_code ec;
    fs::remove(path, ec);
    if (::mkfifo(path.c_str(), 0644) != 0) throw std::runtime_error("mkfifo " + path.string() + " failed");
}

std::string error_within(const std::function<void()>& fn, const fs::path& fifo, double seconds) {
    std::promise<std::string> done;
    std::future<std::string> result = done.get_future();
    std::thread worker([&fn, p = std::move(done)]() mutable {
        try {
            fn();
            p.set_value("(no error)");
        } catch (const std::exception& e) {
            p.set_value(e.what());
        } catch (...) {
            p.set_value("(an exception that is not a std::exception)");
        }
    });
    if (result.wait_for(std::chrono::duration<double>(seconds)) != std::future_status::ready) {
        ADD_FAILURE() << "still running after " << seconds << " s (blocked on " << fifo << "?)";
        if (!fifo.empty()) {  // release a reader blocked in open() or read()
            const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
            if (fd >= 0) ::close(fd);
        }
    }
    worker.join();
    return result.get();
}

}  // namespace precis::test
