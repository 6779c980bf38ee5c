#pragma once
// Which passages of a long document its summary drew on, through every level of a
// section-by-section summary. Each pass attends over its input (a window of the document,
// or the joined summaries of a group); that attention is split among the summaries the pass
// read, and flows down through them to the windows' own attention over the document. The
// result is one weight per document token, as a one-pass summary gives, for
// source_passages() to fold into sentences.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace precis::longdoc {

using ByteSpans = std::vector<std::pair<size_t, size_t>>;

class SourceTree {
public:
    explicit SourceTree(int windows);

    // Window i's attention over its own text, whose first byte is `byte_start` in the document.
    void set_window_sources(int window, std::vector<float> weights, ByteSpans spans, size_t byte_start);
    // A combining pass: `groups[k]` = [first, last) of the current level's items.
    void begin_level(const std::vector<std::pair<int, int>>& groups);
    // Group k's attention over its input, the current level's `items` joined by `separator`
    // (empty items left out, as the input was made).
    void set_group_sources(int group, const std::vector<float>& weights, const ByteSpans& spans,
                           const std::vector<std::string>& items, const char* separator);
    // The final pass over all of the top level's `items`.
    void finish(const std::vector<float>& weights, const ByteSpans& spans, const std::vector<std::string>& items,
                const char* separator);

    // One weight per document token (summing to 1 when any window's attention is known)
    // and the tokens' byte spans in the document's UTF-8 text.
    const std::vector<float>& document_weights() const { return weights_; }
    const ByteSpans& document_spans() const { return spans_; }

private:
    struct Window {
        std::vector<float> weights;
        ByteSpans spans;
        size_t byte_start = 0;
    };
    struct Level {
        std::vector<std::pair<int, int>> groups;
        std::vector<std::vector<float>> shares;  // per group, its items' shares of its attention
    };
    std::vector<Window> windows_;
    std::vector<Level> levels_;
    std::vector<float> weights_;
    ByteSpans spans_;
};

// How a pass's attention over `items[first, last)` joined by `separator` divides among
// them (shares summing to 1; even shares when the attention is unknown).
std::vector<float> item_shares(const std::vector<float>& weights, const ByteSpans& spans,
                               const std::vector<std::string>& items, int first, int last, const char* separator);

}  // namespace precis::longdoc
