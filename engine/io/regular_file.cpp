#include "engine/io/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/core/checked.h"
#include "engine/core/error.h"

namespace precis {

namespace {

std::string kind_of(mode_t mode) {
    if (S_ISREG(mode)) return {};
    if (S_ISFIFO(mode)) return "a named pipe (FIFO)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISDIR(mode)) return "a folder";
    return "not a plain file";
}

[[noreturn]] void refuse(const std::string& subject, const std::string& kind) {
    throw Error(subject + " is " + kind + ", not a regular file; Precis reads only regular files");
}

}  // namespace

std::string quoted_path(const std::filesystem::path& path) {
    std::string s(1, '\'');
    s += path.string();
    s += '\'';
    return s;
}

std::string non_regular_kind(const std::filesystem::path& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return {};
    return kind_of(st.st_mode);
}

void require_regular_file(const std::filesystem::path& path, const std::string& subject) {
    if (std::string kind = non_regular_kind(path); !kind.empty()) refuse(subject, kind);
}

int open_regular_file(const std::filesystem::path& path, const std::string& subject, uint64_t* size) {
    require_regular_file(path, subject);  // before open(): opening a FIFO can block
    // O_NONBLOCK: a FIFO put in place after the check still does not block open().
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) throw Error(subject + " cannot be opened: " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int e = errno;
        ::close(fd);
        throw Error(subject + " cannot be read: " + std::strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        refuse(subject, kind_of(st.st_mode));
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (size) *size = uint64_t(st.st_size);
    return fd;
}

std::string read_regular_file(const std::filesystem::path& path, const std::string& subject, uint64_t max_bytes) {
    uint64_t size = 0;
    const int fd = open_regular_file(path, subject, &size);
    if (size > max_bytes) {
        ::close(fd);
        throw Error(subject + " is " + human_bytes(size) + "; the limit for it is " + human_bytes(max_bytes));
    }
    std::string out;
    out.resize(size_t(size));
    size_t got = 0;
    while (true) {
        if (got == out.size()) {
            // The file may have grown since fstat: read on, but never past the limit.
            if (out.size() >= max_bytes + 1) break;
            out.resize(std::min<size_t>(size_t(max_bytes) + 1, out.size() + 65536));
        }
        const ssize_t n = ::read(fd, out.data() + got, out.size() - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            const int e = errno;
            ::close(fd);
            throw Error(subject + " cannot be read: " + std::strerror(e));
        }
        if (n == 0) break;
        got += size_t(n);
    }
    ::close(fd);
    if (got > max_bytes)
        throw Error(subject + " is larger than the limit for it (" + human_bytes(max_bytes) + ")");
    out.resize(got);
    return out;
}

}  // namespace precis
