#pragma once
// Loaded models kept between runs. Loading a real BART checkpoint takes seconds and
// hundreds of megabytes, so the workers (summaries, batch, attention capture) share the
// most recently used one; asking again with the same folder and load options returns
// it without touching the disk. Thread-safe: workers on different threads share one cache.
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include "engine/model/model.h"

namespace precis {

class ModelCache {
public:
    // Loads on a miss (throws what Model::load throws); the previous model is dropped
    // from the cache (runs still holding it keep it alive until they finish).
    std::shared_ptr<const Model> get(const std::filesystem::path& dir, const LoadOptions& options);
    void clear();

private:
    static std::string key_of(const std::filesystem::path& dir, const LoadOptions& options);
    std::mutex mutex_;
    std::string key_;
    std::shared_ptr<const Model> model_;
};

}  // namespace precis
