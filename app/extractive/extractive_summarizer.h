#pragma once
// The summary Precis gives without a neural model: the document's own most central
// sentences, in the order the document has them.
//
//  1. Sentences and paragraphs (app/text/sentence_segmenter.h), content terms with stems
//     and stop words (app/text/content_terms.h), TF-IDF vectors.
//  2. Centrality: LexRank over the similarity graph of each section (document_sections.h).
//  3. Score = (1 - position_weight) * centrality / max centrality
//           + position_weight * exp(-position / position_decay),
//     position counting sentences from the start of the document, or of the section in a
//     long document; news and encyclopedia articles put their point first.
//  4. Selection by maximal marginal relevance: repeatedly the sentence whose score minus
//     `redundancy` x (its largest similarity to a sentence already chosen) is highest, within
//     the length budget. In a long document with sections, each section first gets a share
//     of the budget in proportion to its length, so a book's summary spans the book.
//  5. Sentences that cannot stand alone: headings, title pages and tables of contents
//     (document_sections.h) are never chosen; nor are sentences with fewer than
//     `min_content_terms` content words ("It is very necessary to do so."), nor lines of
//     dialogue shorter than `min_dialogue_words` ("Come to tea one day--yes, do!"); dialogue
//     gets no position weight. One that opens by pointing back ("It", "These", "However",
//     "Second", ...), or a short one that takes up a word of the sentence before it ("A car
//     park swallows nothing."), is chosen only together with the sentence before it, and
//     then at `dependent_factor` of its score, unless that sentence is already in the summary.
#include <QString>

#include <functional>
#include <vector>

namespace precis::extractive {

enum class BudgetUnit {
    Automatic,  // about 3 x sqrt(document words), between 40 and 400 words
    Sentences,  // exactly this many sentences (fewer if the document has fewer)
    Words,      // at most this many words
    Ratio,      // at most this share (0..1] of the document's words
};

struct SummaryBudget {
    BudgetUnit unit = BudgetUnit::Automatic;
    double value = 0;
};

struct ExtractiveOptions {
    SummaryBudget budget;
    // Tuned on the validation splits of ../shared/corpus (cnn, wiki_lead), with the automatic
    // length; see tools/eval/README.md for the search and its results.
    double position_weight = 0.3;
    double position_decay = 8.0;   // sentences
    double redundancy = 0.5;
    // Score multiplier for dialogue and questions (a sentence opening with a quotation mark,
    // an interjection ("Oh but--said the soldier--") or a reply ("No.", "Yes, ..."), the rest
    // of a paragraph after such a short reply, or ending with '?'): a novel's summary should
    // tell its story, not quote its talk. Dialogue gets no position weight either.
    double dialogue_factor = 0.6;
    // Score multiplier for a sentence that opens by pointing back ("It", "This", "However",
    // ...) while the sentence before it is not in the summary: it then brings that sentence
    // along, and counts at this share of its score.
    double dependent_factor = 0.6;
    int min_sentence_words = 5;    // shorter sentences (captions, fragments) are never chosen...
    int max_sentence_words = 70;   // ...nor run-ons, unless nothing else is left...
    int min_content_terms = 3;     // ...nor sentences with fewer distinct content words ("It is very necessary to do so.")
    int min_dialogue_words = 8;    // ...nor shorter dialogue ("Come to tea one day--yes, do!")
    // A sentence shorter than this that takes up a content word of the sentence before it in
    // the same paragraph ("A car park swallows nothing.") leans on that sentence, as below.
    int short_sentence_words = 7;
    size_t spread_min_sentences = 150;  // documents at least this long spread over their sections
    std::function<bool()> should_abort;  // polled between stages; true ends the run with precis::Cancelled
};

struct ExtractedSentence {
    int begin = 0, end = 0;  // QString indices into the document text
    int index = 0;           // the sentence's number in the document (0-based)
    int section = 0;
    int words = 0;
    double score = 0;        // the score it was chosen with
    QString text;            // as a reader sees it (line wraps joined)
};

// Words are reported as a reader counts them (text::count_words: "flood-plain" is one word),
// as the document's header does. Budgets and the rules above count ICU words ("flood-plain"
// is two), which they were tuned with; those are never fewer, so a summary within a budget
// of N words has at most N words by either count.
struct ExtractiveSummary {
    QString text;                              // the chosen sentences, one per line
    std::vector<ExtractedSentence> sentences;  // in document order
    int document_sentences = 0;
    int document_words = 0;
    int sections = 0;
    int budget_words = 0;  // the resolved budget; 0 when counted in sentences
    int summary_words = 0;
    double seconds = 0;
};

// The number of words a budget allows for a document of `document_words` words; 0 for
// a budget in sentences.
int budget_in_words(const SummaryBudget& budget, int document_words);

// "auto", "6 sentences", "120 words", "15% of the words".
QString describe_budget(const SummaryBudget& budget);

// Throws precis::Error when the text has no sentence to choose (empty or only symbols),
// and precis::Cancelled when should_abort says so.
ExtractiveSummary summarize_extractive(const QString& text, const ExtractiveOptions& options = {});

}  // namespace precis::extractive
