#include "app/extractive/extractive_summarizer.h"

#include <QStringList>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "app/extractive/document_sections.h"
#include "app/extractive/lexrank.h"
#include "app/extractive/sentence_vectors.h"
#include "app/text/content_terms.h"
#include "app/text/sentence_segmenter.h"
#include "engine/core/error.h"

namespace precis::extractive {

namespace {

// Similarity graphs are dense: a document longer than this is ranked section by section.
constexpr size_t kMaxGraphSentences = 400;

struct Candidate {
    size_t index;
    double score;
    size_t section;
};

// Maximal marginal relevance under the budget. `section_allowance` (words, or sentences
// for a budget in sentences) is empty when the document is not spread over sections.
std::vector<size_t> select_sentences(const std::vector<Candidate>& candidates, const std::vector<SparseVector>& vectors,
                                     const std::vector<int>& words, const ExtractiveOptions& options, int budget_words,
                                     int budget_sentences, const std::vector<double>& section_allowance) {
    std::vector<size_t> chosen;
    std::vector<double> max_similarity(candidates.size(), 0.0);
    std::vector<bool> open(candidates.size(), true), picked(candidates.size(), false);
    std::vector<double> section_used(section_allowance.size(), 0.0);
    int total_words = 0;
    const bool in_sentences = budget_sentences > 0;
    auto full = [&] { return in_sentences ? int(chosen.size()) >= budget_sentences : total_words >= budget_words; };
    for (int pass = section_allowance.empty() ? 1 : 0; pass < 2 && !full(); ++pass) {
        while (!full()) {
            size_t best = candidates.size();
            double best_value = -1e300;
            for (size_t c = 0; c < candidates.size(); ++c) {
                if (!open[c]) continue;
                const Candidate& cand = candidates[c];
                if (pass == 0 && section_used[cand.section] >= section_allowance[cand.section]) continue;
                if (!in_sentences && total_words + words[cand.index] > budget_words) {
                    open[c] = false;  // can never fit again: the budget only shrinks
                    continue;
                }
                const double value = cand.score - options.redundancy * max_similarity[c];
                if (value > best_value) {
                    best_value = value;
                    best = c;
                }
            }
            if (best == candidates.size()) break;
            open[best] = false;
            picked[best] = true;
            const Candidate& pick = candidates[best];
            chosen.push_back(pick.index);
            total_words += words[pick.index];
            if (!section_used.empty()) section_used[pick.section] += in_sentences ? 1.0 : double(words[pick.index]);
            for (size_t c = 0; c < candidates.size(); ++c)
                if (open[c])
                    max_similarity[c] =
                        std::max(max_similarity[c], double(cosine(vectors[candidates[c].index], vectors[pick.index])));
        }
        // The first pass closed candidates of sections whose share was used up: reopen those
        // that still fit for the second pass.
        if (pass == 0)
            for (size_t c = 0; c < candidates.size(); ++c)
                open[c] = !picked[c] && (in_sentences || total_words + words[candidates[c].index] <= budget_words);
    }
    return chosen;
}

bool is_dialogue(const QString& sentence) {
    static const QString quotes = QStringLiteral("\"'\u201C\u2018\u00AB\u300C\u300E");
    return (!sentence.isEmpty() && quotes.contains(sentence.front())) || sentence.endsWith(u'?');
}

}  // namespace

int budget_in_words(const SummaryBudget& budget, int document_words) {
    switch (budget.unit) {
        case BudgetUnit::Sentences: return 0;
        case BudgetUnit::Words: return std::max(1, int(budget.value));
        case BudgetUnit::Ratio: return std::max(1, int(std::lround(budget.value * document_words)));
        case BudgetUnit::Automatic: break;
    }
    return std::clamp(int(std::lround(4.0 * std::sqrt(double(document_words)))), 40, 400);
}

QString describe_budget(const SummaryBudget& budget) {
    switch (budget.unit) {
        case BudgetUnit::Sentences: return QStringLiteral("%1 sentences").arg(budget.value);
        case BudgetUnit::Words: return QStringLiteral("%1 words").arg(budget.value);
        case BudgetUnit::Ratio: return QStringLiteral("%1% of the words").arg(100.0 * budget.value);
        case BudgetUnit::Automatic: break;
    }
    return QStringLiteral("auto");
}

ExtractiveSummary summarize_extractive(const QString& text, const ExtractiveOptions& options) {
    const auto started = std::chrono::steady_clock::now();
    auto check_abort = [&] {
        if (options.should_abort && options.should_abort()) throw Cancelled();
    };
    if (options.budget.unit != BudgetUnit::Automatic && !(options.budget.value > 0))
        throw Error("the summary length must be more than 0");
    if (options.budget.unit == BudgetUnit::Ratio && options.budget.value > 1)
        throw Error("the summary ratio must be at most 1 (the whole document)");

    const text::SegmentedText segmented = text::segment_sentences(text);
    const auto& sentences = segmented.sentences;
    const size_t n = sentences.size();
    if (n == 0) throw Error("the text has no sentence to summarize");
    check_abort();
    const text::SentenceTerms terms = text::sentence_terms(segmented);
    const std::vector<SparseVector> vectors = tfidf_vectors(terms);
    check_abort();

    const std::vector<bool> heading = heading_sentences(segmented, terms.words);
    std::vector<QString> sentence_texts(n);
    int document_words = 0;
    for (size_t i = 0; i < n; ++i) {
        sentence_texts[i] = text::sentence_text(segmented, sentences[i]);
        document_words += terms.words[i];
    }
    const std::vector<Section> sections = document_sections(segmented, heading);
    const bool spread = sections.size() > 1 && n >= options.spread_min_sentences;

    // Centrality, one graph per section once the document is too long for one graph.
    std::vector<double> centrality(n, 0.0);
    std::vector<size_t> section_of(n, 0);
    for (size_t s = 0; s < sections.size(); ++s)
        for (size_t i = sections[s].begin; i < sections[s].end; ++i) section_of[i] = s;
    if (n <= kMaxGraphSentences) {
        centrality = lexrank(vectors, 0, n);
    } else {
        for (const Section& s : sections) {
            const std::vector<double> c = lexrank(vectors, s.begin, s.end);
            std::copy(c.begin(), c.end(), centrality.begin() + std::ptrdiff_t(s.begin));
            check_abort();
        }
    }
    const double max_centrality = std::max(1e-12, *std::max_element(centrality.begin(), centrality.end()));

    // Scores of the sentences that may be chosen (headings never; fragments and run-ons
    // only when nothing else is left).
    auto candidates_with = [&](int min_words, int max_words) {
        std::vector<Candidate> out;
        int position = 0;
        size_t section = 0;
        for (size_t i = 0; i < n; ++i) {
            if (spread && section_of[i] != section) {
                section = section_of[i];
                position = 0;
            }
            if (heading[i]) continue;
            const int pos = position++;
            if (terms.words[i] < min_words || terms.words[i] > max_words) continue;
            const double prior = std::exp(-double(pos) / std::max(1e-6, options.position_decay));
            double score =
                (1.0 - options.position_weight) * centrality[i] / max_centrality + options.position_weight * prior;
            if (is_dialogue(sentence_texts[i])) score *= options.dialogue_factor;
            out.push_back({i, score, section_of[i]});
        }
        return out;
    };
    std::vector<Candidate> candidates = candidates_with(options.min_sentence_words, options.max_sentence_words);
    if (candidates.empty()) candidates = candidates_with(1, std::numeric_limits<int>::max());
    if (candidates.empty())  // only headings: a document of titles
        for (size_t i = 0; i < n; ++i) candidates.push_back({i, centrality[i] / max_centrality, section_of[i]});

    const int budget_words = budget_in_words(options.budget, document_words);
    const int budget_sentences = options.budget.unit == BudgetUnit::Sentences ? int(options.budget.value) : 0;
    std::vector<double> allowance;
    if (spread) {
        allowance.assign(sections.size(), 0.0);
        const double total = budget_sentences ? double(budget_sentences) : double(budget_words);
        for (size_t i = 0; i < n; ++i) allowance[section_of[i]] += total * terms.words[i] / std::max(1, document_words);
    }
    std::vector<size_t> chosen =
        select_sentences(candidates, vectors, terms.words, options, budget_words, budget_sentences, allowance);
    if (chosen.empty()) {
        // No sentence fits the word budget: the best one alone, shortest first among equals.
        const auto best = std::max_element(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
            return a.score != b.score ? a.score < b.score : terms.words[a.index] > terms.words[b.index];
        });
        chosen.push_back(best->index);
    }
    std::sort(chosen.begin(), chosen.end());
    std::vector<double> score_of(n, 0.0);
    for (const Candidate& c : candidates) score_of[c.index] = c.score;

    ExtractiveSummary out;
    out.document_sentences = int(n);
    out.document_words = document_words;
    out.sections = int(sections.size());
    out.budget_words = budget_words;
    QStringList lines;
    for (size_t i : chosen) {
        ExtractedSentence e;
        e.begin = sentences[i].begin;
        e.end = sentences[i].end;
        e.index = int(i);
        e.section = int(section_of[i]);
        e.words = terms.words[i];
        e.score = score_of[i];
        e.text = sentence_texts[i];
        out.summary_words += e.words;
        lines << e.text;
        out.sentences.push_back(std::move(e));
    }
    out.text = lines.join(u'\n');
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return out;
}

}  // namespace precis::extractive
