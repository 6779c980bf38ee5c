#pragma once
// Hostile inputs the tests build themselves (nothing large is stored in the repository):
// deeply nested JSON and pickles, zip archives around a pickle, FIFOs, and a guard that
// turns a hang into a test failure instead of a stuck suite.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace precis::test {

void write_file(const std::filesystem::path& path, const std::string& bytes);

// "[[[...]]]" nested `depth` levels.
std::string deep_json(size_t depth);
// A JSON object whose `key` holds deep_json(depth) (a config.json shape).
std::string json_object_with_deep_value(const std::string& key, size_t depth);

// A minimal zip with stored (or, for tests, claimed-compressed) entries. Like torch.save,
// entry data is aligned to 64 bytes (padding in the local extra field) unless `align` is false.
std::string make_zip(const std::vector<std::pair<std::string, std::string>>& files, uint16_t method = 0,
                     bool align = true);
// A torch.save-style archive ("archive/data.pkl" plus the given storages "archive/data/<key>").
std::string torch_zip(const std::string& pickle, const std::vector<std::pair<std::string, std::string>>& storages = {});

// Protocol-2 pickles: `depth` empty lists each appended into the one before (a list nested
// `depth` deep built with the stack), and the same nesting as Python's pickler writes it
// (EMPTY_LIST MARK ... APPENDS per level: `depth` open MARKs).
std::string deep_list_pickle(size_t depth);
std::string deep_marked_list_pickle(size_t depth);
// A list that contains itself through the memo: l = []; l.append(l).
std::string self_containing_list_pickle();

// A FIFO at `path` (nothing ever writes to it).
void make_fifo(const std::filesystem::path& path);

// Runs `fn`, which is expected to throw a std::exception, on its own thread and returns the
// message. When it has not finished after `seconds` the test fails, and the FIFO `fifo`
// (if any) is opened for writing and closed, so that a reader blocked on it gets EOF and
// the thread can end instead of hanging the suite.
std::string error_within(const std::function<void()>& fn, const std::filesystem::path& fifo = {},
                         double seconds = 20.0);

}  // namespace precis::test
