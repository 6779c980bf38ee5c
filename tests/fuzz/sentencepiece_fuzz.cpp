// libFuzzer target: sentencepiece model loading (our reading of the file, the library's
// protobuf parsing, our choice of id layout and special tokens), then encoding and
// decoding with whatever model it describes, out-of-range ids included.
#include "engine/core/error.h"
#include "engine/tokenizer/sentencepiece_tokenizer.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto path = precis::fuzz::write_input("sentencepiece.bpe.model", data, size);
    try {
        const precis::SentencePieceTokenizer tok(path);
        const auto ids = tok.encode("Hello world <mask> caf\xC3\xA9 \xF0\x9F\x93\x9A <s></s>  \n tabs\t", true);
        tok.decode(ids, false);
        tok.decode(ids, true);
        tok.decode({0, 1, 2, 3, -1, tok.vocab_size() - 1, tok.vocab_size(), int64_t(1) << 40}, false);
        for (int64_t id : {int64_t(-1), int64_t(0), tok.vocab_size() - 1, tok.vocab_size()}) tok.id_to_token(id);
        tok.token_to_id("<mask>");
        tok.token_to_id("\xE2\x96\x81the");
    } catch (const precis::Error&) {
    }
    return 0;
}
