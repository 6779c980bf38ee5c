#include "app/eval/rouge.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>

namespace precis::eval {
namespace {

// ---------------------------------------------------------------------------
// Porter stemmer, a line-by-line port of nltk/stem/porter.py (nltk 3.8) in mode
// NLTK_EXTENSIONS. Function names follow NLTK's.
// ---------------------------------------------------------------------------
bool is_vowel_char(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

bool is_consonant(std::string_view w, std::size_t i) {
    if (is_vowel_char(w[i])) return false;
    if (w[i] == 'y') return i == 0 ? true : !is_consonant(w, i - 1);
    return true;
}

// m in [C](VC)^m[V]: the number of "vc" transitions.
int measure(std::string_view s) {
    int m = 0;
    for (std::size_t i = 1; i < s.size(); ++i)
        if (!is_consonant(s, i - 1) && is_consonant(s, i)) ++m;
    return m;
}

bool contains_vowel(std::string_view s) {
    for (std::size_t i = 0; i < s.size(); ++i)
        if (!is_consonant(s, i)) return true;
    return false;
}

bool ends_double_consonant(std::string_view w) {
    return w.size() >= 2 && w[w.size() - 1] == w[w.size() - 2] && is_consonant(w, w.size() - 1);
}

// *o: ends consonant-vowel-consonant, last not w/x/y; NLTK also accepts a two-letter
// vowel-consonant word.
bool ends_cvc(std::string_view w) {
    const std::size_t n = w.size();
    if (n >= 3 && is_consonant(w, n - 3) && !is_consonant(w, n - 2) && is_consonant(w, n - 1) &&
        w[n - 1] != 'w' && w[n - 1] != 'x' && w[n - 1] != 'y')
        return true;
    return n == 2 && !is_consonant(w, 0) && is_consonant(w, 1);
}

bool ends_with(std::string_view w, std::string_view suf) {
    return w.size() >= suf.size() && w.substr(w.size() - suf.size()) == suf;
}

enum class Cond { None, MGt0, MGt1, IonST, LogiNltk };

struct Rule {
    std::string_view suffix;
    std::string_view replacement;
    Cond cond;
};

bool check(Cond c, std::string_view stem, std::string_view word) {
    switch (c) {
        case Cond::None: return true;
        case Cond::MGt0: return measure(stem) > 0;
        case Cond::MGt1: return measure(stem) > 1;
        case Cond::IonST: return measure(stem) > 1 && !stem.empty() && (stem.back() == 's' || stem.back() == 't');
        case Cond::LogiNltk: return measure(word.substr(0, word.size() - 3)) > 0;
    }
    return false;
}

// NLTK's _apply_rule_list: the FIRST rule whose suffix matches decides, whether or not
// its condition holds.
std::string apply_rules(const std::string& word, const Rule* rules, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        const Rule& r = rules[i];
        if (ends_with(word, r.suffix)) {
            std::string_view stem(word.data(), word.size() - r.suffix.size());
            if (check(r.cond, stem, word)) return std::string(stem) + std::string(r.replacement);
            return word;
        }
    }
    return word;
}

std::string replace_suffix(const std::string& w, std::size_t suffix_len, std::string_view rep) {
    return w.substr(0, w.size() - suffix_len) + std::string(rep);
}

std::string step1a(const std::string& w) {
    if (ends_with(w, "ies") && w.size() == 4) return replace_suffix(w, 3, "ie");
    static constexpr Rule rules[] = {
        {"sses", "ss", Cond::None}, {"ies", "i", Cond::None}, {"ss", "ss", Cond::None}, {"s", "", Cond::None}};
    return apply_rules(w, rules, std::size(rules));
}

std::string step1b(const std::string& w) {
    if (ends_with(w, "ied")) return replace_suffix(w, 3, w.size() == 4 ? "ie" : "i");
    if (ends_with(w, "eed")) {
        std::string_view stem(w.data(), w.size() - 3);
        return measure(stem) > 0 ? std::string(stem) + "ee" : w;
    }
    std::string inter;
    bool ok = false;
    for (std::string_view suf : {std::string_view("ed"), std::string_view("ing")}) {
        if (ends_with(w, suf)) {
            std::string_view stem(w.data(), w.size() - suf.size());
            if (contains_vowel(stem)) {
                inter = std::string(stem);
                ok = true;
                break;
            }
        }
    }
    if (!ok) return w;
    // ("at","ate"), ("bl","ble"), ("iz","ize"), ("*d", drop one letter unless l/s/z),
    // ("", "e" if m == 1 and *o) -- first match decides.
    if (ends_with(inter, "at")) return inter + "e";
    if (ends_with(inter, "bl")) return inter + "e";
    if (ends_with(inter, "iz")) return inter + "e";
    if (ends_double_consonant(inter)) {
        const char last = inter.back();
        if (last != 'l' && last != 's' && last != 'z') return inter.substr(0, inter.size() - 1);
        return inter;
    }
    if (measure(inter) == 1 && ends_cvc(inter)) return inter + "e";
    return inter;
}

std::string step1c(const std::string& w) {
    // ("y", "i") if the stem is longer than 1 and ends with a consonant (NLTK condition).
    if (ends_with(w, "y")) {
        std::string_view stem(w.data(), w.size() - 1);
        if (stem.size() > 1 && is_consonant(stem, stem.size() - 1)) return std::string(stem) + "i";
        return w;
    }
    return w;
}

std::string step2(const std::string& w) {
    if (ends_with(w, "alli") && measure(std::string_view(w.data(), w.size() - 4)) > 0)
        return step2(replace_suffix(w, 4, "al"));
    static constexpr Rule rules[] = {
        {"ational", "ate", Cond::MGt0}, {"tional", "tion", Cond::MGt0}, {"enci", "ence", Cond::MGt0},
        {"anci", "ance", Cond::MGt0},   {"izer", "ize", Cond::MGt0},    {"bli", "ble", Cond::MGt0},
        {"alli", "al", Cond::MGt0},     {"entli", "ent", Cond::MGt0},   {"eli", "e", Cond::MGt0},
        {"ousli", "ous", Cond::MGt0},   {"ization", "ize", Cond::MGt0}, {"ation", "ate", Cond::MGt0},
        {"ator", "ate", Cond::MGt0},    {"alism", "al", Cond::MGt0},    {"iveness", "ive", Cond::MGt0},
        {"fulness", "ful", Cond::MGt0}, {"ousness", "ous", Cond::MGt0}, {"aliti", "al", Cond::MGt0},
        {"iviti", "ive", Cond::MGt0},   {"biliti", "ble", Cond::MGt0},  {"fulli", "ful", Cond::MGt0},
        {"logi", "log", Cond::LogiNltk},
    };
    return apply_rules(w, rules, std::size(rules));
}

std::string step3(const std::string& w) {
    static constexpr Rule rules[] = {
        {"icate", "ic", Cond::MGt0}, {"ative", "", Cond::MGt0}, {"alize", "al", Cond::MGt0},
        {"iciti", "ic", Cond::MGt0}, {"ical", "ic", Cond::MGt0}, {"ful", "", Cond::MGt0},
        {"ness", "", Cond::MGt0},
    };
    return apply_rules(w, rules, std::size(rules));
}

std::string step4(const std::string& w) {
    static constexpr Rule rules[] = {
        {"al", "", Cond::MGt1},   {"ance", "", Cond::MGt1}, {"ence", "", Cond::MGt1}, {"er", "", Cond::MGt1},
        {"ic", "", Cond::MGt1},   {"able", "", Cond::MGt1}, {"ible", "", Cond::MGt1}, {"ant", "", Cond::MGt1},
        {"ement", "", Cond::MGt1}, {"ment", "", Cond::MGt1}, {"ent", "", Cond::MGt1}, {"ion", "", Cond::IonST},
        {"ou", "", Cond::MGt1},   {"ism", "", Cond::MGt1},  {"ate", "", Cond::MGt1},  {"iti", "", Cond::MGt1},
        {"ous", "", Cond::MGt1},  {"ive", "", Cond::MGt1},  {"ize", "", Cond::MGt1},
    };
    return apply_rules(w, rules, std::size(rules));
}

std::string step5a(const std::string& w) {
    if (ends_with(w, "e")) {
        std::string_view stem(w.data(), w.size() - 1);
        const int m = measure(stem);
        if (m > 1) return std::string(stem);
        if (m == 1 && !ends_cvc(stem)) return std::string(stem);
    }
    return w;
}

std::string step5b(const std::string& w) {
    if (ends_with(w, "ll")) {
        if (measure(std::string_view(w.data(), w.size() - 1)) > 1) return w.substr(0, w.size() - 1);
        return w;
    }
    return w;
}

const std::unordered_map<std::string_view, std::string_view>& irregular_forms() {
    static const std::unordered_map<std::string_view, std::string_view> pool = {
        {"sky", "sky"},         {"skies", "sky"},       {"dying", "die"},     {"lying", "lie"},
        {"tying", "tie"},       {"news", "news"},       {"innings", "inning"}, {"inning", "inning"},
        {"outings", "outing"},  {"outing", "outing"},   {"cannings", "canning"}, {"canning", "canning"},
        {"howe", "howe"},       {"proceed", "proceed"}, {"exceed", "exceed"}, {"succeed", "succeed"},
    };
    return pool;
}

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

std::string porter_stem(std::string_view word_in) {
    std::string w(word_in);
    for (char& ch : w)
        if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
    const auto& pool = irregular_forms();
    if (auto it = pool.find(w); it != pool.end()) return std::string(it->second);
    if (w.size() <= 2) return w;
    w = step1a(w);
    w = step1b(w);
    w = step1c(w);
    w = step2(w);
    w = step3(w);
    w = step4(w);
    w = step5a(w);
    w = step5b(w);
    return w;
}

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
            if (use_stemmer && tok.size() > 3) tok = porter_stem(tok);
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
