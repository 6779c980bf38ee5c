#include "tests/support/fixtures.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <fstream>
#include <random>
#include <vector>

namespace precis::test {

namespace fs = std::filesystem;

namespace {
// The fixtures are read in place and never written: no int8/fp16 weight cache beside them
// (app/paths.h weight_cache_dir), in this process or the `precis` runs it starts. A test
// of the cache turns it on for a copy of a model. Set before main(), overriding nothing.
const bool kNoWeightCacheInTests = [] { return ::setenv("PRECIS_WEIGHT_CACHE", "off", 0) == 0; }();
}  // namespace

fs::path fixtures_dir() {
    if (const char* e = std::getenv("PRECIS_FIXTURES"); e && *e) return e;
    return PRECIS_FIXTURES_DEFAULT;
}

fs::path corpus_dir() {
    if (const char* e = std::getenv("PRECIS_CORPUS"); e && *e) return e;
    return PRECIS_CORPUS_DEFAULT;
}

fs::path source_dir() { return PRECIS_SOURCE_DIR_FOR_TESTS; }
fs::path binary_dir() { return PRECIS_BINARY_DIR_FOR_TESTS; }

namespace {
struct ScratchCleaner {
    std::vector<fs::path> dirs;
    ~ScratchCleaner() {
        std::error_code ec;
        for (auto& d : dirs) fs::remove_all(d, ec);
    }
};
ScratchCleaner& cleaner() {
    static ScratchCleaner c;
    return c;
}
}  // namespace

fs::path scratch_dir(const std::string& name) {
    std::random_device rd;
    fs::path p = fs::temp_directory_path() / ("precis-test-" + name + "-" + std::to_string(rd()));
    fs::remove_all(p);
    fs::create_directories(p);
    cleaner().dirs.push_back(p);
    return p;
}

fs::path padded_fixture_model(const std::string& name, const fs::path& dest, uintmax_t bytes) {
    fs::copy(fixtures_dir() / "models" / name, dest, fs::copy_options::recursive);
    std::ofstream(dest / "optimizer.pt", std::ios::binary).close();
    fs::resize_file(dest / "optimizer.pt", bytes);
    return dest;
}

double tolerance_excess(const Tensor& a, const Tensor& b, double atol, double rtol, std::string* why) {
    if (a.shape() != b.shape()) {
        if (why) *why = "shape " + shape_str(a.shape()) + " vs " + shape_str(b.shape());
        return std::numeric_limits<double>::infinity();
    }
    std::vector<float> x = a.to_float_vector(), y = b.to_float_vector();
    double worst = -std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < x.size(); ++i) {
        double e;
        if (std::isinf(y[i]) || std::isinf(x[i])) {
            e = (x[i] == y[i]) ? -1.0 : std::numeric_limits<double>::infinity();
        } else {
            e = std::fabs(double(x[i]) - y[i]) - (atol + rtol * std::fabs(double(y[i])));
        }
        if (e > worst) {
            worst = e;
            if (why && e > 0) *why = "element " + std::to_string(i) + ": " + std::to_string(x[i]) + " vs " + std::to_string(y[i]);
        }
    }
    return x.empty() ? 0.0 : worst;
}

}  // namespace precis::test
