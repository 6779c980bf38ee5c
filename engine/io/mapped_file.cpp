#include "engine/io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "engine/core/error.h"
#include "engine/io/regular_file.h"

namespace precis {

std::shared_ptr<const MappedFile> MappedFile::open(const std::filesystem::path& path) {
    // A FIFO would block open() and a device never ends: only regular files are mapped.
    // O_NONBLOCK keeps open() from waiting on a FIFO swapped in after this check.
    require_regular_file(path, quoted_path(path));
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        throw Error("cannot open '" + path.string() + "': " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        int e = errno;
        ::close(fd);
        throw Error("cannot read the size of '" + path.string() + "': " + std::strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        throw Error("'" + path.string() + "' is not a regular file; Precis reads only regular files");
    }
    std::shared_ptr<MappedFile> m(new MappedFile());
    m->path_ = path;
    m->size_ = size_t(st.st_size);
    if (m->size_ > 0) {
        void* p = ::mmap(nullptr, m->size_, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            ::close(fd);
            throw Error("cannot memory-map '" + path.string() + "': " + std::strerror(e));
        }
        m->data_ = static_cast<const uint8_t*>(p);
    }
    ::close(fd);  // the mapping stays valid after the descriptor is closed
    return m;
}

MappedFile::~MappedFile() {
    if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace precis
