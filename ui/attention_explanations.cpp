#include "ui/attention_explanations.h"

#include <QCoreApplication>
#include <QHash>

#include <algorithm>

namespace precis::ui {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("AttentionPatterns", text); }

// The most keys any one word sees (for per-head patterns, head 0's). The global tokens'
// own rows read everything; they are not words of the text, so they do not count here
// unless the whole text is one dense block (short input).
int most_keys_per_query(const AttentionPattern& p) {
    QHash<int, int> per_block;
    for (const PatternSpan& s : p.spans)
        if (s.head <= 0 && (s.query_begin >= p.num_global || !p.sparse_path)) per_block[s.query_begin] += s.key_count;
    int most = 0;
    for (int n : per_block) most = std::max(most, n);
    return most;
}

}  // namespace

PatternChoice choice_for(SparsityType type) { return PatternChoice(int(type)); }

SparsityType sparsity_of(PatternChoice choice) {
    return choice == PatternChoice::Fovea ? SparsityType::None : SparsityType(int(choice));
}

bool depends_on_text(PatternChoice choice) { return choice == PatternChoice::Norm || choice == PatternChoice::Lsh; }

QString pattern_title(PatternChoice choice) {
    switch (choice) {
        case PatternChoice::LocalOnly: return tr("Neighbours only (none)");
        case PatternChoice::Norm: return tr("Strongest keys (norm)");
        case PatternChoice::Pooling: return tr("Averaged groups (pooling)");
        case PatternChoice::Stride: return tr("Every n-th token (stride)");
        case PatternChoice::BlockStride: return tr("Runs of tokens (block_stride)");
        case PatternChoice::BosPooling: return tr("Groups weighted by the first token (bos_pooling)");
        case PatternChoice::Lsh: return tr("Clusters of similar tokens (lsh)");
        case PatternChoice::Fovea: return tr("Sharp near, blurred far (Fovea)");
    }
    return {};
}

QString pattern_explanation(PatternChoice choice, const LsgSettings& s, const FoveaSettings& fovea) {
    const int f = std::max(1, s.sparsity_factor);
    const QString local = tr("Each word reads its own block of %1 tokens and the blocks on either side in full");
    const QString near = local.arg(s.block_size);
    switch (choice) {
        case PatternChoice::LocalOnly: return near + tr(", and nothing farther away except the global tokens.");
        case PatternChoice::Norm:
            return near + tr("; farther away it sees only the 1 token in %1 with the strongest key in each stretch "
                             "of text, so which tokens depends on the document.")
                              .arg(f);
        case PatternChoice::Pooling:
            return near + tr("; farther away every %1 neighbouring tokens are averaged into one key, a blurred view "
                             "of the whole text.")
                              .arg(f);
        case PatternChoice::Stride:
            return near + tr("; farther away it sees 1 token in every %1, and each head starts at a different one, "
                             "so the heads together cover them all.")
                              .arg(f);
        case PatternChoice::BlockStride:
            return near + tr("; farther away it sees short runs of consecutive tokens, 1 run in %1, each head a "
                             "different run.")
                              .arg(f);
        case PatternChoice::BosPooling:
            return near + tr("; farther away every %1 neighbouring tokens become one key, a weighted average in "
                             "which the tokens the first token attends to count most.")
                              .arg(f);
        case PatternChoice::Lsh:
            return near + tr("; farther away tokens whose keys point the same way are hashed into the same cluster "
                             "and each cluster is averaged into one key, so the groups depend on the document.");
        case PatternChoice::Fovea:
            return tr("Each word reads its own block of %1 tokens sharply; blocks farther away are averaged over "
                      "ever larger spans, like the eye's sharp centre and blurred edges.")
                .arg(fovea.block_size);
    }
    return {};
}

QString global_tokens_explanation(int count) {
    if (count <= 0) return {};
    return count == 1 ? tr("The global token (orange) is an extra token every word reads and that reads every "
                           "word: it carries news across everything the model reads.")
                      : tr("The %1 global tokens (orange) are extra tokens every word reads and that read every "
                           "word: they carry news across everything the model reads.")
                            .arg(count);
}

QString pattern_details(PatternChoice choice, const AttentionPattern& pattern, const LsgSettings& s,
                        const FoveaSettings& fovea) {
    const int keys = most_keys_per_query(pattern);
    if (!pattern.sparse_path && choice != PatternChoice::Fovea)
        return tr("This text is short (%1 tokens): every word reads every other word (%2 keys).")
            .arg(pattern.tokens)
            .arg(keys);
    QStringList parts;
    if (choice == PatternChoice::Fovea) {
        parts << tr("blocks of %1 tokens").arg(fovea.block_size) << (fovea.wing == 1 ? tr("1 sharp block each side") : tr("%1 sharp blocks each side").arg(fovea.wing));
    } else {
        parts << tr("blocks of %1 tokens").arg(s.block_size);
        if (choice != PatternChoice::LocalOnly && s.sparse_enabled())
            parts << tr("%1 far keys on each side").arg(s.sparse_block_size)
                  << (choice == PatternChoice::Stride || choice == PatternChoice::BlockStride || choice == PatternChoice::Norm
                          ? tr("1 token in %1 kept").arg(s.sparsity_factor)
                          : choice == PatternChoice::Lsh ? tr("about %1 tokens per far key (clusters vary)").arg(s.sparsity_factor)
                                                         : tr("%1 tokens per far key").arg(s.sparsity_factor));
    }
    parts << (pattern.num_global == 1 ? tr("1 global token") : tr("%1 global tokens").arg(pattern.num_global)) << tr("at most %1 keys per word").arg(keys);
    return parts.join(QStringLiteral(" · "));
}

}  // namespace precis::ui
