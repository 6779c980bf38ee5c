#pragma once
// One passage of a document that a summary drew on (from the decoder's cross-attention):
// a character range of the document text, its share of the attention, and its page.
// Found by app/worker/source_passages; stored with the summary in the library.
namespace precis {

struct SourcePassage {
    int begin = 0, end = 0;  // QString (UTF-16) indices into the document text
    double weight = 0;       // share of the summary's cross-attention, 0..1
    int page = -1;           // 0-based PDF page the passage starts on; -1 for text files

    bool operator==(const SourcePassage&) const = default;
};

}  // namespace precis
