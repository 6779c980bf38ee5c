#include "app/paths.h"

#include "app/models/model_store.h"

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace precis {

namespace fs = std::filesystem;

namespace {

fs::path xdg_dir(const char* var, const char* fallback_under_home) {
    if (const char* v = std::getenv(var); v && *v && fs::path(v).is_absolute()) return fs::path(v) / "precis";
    const char* home = std::getenv("HOME");
    return fs::path(home && *home ? home : "/tmp") / fallback_under_home / "precis";
}

fs::path first_model_in(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return {};
    std::vector<fs::path> found;
    for (auto& e : fs::directory_iterator(dir, ec)) {
        // Hidden folders are work in progress (an import's ".name.partial-PID") or not ours.
        if (e.path().filename().string().starts_with('.')) continue;
        if (e.is_directory() && fs::exists(e.path() / "config.json")) found.push_back(e.path());
    }
    std::sort(found.begin(), found.end());
    return found.empty() ? fs::path() : found.front();
}

// Installed data first (share/precis next to the binary's prefix), then the source tree.
std::vector<fs::path> data_roots() {
    std::vector<fs::path> roots;
    if (const fs::path exe = executable_path(); !exe.empty())
        roots.push_back(exe.parent_path().parent_path() / "share" / "precis");
    roots.push_back(PRECIS_DATA_INSTALL_DIR);
    roots.push_back(fs::path(PRECIS_SOURCE_DIR) / "resources");
    return roots;
}

}  // namespace

fs::path executable_path() {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : exe;
}

fs::path user_data_dir() { return xdg_dir("XDG_DATA_HOME", ".local/share"); }
fs::path user_models_dir() { return user_data_dir() / "models"; }
fs::path user_config_dir() { return xdg_dir("XDG_CONFIG_HOME", ".config"); }
fs::path user_cache_dir() { return xdg_dir("XDG_CACHE_HOME", ".cache"); }
fs::path weight_cache_dir() {
    if (const char* e = std::getenv("PRECIS_WEIGHT_CACHE"); e && (std::string_view(e) == "off" || std::string_view(e) == "0"))
        return {};
    return user_cache_dir() / "weights";
}
fs::path default_library_path() {
    if (const char* e = std::getenv("PRECIS_LIBRARY"); e && *e) return e;
    return user_data_dir() / "library.sqlite";
}

fs::path user_default_model() { return models::default_model_folder(); }

fs::path bundled_model() {
    for (const fs::path& root : data_roots())
        if (fs::path m = first_model_in(root / "models"); !m.empty()) return m;
    return {};
}

TestModel fixture_test_model() {
    fs::path fixtures;
    if (const char* e = std::getenv("PRECIS_FIXTURES"); e && *e)
        fixtures = e;
    else
        fixtures = fs::path(PRECIS_SOURCE_DIR).parent_path() / "shared" / "fixtures";
    TestModel t{fixtures / "models" / "bart-tiny-realvocab", fixtures / "tokenizer" / "bart"};
    std::error_code ec;
    if (!fs::exists(t.dir / "config.json", ec) || !fs::exists(t.tokenizer_dir / "tokenizer.json", ec)) return {};
    return t;
}

bool is_fixture_test_model(const fs::path& model_dir) {
    const TestModel t = fixture_test_model();
    std::error_code ec;
    return !t.dir.empty() && !model_dir.empty() && fs::equivalent(model_dir, t.dir, ec);
}

fs::path model_catalog_path() {
    for (const fs::path& root : data_roots())
        if (fs::is_regular_file(root / "models" / "catalog.json")) return root / "models" / "catalog.json";
    return fs::path(PRECIS_SOURCE_DIR) / "resources" / "models" / "catalog.json";
}

fs::path samples_dir() {
    for (const fs::path& root : data_roots())
        if (fs::is_directory(root / "samples")) return root / "samples";
    return fs::path(PRECIS_SOURCE_DIR) / "resources" / "samples";
}

}  // namespace precis
