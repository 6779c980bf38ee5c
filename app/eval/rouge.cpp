#include "app/eval/rouge.h"

#include "app/text/porter_stemmer.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>

namespace precis::eval {
namespace {


// ---------------------------------------------------------------------------
// Token interning: LCS and n-gram counting work on integer ids.
// ---------------------------------------------------------------------------
class Interner {
public:
    std::vector<int> ids(const std::vector<std::string>& toks) {
        std::vector<int> out;
        out.reserve(toks.size());
        for (const auto& t : toks) {
            auto [it, inserted] = map_.try_emplace(t, static_cast<int>(map_.size()));
            out.push_back(it->second);
        }
        return out;
    }

private:
    std::unordered_map<std::string, int> map_;
};

double fmeasure(double p, double r) { return p + r > 0.0 ? 2.0 * p * r / (p + r) : 0.0; }

// rouge-score's _lcs_table: rows = reference, columns = candidate.
std::vector<std::vector<int>> lcs_table(const std::vector<int>& ref, const std::vector<int>& can) {
    std::vector<std::vector<int>> t(ref.size() + 1, std::vector<int>(can.size() + 1, 0));
    for (std::size_t i = 1; i <= ref.size(); ++i)
        for (std::size_t j = 1; j <= can.size(); ++j)
            t[i][j] = ref[i - 1] == can[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
    return t;
}

int lcs_length(const std::vector<int>& ref, const std::vector<int>& can) {
    // Two rows suffice for the length.
    std::vector<int> prev(can.size() + 1, 0), cur(can.size() + 1, 0);
    for (std::size_t i = 1; i <= ref.size(); ++i) {
        for (std::size_t j = 1; j <= can.size(); ++j)
            cur[j] = ref[i - 1] == can[j - 1] ? prev[j - 1] + 1 : std::max(prev[j], cur[j - 1]);
        std::swap(prev, cur);
    }
    return prev[can.size()];
}

// rouge-score's _backtrack_norec: indices into `ref` of one LCS, with its tie-break
// (move left only when strictly better, else up).
std::vector<std::size_t> lcs_indices(const std::vector<int>& ref, const std::vector<int>& can) {
    const auto t = lcs_table(ref, can);
    std::vector<std::size_t> out;
    std::size_t i = ref.size(), j = can.size();
    while (i > 0 && j > 0) {
        if (ref[i - 1] == can[j - 1]) {
            out.push_back(i - 1);
            --i;
            --j;
        } else if (t[i][j - 1] > t[i - 1][j]) {
            --j;
        } else {
            --i;
        }
    }
    std::reverse(out.begin(), out.end());
    return out;
}

RougeScore ngram_score(const std::vector<int>& ref, const std::vector<int>& can, int n) {
    auto count = [n](const std::vector<int>& toks) {
        std::map<std::vector<int>, int> c;
        if (static_cast<int>(toks.size()) >= n)
            for (std::size_t i = 0; i + n <= toks.size(); ++i) ++c[std::vector<int>(toks.begin() + i, toks.begin() + i + n)];
        return c;
    };
    const auto rc = count(ref), cc = count(can);
    long overlap = 0, rn = 0, cn = 0;
    for (const auto& [g, k] : rc) {
        rn += k;
        auto it = cc.find(g);
        if (it != cc.end()) overlap += std::min(k, it->second);
    }
    for (const auto& [g, k] : cc) cn += k;
    RougeScore s;
    s.precision = static_cast<double>(overlap) / static_cast<double>(std::max(cn, 1L));
    s.recall = static_cast<double>(overlap) / static_cast<double>(std::max(rn, 1L));
    s.fmeasure = fmeasure(s.precision, s.recall);
    return s;
}

RougeScore lcs_score(const std::vector<int>& ref, const std::vector<int>& can) {
    if (ref.empty() || can.empty()) return {};
    const double lcs = lcs_length(ref, can);
    RougeScore s;
    s.precision = lcs / static_cast<double>(can.size());
    s.recall = lcs / static_cast<double>(ref.size());
    s.fmeasure = fmeasure(s.precision, s.recall);
    return s;
}

RougeScore lsum_score(const std::vector<std::vector<int>>& ref, const std::vector<std::vector<int>>& can) {
    if (ref.empty() || can.empty()) return {};
    std::size_t m = 0, n = 0;
    std::unordered_map<int, int> cnt_r, cnt_c;
    for (const auto& s : ref) {
        m += s.size();
        for (int t : s) ++cnt_r[t];
    }
    for (const auto& s : can) {
        n += s.size();
        for (int t : s) ++cnt_c[t];
    }
    if (m == 0 || n == 0) return {};
    long hits = 0;
    for (const auto& r : ref) {
        std::set<std::size_t> uni;  // union of LCS positions in r, visited in order
        for (const auto& c : can)
            for (std::size_t i : lcs_indices(r, c)) uni.insert(i);
        for (std::size_t i : uni) {
            const int t = r[i];
            int& a = cnt_c[t];
            int& b = cnt_r[t];
            if (a > 0 && b > 0) {
                ++hits;
                --a;
                --b;
            }
        }
    }
    RougeScore s;
    s.recall = static_cast<double>(hits) / static_cast<double>(m);
    s.precision = static_cast<double>(hits) / static_cast<double>(n);
    s.fmeasure = fmeasure(s.precision, s.recall);
    return s;
}

// Appends the lowercase ASCII form of `text` where every character outside [a-z0-9]
// becomes a space. Python's str.lower() maps two non-ASCII code points to ASCII
// letters: U+0130 (I with dot above -> "i" + U+0307, and U+0307 is then a separator)
// and U+212A (Kelvin sign -> "k"); we honour those so that no token differs from
// rouge-score's.
std::string normalize(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            char ch = static_cast<char>(c);
            if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
            out.push_back((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ? ch : ' ');
            ++i;
            continue;
        }
        std::size_t len = (c >= 0xF0) ? 4 : (c >= 0xE0) ? 3 : (c >= 0xC0) ? 2 : 1;
        if (i + len > text.size()) len = text.size() - i;
        const std::string_view cp = text.substr(i, len);
        if (cp == "\xC4\xB0") out += "i ";              // U+0130
        else if (cp == "\xE2\x84\xAA") out.push_back('k');  // U+212A
        else out.push_back(' ');
        i += len;
    }
    return out;
}

}  // namespace


std::vector<std::string> rouge_tokenize(std::string_view text, bool use_stemmer) {
    const std::string norm = normalize(text);
    std::vector<std::string> out;
    std::size_t i = 0;
    while (i < norm.size()) {
        while (i < norm.size() && norm[i] == ' ') ++i;
        std::size_t j = i;
        while (j < norm.size() && norm[j] != ' ') ++j;
        if (j > i) {
            std::string tok = norm.substr(i, j - i);
            if (use_stemmer && tok.size() > 3) tok = text::porter_stem(tok);
            if (!tok.empty()) out.push_back(std::move(tok));
        }
        i = j;
    }
    return out;
}

std::vector<std::vector<std::string>> rouge_sentences(std::string_view text, bool use_stemmer) {
    std::vector<std::vector<std::string>> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        if (end > start) out.push_back(rouge_tokenize(text.substr(start, end - start), use_stemmer));
        start = end + 1;
    }
    return out;
}

RougeScore rouge_n(const std::vector<std::string>& reference, const std::vector<std::string>& candidate, int n) {
    Interner in;
    const auto r = in.ids(reference);
    const auto c = in.ids(candidate);
    return ngram_score(r, c, n);
}

RougeScore rouge_l(const std::vector<std::string>& reference, const std::vector<std::string>& candidate) {
    Interner in;
    const auto r = in.ids(reference);
    const auto c = in.ids(candidate);
    return lcs_score(r, c);
}

RougeScore rouge_lsum(const std::vector<std::vector<std::string>>& reference_sentences,
                      const std::vector<std::vector<std::string>>& candidate_sentences) {
    Interner in;
    std::vector<std::vector<int>> r, c;
    for (const auto& s : reference_sentences) r.push_back(in.ids(s));
    for (const auto& s : candidate_sentences) c.push_back(in.ids(s));
    return lsum_score(r, c);
}

RougeScores rouge_score(std::string_view reference, std::string_view candidate, const RougeOptions& options) {
    Interner in;
    const auto r = in.ids(rouge_tokenize(reference, options.use_stemmer));
    const auto c = in.ids(rouge_tokenize(candidate, options.use_stemmer));
    std::vector<std::vector<int>> rs, cs;
    for (const auto& s : rouge_sentences(reference, options.use_stemmer)) rs.push_back(in.ids(s));
    for (const auto& s : rouge_sentences(candidate, options.use_stemmer)) cs.push_back(in.ids(s));
    RougeScores out;
    out.rouge1 = ngram_score(r, c, 1);
    out.rouge2 = ngram_score(r, c, 2);
    out.rougeL = lcs_score(r, c);
    out.rougeLsum = lsum_score(rs, cs);
    return out;
}

namespace {
void accumulate(RougeScore& a, const RougeScore& b) {
    a.precision += b.precision;
    a.recall += b.recall;
    a.fmeasure += b.fmeasure;
}
RougeScore divided(RougeScore a, double n) {
    if (n > 0) {
        a.precision /= n;
        a.recall /= n;
        a.fmeasure /= n;
    }
    return a;
}
}  // namespace

void RougeAggregator::add(const RougeScores& s) {
    accumulate(sum_.rouge1, s.rouge1);
    accumulate(sum_.rouge2, s.rouge2);
    accumulate(sum_.rougeL, s.rougeL);
    accumulate(sum_.rougeLsum, s.rougeLsum);
    ++count_;
}

RougeScores RougeAggregator::mean() const {
    const double n = static_cast<double>(count_);
    return {divided(sum_.rouge1, n), divided(sum_.rouge2, n), divided(sum_.rougeL, n), divided(sum_.rougeLsum, n)};
}

}  // namespace precis::eval
