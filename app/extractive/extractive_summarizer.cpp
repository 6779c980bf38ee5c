#include "app/extractive/extractive_summarizer.h"

#include <QSet>
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

constexpr size_t kNone = std::numeric_limits<size_t>::max();

struct Candidate {
    size_t index;
    double score;    // as chosen with its antecedent, or when it needs none
    size_t section;
    size_t leans_on = kNone;  // the sentence before it, which it refers back to
    double alone = 0;         // its score when taken without `leans_on` (penalized)
};

// Maximal marginal relevance under the budget. `section_allowance` (words, or sentences
// for a budget in sentences) is empty when the document is not spread over sections.
std::vector<size_t> select_sentences(const std::vector<Candidate>& candidates, const std::vector<SparseVector>& vectors,
                                     const std::vector<int>& words, const ExtractiveOptions& options, int budget_words,
                                     int budget_sentences, const std::vector<double>& section_allowance) {
    std::vector<size_t> chosen;
    std::vector<bool> in_summary(words.size(), false);
    std::vector<double> max_similarity(candidates.size(), 0.0);
    std::vector<bool> open(candidates.size(), true);
    std::vector<size_t> candidate_of(words.size(), kNone);
    for (size_t c = 0; c < candidates.size(); ++c) candidate_of[candidates[c].index] = c;
    std::vector<double> section_used(section_allowance.size(), 0.0);
    int total_words = 0;
    const bool in_sentences = budget_sentences > 0;
    auto full = [&] { return in_sentences ? int(chosen.size()) >= budget_sentences : total_words >= budget_words; };
    // A sentence that leans on the one before it comes with that one unless it is already in.
    auto brings = [&](const Candidate& cand) { return cand.leans_on != kNone && !in_summary[cand.leans_on]; };
    auto cost = [&](const Candidate& cand) {
        const int own = in_sentences ? 1 : words[cand.index];
        return own + (brings(cand) ? (in_sentences ? 1 : words[cand.leans_on]) : 0);
    };
    auto fits = [&](const Candidate& cand) {
        return in_sentences ? int(chosen.size()) + cost(cand) <= budget_sentences : total_words + cost(cand) <= budget_words;
    };
    auto add = [&](size_t index, size_t section) {
        in_summary[index] = true;
        chosen.push_back(index);
        total_words += words[index];
        if (!section_used.empty()) section_used[section] += in_sentences ? 1.0 : double(words[index]);
        if (candidate_of[index] != kNone) open[candidate_of[index]] = false;
        for (size_t c = 0; c < candidates.size(); ++c)
            if (open[c])
                max_similarity[c] = std::max(max_similarity[c], double(cosine(vectors[candidates[c].index], vectors[index])));
    };
    for (int pass = section_allowance.empty() ? 1 : 0; pass < 2 && !full(); ++pass) {
        while (!full()) {
            size_t best = candidates.size();
            double best_value = -1e300;
            for (size_t c = 0; c < candidates.size(); ++c) {
                if (!open[c]) continue;
                const Candidate& cand = candidates[c];
                if (pass == 0 && section_used[cand.section] >= section_allowance[cand.section]) continue;
                if (!fits(cand)) {
                    // A word budget only shrinks, so it never fits again; in sentences it
                    // may, once its antecedent is in for another reason.
                    if (!in_sentences) open[c] = false;
                    continue;
                }
                const double value = (brings(cand) ? cand.alone : cand.score) - options.redundancy * max_similarity[c];
                if (value > best_value) {
                    best_value = value;
                    best = c;
                }
            }
            if (best == candidates.size()) break;
            const Candidate pick = candidates[best];
            if (brings(pick)) add(pick.leans_on, pick.section);
            add(pick.index, pick.section);
        }
        // The first pass closed candidates of sections whose share was used up: reopen those
        // that still fit for the second pass.
        if (pass == 0)
            for (size_t c = 0; c < candidates.size(); ++c)
                open[c] = !in_summary[candidates[c].index] && (in_sentences || fits(candidates[c]));
    }
    return chosen;
}

// Talk rather than telling: a sentence that opens with a quotation mark, ends with '?' (before
// any closing quotation mark: 'Must you go?"'), or opens with an interjection or a reply ("Oh
// but--said the soldier--the train-men--!", "No.", "Yes, there must be war--with France.").
// A '!' alone does not make talk: news leads end with one ("...new programs to stream!").
bool is_dialogue(const QString& sentence) {
    static const QString quotes = QStringLiteral("\"'\u201C\u2018\u00AB\u300C\u300E");
    static const QString closing = QStringLiteral("\"'\u201D\u2019\u00BB\u300D\u300F)]");
    static const QSet<QString> interjections = {
        QStringLiteral("oh"), QStringLiteral("ah"), QStringLiteral("alas"), QStringLiteral("eh"), QStringLiteral("ha"),
    };
    static const QSet<QString> replies = {
        QStringLiteral("yes"), QStringLiteral("no"),   QStringLiteral("well"), QStringLiteral("ay"),
        QStringLiteral("aye"), QStringLiteral("nay"),  QStringLiteral("why"),  QStringLiteral("yeah"),
        QStringLiteral("nope"), QStringLiteral("o"),
    };
    if (sentence.isEmpty()) return false;
    if (quotes.contains(sentence.front())) return true;
    qsizetype e = sentence.size();
    while (e > 0 && closing.contains(sentence[e - 1])) --e;
    if (e > 0 && sentence[e - 1] == u'?') return true;
    qsizetype w = 0;
    while (w < sentence.size() && sentence[w].isLetter()) ++w;
    if (w == 0 || w >= sentence.size()) return false;
    const QString first = sentence.left(w).toLower();
    // "Oh but--said the soldier--the train-men--!": an interjection opens talk whatever follows...
    if (interjections.contains(first)) return true;
    // ...a reply only before punctuation: "No one was hurt" is not a reply.
    return QStringLiteral(".,!-;:").contains(sentence[w]) && replies.contains(first);
}

// A sentence is prose when at least half its words are words of letters: not a row of a
// table ("b. 1824 d. 1832 d. 1832") nor a list of figures.
bool is_prose(const QString& sentence) {
    int tokens = 0, wordlike = 0;
    for (const QString& token : sentence.split(u' ', Qt::SkipEmptyParts)) {
        ++tokens;
        int letters = 0;
        for (QChar c : token) letters += c.isLetter();
        wordlike += letters >= 2;
    }
    return 2 * wordlike >= tokens;
}

// A sentence that opens by pointing back ("It is very necessary to do so.", "These
// were...", "However, ...") or goes on from the one before means little without it.
bool leans_on_previous(const QString& sentence) {
    static const QSet<QString> openers = {
        QStringLiteral("it"),        QStringLiteral("its"),         QStringLiteral("this"),      QStringLiteral("these"),
        QStringLiteral("that"),      QStringLiteral("those"),       QStringLiteral("they"),      QStringLiteral("them"),
        QStringLiteral("their"),     QStringLiteral("he"),          QStringLiteral("his"),       QStringLiteral("she"),
        QStringLiteral("her"),       QStringLiteral("such"),        QStringLiteral("however"),   QStringLiteral("but"),
        QStringLiteral("and"),       QStringLiteral("or"),          QStringLiteral("nor"),       QStringLiteral("so"),
        QStringLiteral("yet"),       QStringLiteral("also"),        QStringLiteral("thus"),      QStringLiteral("therefore"),
        QStringLiteral("hence"),     QStringLiteral("moreover"),    QStringLiteral("furthermore"), QStringLiteral("besides"),
        QStringLiteral("nevertheless"), QStringLiteral("nonetheless"), QStringLiteral("still"),  QStringLiteral("then"),
        QStringLiteral("instead"),   QStringLiteral("otherwise"),   QStringLiteral("meanwhile"), QStringLiteral("indeed"),
        QStringLiteral("likewise"),  QStringLiteral("similarly"),   QStringLiteral("consequently"), QStringLiteral("accordingly"),
        QStringLiteral("here"),      QStringLiteral("additionally"), QStringLiteral("second"),  QStringLiteral("secondly"),
        QStringLiteral("third"),     QStringLiteral("thirdly"),     QStringLiteral("fourth"),    QStringLiteral("fifth"),
        QStringLiteral("finally"),   QStringLiteral("lastly"),
    };
    qsizetype b = 0;
    while (b < sentence.size() && !sentence[b].isLetter()) ++b;
    // Opening in lower case, it goes on from the one before: '"Why?" cried the Socman, ...'.
    if (b < sentence.size() && sentence[b].isLower()) return true;
    qsizetype e = b;
    while (e < sentence.size() && sentence[e].isLetter()) ++e;
    return openers.contains(sentence.mid(b, e - b).toLower());
}

}  // namespace

int budget_in_words(const SummaryBudget& budget, int document_words) {
    switch (budget.unit) {
        case BudgetUnit::Sentences: return 0;
        case BudgetUnit::Words: return std::max(1, int(budget.value));
        case BudgetUnit::Ratio: return std::max(1, int(std::lround(budget.value * document_words)));
        case BudgetUnit::Automatic: break;
    }
    // One rule for news, encyclopedia articles and books, tuned on the cnn and wiki_lead
    // validation splits (tools/eval/README.md): their references stay about the same length
    // however long the article, so the budget grows slowly with it.
    return std::clamp(int(std::lround(3.0 * std::sqrt(double(document_words)))), 40, 400);
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
    auto distinct_terms = [&](size_t i) {
        std::vector<int> t = terms.terms[i];
        std::sort(t.begin(), t.end());
        return int(std::unique(t.begin(), t.end()) - t.begin());
    };
    // Dialogue, and the rest of a reply after its first word ("No. Perhaps in an hour there
    // would be milk.": the sentence after a short line of talk in the same paragraph).
    std::vector<bool> dialogue(n, false);
    for (size_t i = 0; i < n; ++i)
        dialogue[i] = is_dialogue(sentence_texts[i]) ||
                      (i > 0 && dialogue[i - 1] && sentences[i - 1].paragraph == sentences[i].paragraph &&
                       terms.words[i - 1] < options.min_sentence_words);
    // A short sentence that takes up a word of the one before ("A forest on deep soil can
    // swallow a summer storm almost entirely. A car park swallows nothing.") answers it.
    auto echoes_previous = [&](size_t i) {
        if (i == 0 || terms.words[i] >= options.short_sentence_words || sentences[i - 1].paragraph != sentences[i].paragraph)
            return false;
        const std::vector<int>& before = terms.terms[i - 1];
        return std::any_of(terms.terms[i].begin(), terms.terms[i].end(),
                           [&](int t) { return std::find(before.begin(), before.end(), t) != before.end(); });
    };
    auto candidates_with = [&](int min_words, int max_words, int min_terms, int min_dialogue_words) {
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
            if (terms.words[i] < min_words || terms.words[i] > max_words || distinct_terms(i) < min_terms) continue;
            if (min_terms > 0 && !is_prose(sentence_texts[i])) continue;
            // Talk is no summary's opening: dialogue gets no weight for its position, and a
            // short line of it ("Come to tea one day--yes, do!") is a fragment.
            if (dialogue[i] && terms.words[i] < min_dialogue_words) continue;
            const double prior = dialogue[i] ? 0.0 : std::exp(-double(pos) / std::max(1e-6, options.position_decay));
            double score =
                (1.0 - options.position_weight) * centrality[i] / max_centrality + options.position_weight * prior;
            if (dialogue[i]) score *= options.dialogue_factor;
            Candidate c{i, score, section_of[i]};
            c.alone = score;
            if (leans_on_previous(sentence_texts[i]) || echoes_previous(i)) {
                c.alone = score * options.dependent_factor;
                // The antecedent is the sentence before, unless a heading or another section
                // stands between: then there is nothing to bring and the penalty stays.
                if (i > 0 && !heading[i - 1] && section_of[i - 1] == section_of[i])
                    c.leans_on = i - 1;
                else
                    c.score = c.alone;
            }
            out.push_back(c);
        }
        return out;
    };
    std::vector<Candidate> candidates = candidates_with(options.min_sentence_words, options.max_sentence_words,
                                                        options.min_content_terms, options.min_dialogue_words);
    if (candidates.empty()) candidates = candidates_with(1, std::numeric_limits<int>::max(), 0, 0);
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
    // All of the text, as the document's header counts it (headings, tables and code that
    // are no sentence included), so that the two numbers a person sees agree.
    out.document_words = text::count_words(text);
    out.sections = int(sections.size());
    out.budget_words = budget_words;
    QStringList lines;
    for (size_t i : chosen) {
        ExtractedSentence e;
        e.begin = sentences[i].begin;
        e.end = sentences[i].end;
        e.index = int(i);
        e.section = int(section_of[i]);
        e.words = terms.counted_words[i];
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
