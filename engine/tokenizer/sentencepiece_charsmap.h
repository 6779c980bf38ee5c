#pragma once
// The precompiled normalization maps inside a sentencepiece model, checked before the
// library sees them. sentencepiece (0.1.97, Debian 12) follows the map's trie and its
// offsets into the replacement strings without bounds checks, so a damaged or hostile
// model makes it read memory outside the model (found by tests/fuzz/sentencepiece_fuzz).
// A model that passes this check cannot send those lookups outside the map.
#include <string>
#include <string_view>
#include <vector>

namespace precis {

// The precompiled_charsmap bytes of the normalizer and denormalizer specs of a serialized
// ModelProto, in file order; empty when it has none. Reads only the protobuf framing, and
// stops at the first malformed field (the library then refuses the model itself).
std::vector<std::string_view> sentencepiece_charsmaps(std::string_view serialized_model);

// Throws precis::Error naming `what` when a map could make a lookup leave it: a trie node
// whose children or value lie outside the trie, or a value outside the replacement strings.
void check_sentencepiece_charsmaps(std::string_view serialized_model, const std::string& what);

}  // namespace precis
