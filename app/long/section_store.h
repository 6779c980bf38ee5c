#pragma once
// Summaries of finished windows kept between runs, so that a section-by-section summary
// that was cancelled (or killed) continues where it stopped instead of summarizing its
// finished sections again. Keyed by everything that makes the summary: the model, every
// setting and the window's text.
#include <filesystem>
#include <optional>
#include <string>

namespace precis::longdoc {

class SectionStore {
public:
    virtual ~SectionStore() = default;
    virtual std::optional<std::string> find(const std::string& key) const = 0;
    // Best effort: a store that cannot keep a summary (a full disk) only loses the head start.
    virtual void keep(const std::string& key, const std::string& summary) = 0;
};

// One small file per window summary under `dir` ($XDG_CACHE_HOME/precis/sections by
// default), written whole or not at all. Entries older than `max_age_days` are removed
// when the store is opened.
class FileSectionStore : public SectionStore {
public:
    explicit FileSectionStore(std::filesystem::path dir, int max_age_days = 30);
    std::optional<std::string> find(const std::string& key) const override;
    void keep(const std::string& key, const std::string& summary) override;
    const std::filesystem::path& dir() const { return dir_; }

private:
    std::filesystem::path file_for(const std::string& key) const;
    std::filesystem::path dir_;
};

// $XDG_CACHE_HOME/precis/sections; empty when PRECIS_SECTION_CACHE=off.
std::filesystem::path default_section_store_dir();

// The key of one window's summary: a hash of the model's identity, the settings (as
// describe_options gives them) and the window's text.
std::string section_key(const std::string& model_identity, const std::string& settings, const std::string& text);

}  // namespace precis::longdoc
