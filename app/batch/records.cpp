#include "app/batch/records.h"

#include <QJsonDocument>

#include <nlohmann/json.hpp>

#include "app/batch/source_passages.h"
#include "app/file_names.h"
#include "app/paths.h"
#include "engine/model/model.h"

namespace precis {

namespace {
QJsonObject to_qjson(const nlohmann::json& j) {
    return QJsonDocument::fromJson(QByteArray::fromStdString(j.dump())).object();
}
}  // namespace

SummaryRecord make_summary_record(qint64 document_id, const QString& document_text, const QVector<int>& page_offsets,
                                  const Model& model, const SummaryResult& r, const SummarizeOptions& options,
                                  const QString& device) {
    SummaryRecord s;
    s.document_id = document_id;
    s.model_name = QString::fromStdString(model.name());
    s.model_path = path_from_fs(model.path());
    nlohmann::json params = describe_options(options);
    params["tokens_read"] = r.tokens_read;
    params["score"] = r.score;
    // Stored with the summary, so every export of it can say its words are noise.
    if (is_fixture_test_model(model.path())) params["random_test_model"] = true;
    s.parameters = to_qjson(params);
    s.summary = QString::fromStdString(r.text);
    for (int64_t id : r.ids) s.summary_ids.push_back(qint32(id));
    s.input_tokens = r.input_tokens;
    s.truncated = r.truncated;
    s.seconds_encode = r.encode_seconds;
    s.seconds_generate = r.generate_seconds;
    s.device = device;
    s.passages = source_passages(document_text, page_offsets, r.source_weights, r.source_spans);
    return s;
}

SummaryRecord make_long_summary_record(qint64 document_id, const QString& document_text, const QVector<int>& page_offsets,
                                       const Model& model, const longdoc::LongSummary& result,
                                       const SummarizeOptions& options, const QString& device) {
    SummaryRecord s = make_summary_record(document_id, document_text, page_offsets, model, result.summary, options, device);
    s.parameters.insert("long", QString::fromLatin1(longdoc::long_reading_name(result.reading)));
    s.parameters.insert("trained_tokens", result.trained_tokens);
    if (!result.sections.isEmpty()) s.parameters.insert("combining_passes", result.levels);
    s.sections = result.sections;
    return s;
}

SummaryRecord make_extractive_summary_record(qint64 document_id, const QVector<int>& page_offsets,
                                             const extractive::ExtractiveSummary& e,
                                             const extractive::ExtractiveOptions& options) {
    SummaryRecord s;
    s.document_id = document_id;
    s.method = QStringLiteral("extractive");
    s.model_name = QStringLiteral("extractive");
    s.parameters = QJsonObject{{"method", "extractive"},
                               {"budget", describe_budget(options.budget)},
                               {"budget_words", e.budget_words},
                               {"position_weight", options.position_weight},
                               {"position_decay", options.position_decay},
                               {"redundancy", options.redundancy},
                               {"sentences", int(e.sentences.size())},
                               {"words", e.summary_words},
                               {"document_sentences", e.document_sentences},
                               {"document_words", e.document_words},
                               {"sections", e.sections}};
    s.summary = e.text;
    s.seconds_generate = e.seconds;
    s.device = QStringLiteral("cpu");
    double total = 0;
    for (const auto& sentence : e.sentences) total += sentence.score;
    QVector<SourcePassage> passages;
    for (const auto& sentence : e.sentences)
        passages.push_back({sentence.begin, sentence.end,
                            total > 0 ? sentence.score / total : 1.0 / double(e.sentences.size()),
                            page_of_offset(page_offsets, sentence.begin)});
    s.passages = passages;
    return s;
}

QVector<ClassificationRecord> make_classification_records(qint64 document_id, const Model& model,
                                                          const ClassificationResult& r) {
    QVector<ClassificationRecord> out;
    nlohmann::json params;
    params["multi_label"] = r.multi_label;
    params["zero_shot"] = r.zero_shot;
    params["threshold"] = r.threshold;
    params["tokens_read"] = r.tokens_read;
    params["truncated"] = r.truncated;
    for (const LabelScore& s : r.scores) {
        ClassificationRecord c;
        c.document_id = document_id;
        c.model_name = QString::fromStdString(model.name());
        nlohmann::json p = params;
        p["predicted"] = std::find(r.predicted.begin(), r.predicted.end(), s.label) != r.predicted.end();
        c.parameters = to_qjson(p);
        c.label = QString::fromStdString(s.label);
        c.score = s.score;
        out.push_back(c);
    }
    return out;
}

}  // namespace precis
