#pragma once
// Every file Precis reads from a user's folder goes through here first. Only regular
// files (symlinks followed) are read: a FIFO would block the reader forever and a
// character device such as /dev/zero never ends. The check happens on the opened
// descriptor (opened non-blocking), so a file swapped for a FIFO after a look at its name
// is refused too.
#include <cstdint>
#include <filesystem>
#include <string>

namespace precis {

// "'<path>'", built by appending (GCC 12 warns falsely on "'" + string + "'").
std::string quoted_path(const std::filesystem::path& path);

// "a named pipe (FIFO)", "a character device", "a folder", ... for a non-regular file;
// empty for a regular file or one that does not exist.
std::string non_regular_kind(const std::filesystem::path& path);

// Throws precis::Error "<subject> is a named pipe (FIFO), not a regular file" when `path`
// exists and is not a regular file. `subject` names the file, e.g. "config file 'x/config.json'".
void require_regular_file(const std::filesystem::path& path, const std::string& subject);

// Opens a regular file for reading (blocking mode, close-on-exec) and returns its
// descriptor and size; throws precis::Error naming `subject` when it cannot be opened or
// is not a regular file. The caller closes the descriptor.
int open_regular_file(const std::filesystem::path& path, const std::string& subject, uint64_t* size);

// The whole file, refused when it is not a regular file or larger than `max_bytes`
// ("<subject> is 3.2 GB; the limit for it is 256 MB").
std::string read_regular_file(const std::filesystem::path& path, const std::string& subject, uint64_t max_bytes);

}  // namespace precis
