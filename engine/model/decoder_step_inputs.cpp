#include "engine/model/decoder_step_inputs.h"

#include <cstdint>
#include <string>

#include "engine/core/error.h"
#include "engine/model/decoder_slots.h"

namespace precis {

void stage_step_inputs(const int64_t* tokens, int64_t n, int64_t vocab, const DecoderSlots& slots, int32_t* out) {
    check(n >= 0, "decoder: negative step size");
    check(vocab > 0 && vocab <= INT32_MAX, "decoder: the vocabulary does not fit int32 ids");
    for (int64_t i = 0; i < n; ++i) {
        // Every row of every step: the message is built only when it is thrown.
        if (tokens[i] < 0 || tokens[i] >= vocab)
            throw Error("decoder: token id " + std::to_string(tokens[i]) + " is outside the vocabulary of " +
                        std::to_string(vocab));
        out[i] = int32_t(tokens[i]);
    }
    slots.lengths(out + n);
}

}  // namespace precis
