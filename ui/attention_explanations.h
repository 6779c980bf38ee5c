#pragma once
// The words the attention panel uses for a reader who has not read the LSG paper: one
// plain line per pattern (what a word of the document gets to look at), the settings in
// words, and the paper's notation kept for the tooltip.
#include <QString>

#include "engine/attention/attention_pattern.h"
#include "engine/config/config.h"

namespace precis::ui {

// The patterns the panel offers, in the order of its list: the seven LSG sparsity types
// (same order as SparsityType) and Fovea.
enum class PatternChoice { LocalOnly, Norm, Pooling, Stride, BlockStride, BosPooling, Lsh, Fovea };
inline constexpr int kPatternChoices = 8;

PatternChoice choice_for(SparsityType type);
SparsityType sparsity_of(PatternChoice choice);  // Fovea: None
// Norm and lsh pick their far keys from the text itself: only a run can show them.
bool depends_on_text(PatternChoice choice);

QString pattern_title(PatternChoice choice);  // the list entry, e.g. "Strongest keys (norm)"
// One sentence: what each word sees with this pattern, numbers filled in from `s`.
QString pattern_explanation(PatternChoice choice, const LsgSettings& s, const FoveaSettings& fovea);
// What the global tokens are, in one sentence (shown under every LSG pattern that has them).
QString global_tokens_explanation(int count);
// The settings in words ("blocks of 128 tokens · 2 tokens per far key · ..."); the paper's
// notation ("B=128 SB=128 f=2 G=1") stays in pattern.summary, for the tooltip.
QString pattern_details(PatternChoice choice, const AttentionPattern& pattern, const LsgSettings& s,
                        const FoveaSettings& fovea);

}  // namespace precis::ui
