#include "app/worker/settings_description.h"

#include "app/file_names.h"

#include <QCoreApplication>
#include <QDir>

namespace precis {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("SettingsDescription", text); }

QString attention_part(const EngineSettings& s) {
    if (s.attention == QLatin1String("model") && !s.lsg_override) return tr("attention as the model was saved");
    QString text = tr("attention %1").arg(s.attention == QLatin1String("model") ? QStringLiteral("lsg") : s.attention);
    if (s.lsg_override && s.attention != QLatin1String("full") && s.attention != QLatin1String("fovea"))
        text += tr(" (%1, blocks of %2)").arg(QString::fromLatin1(sparsity_type_name(s.sparsity_type))).arg(s.block_size);
    if (s.max_positions > 0) text += tr(", reading up to %1 tokens").arg(s.max_positions);
    return text;
}

QString generation_part(const EngineSettings& s) {
    if (!s.generation_override) return tr("the model's own generation settings");
    return tr("generation: %1 beams, length %2-%3, length penalty %4, no repeated %5-grams")
        .arg(s.num_beams)
        .arg(s.min_length)
        .arg(s.max_length)
        .arg(s.length_penalty)
        .arg(s.no_repeat_ngram_size);
}

}  // namespace

QString describe_engine_settings(const EngineSettings& s) {
    if (uses_extractive(s)) {
        const QString why = s.method == QLatin1String("extractive") ? tr("chosen in Settings")
                                                                    : tr("no summarization model is installed");
        const QString length = s.extractive_sentences > 0 ? tr("%1 sentences").arg(s.extractive_sentences)
                                                          : tr("length automatic");
        return tr("Extractive: each document's own most central sentences (%1), %2").arg(why, length);
    }
    const std::optional<ResolvedModel> model = find_model(s);
    if (!model) return tr("Model: none found (the run will say how to install one)");
    const QString folder = path_from_fs(model->dir.filename().empty() ? model->dir.parent_path().filename() : model->dir.filename());
    QString text = tr("Model: %1 (%2)").arg(path_for_display(folder), model->source);
    if (model->is_test_model) text += tr(", the RANDOM test model: its summaries are meaningless");
    text += tr("; device %1; %2; %3").arg(s.device, attention_part(s), generation_part(s));
    return text;
}

}  // namespace precis
