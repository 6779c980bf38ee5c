// What the text passes that read Unicode through ICU share (sentence_segmenter.cpp,
// content_terms.cpp): the soft hyphen they both look through, and turning an ICU
// status into an exception that says what could not be done.
#pragma once

#include <unicode/utypes.h>

#include <stdexcept>
#include <string>

namespace precis::text {

// U+00AD: PDF text breaks words across lines with it; it is never part of a word.
inline constexpr char16_t kSoftHyphen = 0x00AD;

inline void throw_if_icu_failed(UErrorCode status, const char* what) {
    if (U_FAILURE(status)) throw std::runtime_error(std::string("ICU could not ") + what + ": " + u_errorName(status));
}

}  // namespace precis::text
