#pragma once
// What the engine worker hands back to the UI thread through queued signals. Plain
// values (copied across threads), registered with Qt's meta-type system by
// register_worker_types().
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

#include <vector>

#include "app/worker/engine_settings.h"
#include "app/batch/source_passages.h"
#include "engine/attention/sparse_selection.h"

namespace precis {

// The model a run uses, as the UI shows it (status bar, About box, attention panel).
struct ModelInfo {
    QString name, path;
    QString source;           // how it was found: "settings", "user model folder", "test fixture", ...
    bool is_test_model = false;
    // Summaries are extractive (no model runs): chosen in Settings, or no model installed
    // (source says which). The fields below describe no model then.
    bool extractive = false;
    QString attention;        // "lsg", "full" or "fovea": what runs will use
    LsgSettings lsg;          // effective LSG settings
    FoveaSettings fovea;
    int max_input_tokens = 0;
    int encoder_layers = 0, encoder_heads = 0;
    QString device;           // "cpu", ...
    QString device_notice;    // why the device differs from the request; empty if it does not
    QString compute_type;     // how the weights are held: "fp32", "int8" or "fp16-weights"
};

struct OpenedDocument {
    qint64 document_id = 0;
    QString path;
    bool added = false;  // false: the library already had this content
    QStringList notes;   // what ingestion could not do perfectly
};

struct SummaryOutcome {
    qint64 summary_id = 0, document_id = 0;
    QVector<SourcePassage> passages;  // the sentences the summary drew on
    int input_tokens = 0, tokens_read = 0;
    bool truncated = false;
    bool extractive = false;  // the passages are the summary's own sentences
    int sections = 0;         // read section by section in this many windows (0: one pass)
    int kept_sections = 0;    // of which finished in an earlier, cancelled run
};

// A classification stored in the library; the labels and scores are read from there.
struct ClassificationOutcome {
    qint64 document_id = 0;
    QString model_name;
    QString top_label;     // the best-scoring label
    double top_score = 0;
    int labels = 0;        // how many labels were scored
    bool zero_shot = false;
    int input_tokens = 0, tokens_read = 0;
    bool truncated = false;
};

struct SourceTrace {
    qint64 summary_id = 0;
    QVector<SourcePassage> passages;
};

struct AttentionRequest {
    qint64 document_id = 0;
    int layer = 0, head = 0;
    EngineSettings settings;
};

// The captured weights of one encoder layer and head, folded onto a square grid of
// `grid` x `grid` cells over the G + padded rows (each cell the largest weight of a query
// row in its bucket for a key built from a row in its bucket).
struct AttentionCaptureResult {
    qint64 document_id = 0;
    int layer = 0, head = 0;
    int num_global = 0;    // G global rows first
    int rows = 0;          // G + padded tokens
    int tokens_read = 0;   // real tokens (before padding)
    bool sparse_path = false;
    QString attention;     // which attention ran
    int grid = 0;
    std::vector<float> cells;  // grid x grid, row-major (query bucket, key bucket)
    float max_weight = 0;
    QString sparsity_type;     // LSG: the sparsity type the run used ("norm", "lsh", ...)
    SparseSelection sparse;    // LSG sparse path: the sparse keys this layer and head used
    QStringList row_texts;     // per row: the token's text (empty for global rows and padding)
};

struct BatchRequest {
    QString root;
    bool recursive = false;
    bool retry_failed = false;
    bool classify = false;  // also classify each file with settings.classifier
    EngineSettings settings;
};

struct BatchFileFailure {
    QString path, reason;
};

struct BatchOutcome {
    int total = 0, done_before = 0, done_now = 0, kept = 0;  // as BatchReport
    bool resumed = false, cancelled = false;
    QVector<BatchFileFailure> failures;       // this run's
    QVector<BatchFileFailure> failed_before;  // an earlier run's, not retried: still failed
    int retried = 0;                          // earlier failures this run tried again
    int classified = -1;                      // files of the job carrying the classifier's labels; -1: not classifying
};

void register_worker_types();

}  // namespace precis

Q_DECLARE_METATYPE(precis::ModelInfo)
Q_DECLARE_METATYPE(precis::OpenedDocument)
Q_DECLARE_METATYPE(precis::SummaryOutcome)
Q_DECLARE_METATYPE(precis::SourceTrace)
Q_DECLARE_METATYPE(precis::ClassificationOutcome)
Q_DECLARE_METATYPE(precis::AttentionCaptureResult)
Q_DECLARE_METATYPE(precis::BatchOutcome)
Q_DECLARE_METATYPE(precis::EngineSettings)
