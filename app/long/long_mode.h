#pragma once
// What happens to a document longer than the model reads (--long, the window's setting).
#include <optional>
#include <string_view>

namespace precis::longdoc {

enum class LongMode {
    Auto,      // extend up to kLsgExtension x the trained length (LSG models), sections past that
    Extend,    // one LSG pass with the position table tiled (an error past what it reaches)
    Sections,  // section by section in windows of what the model reads, then combined
    Truncate,  // the first tokens only, as before, and said so
};

// The extrapolation the LSG paper measured: LSG-BART fine-tuned at 4,096 tokens read 16,384
// with no further training and scored higher (lsg-attention, Tables 4-5).
constexpr int kLsgExtension = 4;

std::optional<LongMode> parse_long_mode(std::string_view name);  // "auto", "extend", "sections", "truncate"
const char* long_mode_name(LongMode mode);

// Extend the model's position tables at load for this mode (LSG models only).
inline bool extends_positions(LongMode mode) { return mode == LongMode::Auto || mode == LongMode::Extend; }

}  // namespace precis::longdoc
