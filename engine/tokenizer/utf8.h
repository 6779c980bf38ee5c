#pragma once
// Small UTF-8 helpers shared by the tokenizers. Tokenizers must reproduce Python's
// behaviour exactly (the reference is HuggingFace's Python tokenizer), so invalid
// input is repaired the way `bytes.decode("utf-8", errors="replace")` does it.
#include <cstddef>
#include <string>
#include <string_view>

namespace precis::utf8 {

// Appends the UTF-8 encoding of code point `cp` (must be a valid scalar value).
void append(std::string& out, char32_t cp);

// Returns `bytes` with every ill-formed subsequence replaced by U+FFFD, one
// replacement per "maximal subpart" (Unicode 15, section 3.9; what CPython does).
// Valid input comes back unchanged.
std::string replace_invalid(std::string_view bytes);

// True when `bytes` is well-formed UTF-8.
bool is_valid(std::string_view bytes);

// Unicode White_Space (what Python's `regex` module calls \s and Rust's
// char::is_whitespace): TAB..CR, space, U+0085, NBSP, U+1680, U+2000..U+200A,
// U+2028, U+2029, U+202F, U+205F, U+3000. U+200B (zero-width space) is not one.
bool is_white_space(char32_t cp);

// Length of the trailing run of White_Space characters at the end of valid UTF-8 `s`.
size_t trailing_white_space(std::string_view s);
// Length of the leading run of White_Space characters at the start of valid UTF-8 `s`.
size_t leading_white_space(std::string_view s);

}  // namespace precis::utf8
