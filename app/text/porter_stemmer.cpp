#include "app/text/porter_stemmer.h"

#include <string>
#include <unordered_map>

namespace precis::text {
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

}  // namespace precis::text
