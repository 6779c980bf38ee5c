#include "app/long/long_mode.h"

namespace precis::longdoc {

std::optional<LongMode> parse_long_mode(std::string_view name) {
    if (name == "auto") return LongMode::Auto;
    if (name == "extend") return LongMode::Extend;
    if (name == "sections") return LongMode::Sections;
    if (name == "truncate") return LongMode::Truncate;
    return std::nullopt;
}

const char* long_mode_name(LongMode mode) {
    switch (mode) {
        case LongMode::Auto: return "auto";
        case LongMode::Extend: return "extend";
        case LongMode::Sections: return "sections";
        case LongMode::Truncate: return "truncate";
    }
    return "?";
}

}  // namespace precis::longdoc
