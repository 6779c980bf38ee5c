#include "engine/io/json_file.h"

#include "engine/core/error.h"
#include "engine/io/regular_file.h"

namespace precis {

void check_json_depth(std::string_view text, const std::string& subject, int max_depth) {
    int depth = 0;
    bool in_string = false, escaped = false;
    for (const char c : text) {
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
            continue;
        }
        switch (c) {
            case '"': in_string = true; break;
            case '[': case '{':
                if (++depth > max_depth)
                    throw Error(subject + " nests JSON arrays and objects more than " + std::to_string(max_depth) +
                                " levels deep");
                break;
            case ']': case '}':
                if (depth > 0) --depth;
                break;
            default: break;
        }
    }
}

nlohmann::json parse_json_text(std::string_view text, const std::string& subject) {
    check_json_depth(text, subject);
    try {
        return nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for numbers like 1e999
        throw Error(subject + " is not valid JSON (" + e.what() + ")");
    }
}

nlohmann::json read_json_file(const std::filesystem::path& path, const std::string& subject, uint64_t max_bytes) {
    return parse_json_text(read_regular_file(path, subject, max_bytes), subject);
}

}  // namespace precis
