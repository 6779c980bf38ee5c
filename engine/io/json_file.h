#pragma once
// JSON read from files Precis does not control (config.json, generation_config.json,
// tokenizer.json, vocab.json, shard indexes, safetensors headers). Nesting is bounded
// before nlohmann parses anything: its DOM is copied, compared and printed recursively,
// so a 100 000-deep array would overflow the stack.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace precis {

// Real configs and tokenizers nest fewer than 10 levels.
constexpr int kMaxJsonDepth = 512;

// Throws precis::Error "<subject> nests JSON arrays and objects more than 512 levels
// deep" when `text` does (brackets inside strings do not count).
void check_json_depth(std::string_view text, const std::string& subject, int max_depth = kMaxJsonDepth);

// Parses text after the depth check. Throws precis::Error "<subject> is not valid JSON
// (<parser's reason>)".
nlohmann::json parse_json_text(std::string_view text, const std::string& subject);

// A regular file of at most `max_bytes`, depth-checked and parsed (see regular_file.h).
nlohmann::json read_json_file(const std::filesystem::path& path, const std::string& subject, uint64_t max_bytes);

// Size limits for the JSON files of a model folder: generous for what they hold.
constexpr uint64_t kMaxConfigJsonBytes = uint64_t(16) << 20;      // config.json, generation_config.json
constexpr uint64_t kMaxTokenizerFileBytes = uint64_t(256) << 20;  // tokenizer.json, vocab.json, merges.txt, .model
constexpr uint64_t kMaxIndexJsonBytes = uint64_t(64) << 20;       // *.index.json

}  // namespace precis
