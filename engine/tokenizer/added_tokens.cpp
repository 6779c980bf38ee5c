#include "engine/tokenizer/added_tokens.h"

#include <algorithm>

#include "engine/tokenizer/utf8.h"

namespace precis {

AddedTokenSplitter::AddedTokenSplitter(std::vector<AddedToken> tokens) : tokens_(std::move(tokens)) {
    for (uint32_t i = 0; i < tokens_.size(); ++i) {
        if (tokens_[i].content.empty()) continue;  // an empty token would match everywhere
        by_first_byte_[static_cast<unsigned char>(tokens_[i].content[0])].push_back(i);
    }
    for (auto& list : by_first_byte_) {
        std::stable_sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
            return tokens_[a].content.size() > tokens_[b].content.size();
        });
    }
}

const AddedToken* AddedTokenSplitter::find_id(int64_t id) const {
    for (const auto& t : tokens_)
        if (t.id == id) return &t;
    return nullptr;
}

const AddedToken* AddedTokenSplitter::find_content(std::string_view content) const {
    for (const auto& t : tokens_)
        if (t.content == content) return &t;
    return nullptr;
}

std::vector<TextSegment> AddedTokenSplitter::split(std::string_view text) const {
    std::vector<TextSegment> out;
    size_t text_start = 0;  // start of the pending text segment
    size_t i = 0;
    while (i < text.size()) {
        const AddedToken* match = nullptr;
        for (uint32_t idx : by_first_byte_[static_cast<unsigned char>(text[i])]) {
            const auto& c = tokens_[idx].content;
            if (text.compare(i, c.size(), c) == 0) {
                match = &tokens_[idx];  // the list is longest first
                break;
            }
        }
        if (!match) {
            ++i;
            continue;
        }
        std::string_view before = text.substr(text_start, i - text_start);
        if (match->lstrip) before.remove_suffix(utf8::trailing_white_space(before));
        if (!before.empty()) out.push_back({before, -1});
        out.push_back({{}, match->id});
        i += match->content.size();
        if (match->rstrip) i += utf8::leading_white_space(text.substr(i));
        text_start = i;
    }
    if (text_start < text.size()) out.push_back({text.substr(text_start), -1});
    return out;
}

}  // namespace precis
