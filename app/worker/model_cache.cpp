#include "app/worker/model_cache.h"

#include <sstream>

namespace precis {

std::string ModelCache::key_of(const std::filesystem::path& dir, const LoadOptions& o) {
    std::ostringstream k;
    k << std::filesystem::absolute(dir).lexically_normal().string() << '|' << o.tokenizer_dir.string() << '|'
      << o.max_positions.value_or(0) << '|' << o.load_tokenizer << '|' << o.convert_to_lsg << '|'
      << compute_type_name(o.compute_type) << '|' << o.lsg_extension_factor;
    if (o.convert_to_lsg) {
        const LsgSettings& s = o.lsg;
        k << '|' << sparsity_type_name(s.sparsity_type) << ',' << s.block_size << ',' << s.sparse_block_size << ','
          << s.sparsity_factor << ',' << s.num_global_tokens;
    }
    return k.str();
}

std::shared_ptr<const Model> ModelCache::get(const std::filesystem::path& dir, const LoadOptions& options) {
    const std::string key = key_of(dir, options);
    // Held while loading so two workers asking for the same model load it once.
    std::lock_guard lock(mutex_);
    if (model_ && key == key_) return model_;
    model_.reset();  // free the old weights before reading the new ones
    model_ = Model::load(dir, options);
    key_ = key;
    return model_;
}

void ModelCache::clear() {
    std::lock_guard lock(mutex_);
    model_.reset();
    key_.clear();
}

}  // namespace precis
