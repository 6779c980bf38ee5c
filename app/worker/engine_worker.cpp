#include "engine/generate/model_runner.h"
#include "app/worker/engine_worker.h"

#include <algorithm>

#include "app/batch/batch_runner.h"
#include "app/batch/records.h"
#include "app/batch/source_passages.h"
#include "app/long/extractive_outline.h"
#include "app/long/section_store.h"
#include "app/extractive/extractive_summarizer.h"
#include "app/file_names.h"
#include "app/ingest/ingest.h"
#include "app/library/library.h"
#include "app/paths.h"
#include "app/worker/compute_type_setting.h"
#include "app/worker/encoder_runs.h"
#include "app/worker/model_cache.h"
#include "app/worker/model_import.h"
#include "engine/backend/backend.h"
#include "engine/core/error.h"
#include "engine/model/model.h"

namespace precis {

namespace fs = std::filesystem;

namespace {

// The heat map never needs more cells than a screen has pixels.
constexpr int kMaxAttentionGrid = 1024;

QString stage_text(RunStage stage, int done, int total) {
    switch (stage) {
        case RunStage::Encoding: return QStringLiteral("encoding layer %1/%2").arg(done).arg(total);
        case RunStage::Generating: return QStringLiteral("generating token %1/%2").arg(done).arg(total);
        case RunStage::Classifying: return QStringLiteral("classifying %1/%2").arg(done).arg(total);
    }
    return {};
}

// The settings a stored summary was made with, so re-tracing it runs the same encoder.
EngineSettings settings_for_summary(const SummaryRecord& s, EngineSettings base) {
    const QJsonObject& p = s.parameters;
    base.model_dir = s.model_path;
    base.attention = p.value("attention").toString(base.attention);
    if (base.attention == "lsg" && p.contains("block_size")) {
        base.lsg_override = true;
        try {
            base.sparsity_type = parse_sparsity_type(p.value("sparsity_type").toString().toStdString());
        } catch (const Error&) {
        }
        base.block_size = p.value("block_size").toInt(base.block_size);
        base.sparse_block_size = p.value("sparse_block_size").toInt(base.sparse_block_size);
        base.sparsity_factor = p.value("sparsity_factor").toInt(base.sparsity_factor);
        base.num_global_tokens = p.value("num_global_tokens").toInt(base.num_global_tokens);
    }
    base.fovea_block_size = p.value("fovea_block_size").toInt(base.fovea_block_size);
    base.fovea_wing = p.value("fovea_wing").toInt(base.fovea_wing);
    return base;
}

}  // namespace

EngineWorker::EngineWorker(QString library_path, std::shared_ptr<ModelCache> models, QObject* parent)
    : QObject(parent),
      library_path_(std::move(library_path)),
      models_(std::move(models)),
      classifiers_(std::make_shared<ModelCache>()) {
    register_worker_types();
}

EngineWorker::~EngineWorker() = default;

void EngineWorker::request_cancel(quint64 up_to_ticket) {
    quint64 seen = cancelled_up_to_.load();
    while (seen < up_to_ticket && !cancelled_up_to_.compare_exchange_weak(seen, up_to_ticket)) {
    }
}

std::shared_ptr<Backend> EngineWorker::backend() {
    if (!backend_) use_device(QStringLiteral("auto"));
    return backend_;
}

// One backend per device and precision setting, kept from run to run: the GPU's weights are
// uploaded once.
const DeviceChoice& EngineWorker::use_device(const QString& requested, const QString& dtype) {
    if (!backend_ || requested != device_request_ || dtype != dtype_request_) {
        device_ = choose_device(requested, dtype);
        backend_ = device_.backend;
        device_request_ = requested;
        dtype_request_ = dtype;
    }
    return device_;
}

QString EngineWorker::device_in_use() const {
    // After a GPU failure the backend runs on the CPU: the library records where it ran.
    if (backend_ && backend_->runner()) return QString::fromStdString(backend_->runner()->device_name());
    return QStringLiteral("cpu");
}

bool EngineWorker::is_cancelled(quint64 ticket) const { return cancelled_up_to_.load() >= ticket; }

Library& EngineWorker::library() {
    if (!library_) library_ = std::make_unique<Library>(library_path_);
    return *library_;
}

EngineWorker::Run EngineWorker::prepare(const EngineSettings& settings) {
    Run run;
    run.where = resolve_model(settings);
    if (!fs::is_directory(run.where.dir))
        throw Error("The model folder " + display_utf8(path_from_fs(run.where.dir)) + " does not exist.");
    emit progress(QStringLiteral("loading model"), 0, 0);
    LoadOptions load = load_options_for(settings, run.where);
    const ComputeTypeChoice compute = resolve_compute_type(settings.compute_type.toStdString(), run.where.dir);
    load.compute_type = compute.type;
    load.weight_cache_fallback = weight_cache_dir();
    load.cache_quantized_weights = !load.weight_cache_fallback.empty();
    run.model = models_->get(run.where.dir, load);
    run.options = summarize_options_for(settings, *run.model);
    run.device = use_device(settings.device, settings.dtype);
    const QString attention = QString::fromLatin1(encoder_attention_name(run.options.attention.kind));
    if (announced_extractive_ || announced_model_.lock() != run.model || attention != announced_attention_) {
        announced_extractive_ = false;
        announced_model_ = run.model;
        announced_attention_ = attention;
        ModelInfo info;
        info.name = QString::fromStdString(run.model->name());
        info.path = path_from_fs(run.model->path());
        info.source = run.where.source;
        info.is_test_model = run.where.is_test_model;
        info.attention = attention;
        info.lsg = run.options.attention.lsg;
        info.fovea = run.options.attention.fovea;
        info.max_input_tokens = run.model->max_input_tokens();
        info.encoder_layers = run.model->config().encoder_layers;
        info.encoder_heads = run.model->config().encoder_heads;
        info.device = run.device.device;
        info.device_notice = run.device.notice;
        info.compute_type = QString::fromLatin1(compute_type_name(run.model->compute_type()));
        emit model_ready(info);
        if (!run.device.notice.isEmpty()) emit notice(run.device.notice);
        if (!compute.notice.empty()) emit notice(QString::fromStdString(compute.notice));
        for (const std::string& note : run.model->load_notes()) emit notice(QString::fromStdString(note));
    }
    return run;
}

void EngineWorker::announce_extractive(const EngineSettings& settings) {
    if (announced_extractive_) return;
    announced_extractive_ = true;
    announced_model_.reset();
    ModelInfo info;
    info.extractive = true;
    info.name = QStringLiteral("extractive");
    info.source = settings.method == QLatin1String("extractive") ? QStringLiteral("chosen in Settings")
                                                                  : QStringLiteral("no model installed");
    info.device = QStringLiteral("cpu");
    emit model_ready(info);
}

RunCallbacks EngineWorker::callbacks_for(quint64 ticket, const Model* model, qint64 document_id) {
    RunCallbacks cb;
    cb.on_notice = [this](const std::string& line) { emit notice(QString::fromStdString(line)); };
    cb.should_abort = [this, ticket] { return is_cancelled(ticket); };
    cb.progress = [this](RunStage stage, int done, int total) { emit progress(stage_text(stage, done, total), done, total); };
    if (model && model->tokenizer())
        cb.on_tokens = [this, model, document_id](int item, const std::vector<int64_t>& tokens) {
            if (item == 0) emit partial_summary(document_id, QString::fromStdString(model->tokenizer()->decode(tokens, true)).trimmed());
        };
    return cb;
}

void EngineWorker::guarded(quint64 ticket, const std::function<void()>& body) {
    try {
        if (is_cancelled(ticket)) throw Cancelled();
        body();
    } catch (const Cancelled&) {
        emit cancelled(ticket);
    } catch (const IngestError& e) {
        emit failed(ticket, e.message());
    } catch (const std::exception& e) {
        emit failed(ticket, QString::fromUtf8(e.what()));
    }
    emit request_done(ticket);
}

void EngineWorker::prepare_model(quint64 ticket, const EngineSettings& settings) {
    guarded(ticket, [&] {
        announced_model_.reset();  // always report, even when nothing changed
        announced_extractive_ = false;
        if (uses_extractive(settings))
            announce_extractive(settings);
        else
            prepare(settings);
    });
}

void EngineWorker::open_document(quint64 ticket, const QString& path, const QString& password) {
    guarded(ticket, [&] {
        emit progress(QStringLiteral("reading"), 0, 0);
        IngestOptions opts;
        opts.password = password;
        opts.should_abort = [this, ticket] { return is_cancelled(ticket); };
        IngestedDocument doc;
        try {
            doc = ingest_file(path, opts);
        } catch (const IngestError& e) {
            if (e.kind() != IngestErrorKind::Encrypted) throw;
            emit password_needed(path, !password.isEmpty());
            return;
        }
        OpenedDocument opened;
        opened.document_id = library().add_or_get_document(doc, &opened.added);
        opened.path = path;
        opened.notes = doc.notes;
        emit document_opened(opened);
    });
}

void EngineWorker::summarize(quint64 ticket, qint64 document_id, const EngineSettings& settings) {
    guarded(ticket, [&] {
        emit progress(QStringLiteral("reading"), 0, 0);
        std::optional<DocumentRecord> doc = library().document(document_id);
        if (!doc) throw Error("The document is no longer in the library.");
        if (uses_extractive(settings)) {
            announce_extractive(settings);
            emit progress(QStringLiteral("choosing sentences"), 0, 0);
            summarize_extractively(ticket, *doc, settings);
            return;
        }
        Run run = prepare(settings);
        run.options.source_attention = true;  // the passages are stored with the summary
        Summarizer summarizer(run.model, backend_);
        const RunCallbacks cb = callbacks_for(ticket, run.model.get(), document_id);
        const longdoc::LongSummary r = summarize_long_document(*doc, run, summarizer, settings, cb);
        // A cancel that arrived as the last token came out still means "do not keep it".
        cb.check_abort();
        store_summary(*doc, run, r);
    });
}

longdoc::LongSummary EngineWorker::summarize_long_document(const DocumentRecord& doc, const Run& run,
                                                          const Summarizer& summarizer, const EngineSettings& settings,
                                                          const RunCallbacks& callbacks) {
    if (!sections_opened_) {
        sections_opened_ = true;
        if (const fs::path dir = longdoc::default_section_store_dir(); !dir.empty())
            sections_ = std::make_unique<longdoc::FileSectionStore>(dir);
    }
    longdoc::LongOptions options;
    options.mode = long_mode_of(settings);
    options.store = sections_.get();
    longdoc::LongProgress progress;
    progress.sections = [this](int done, int total) {
        emit this->progress(tr("section %1 of %2").arg(std::min(done + 1, total)).arg(total), done, total);
    };
    progress.combining = [this](int level) {
        emit this->progress(level > 1 ? tr("combining the section summaries (pass %1)").arg(level)
                                      : tr("combining the section summaries"),
                            0, 0);
    };
    return longdoc::summarize_long(summarizer, {doc.text, doc.page_offsets, doc.outline}, run.options, options, progress,
                                   callbacks);
}

void EngineWorker::store_summary(const DocumentRecord& doc, const Run& run, const longdoc::LongSummary& r) {
    const SummaryRecord record =
        make_long_summary_record(doc.id, doc.text, doc.page_offsets, *run.model, r, run.options, device_in_use());
    SummaryOutcome out;
    out.summary_id = library().add_summary(record);
    out.document_id = doc.id;
    out.passages = *record.passages;
    out.input_tokens = r.summary.input_tokens;
    out.tokens_read = r.summary.tokens_read;
    out.truncated = r.summary.truncated;
    out.sections = int(r.sections.size());
    out.kept_sections = r.kept_sections;
    emit summary_finished(out);
}

void EngineWorker::summarize_extractively(quint64 ticket, const DocumentRecord& doc, const EngineSettings& settings) {
    extractive::ExtractiveOptions options = extractive_options_for(settings);
    options.should_abort = [this, ticket] { return is_cancelled(ticket); };
    const extractive::ExtractiveSummary e = extractive::summarize_extractive(doc.text, options);
    SummaryRecord record = make_extractive_summary_record(doc.id, doc.page_offsets, e, options);
    record.sections = longdoc::extractive_outline(doc.text, doc.page_offsets, doc.outline, options);
    SummaryOutcome out;
    out.summary_id = library().add_summary(record);
    out.document_id = doc.id;
    out.passages = *record.passages;
    out.extractive = true;
    out.sections = int(record.sections.size());
    emit summary_finished(out);
}

void EngineWorker::trace_sources(quint64 ticket, qint64 summary_id, const EngineSettings& settings) {
    guarded(ticket, [&] {
        std::optional<SummaryRecord> summary = library().summary(summary_id);
        if (!summary) throw Error("The summary is no longer in the library.");
        std::optional<DocumentRecord> doc = library().document(summary->document_id);
        if (!doc) throw Error("The summary's document is no longer in the library.");
        if (summary->method == QLatin1String("extractive")) {  // its sentences are its sources
            emit sources_traced(SourceTrace{summary_id, summary->passages.value_or(QVector<SourcePassage>{})});
            return;
        }
        if (std::error_code ec; !fs::is_directory(native_path(summary->model_path), ec))
            throw Error("The model that made this summary (" + display_utf8(summary->model_path) + ") is gone, so its sources cannot be traced.");
        Run run = prepare(settings_for_summary(*summary, settings));
        std::vector<int64_t> ids(summary->summary_ids.begin(), summary->summary_ids.end());
        const SourceWeights w = trace_summary_sources(*run.model, *backend_, doc->text.toStdString(), run.options, ids,
                                                      callbacks_for(ticket, nullptr, 0));
        SourceTrace trace;
        trace.summary_id = summary_id;
        trace.passages = source_passages(doc->text, doc->page_offsets, w.weights, w.byte_spans);
        library().set_summary_passages(summary_id, trace.passages);  // found once, shown at once from now on
        emit sources_traced(trace);
    });
}

void EngineWorker::capture_attention(quint64 ticket, const AttentionRequest& request) {
    guarded(ticket, [&] {
        std::optional<DocumentRecord> doc = library().document(request.document_id);
        if (!doc) throw Error("Open a document first: the attention weights are computed on it.");
        Run run = prepare(request.settings);
        CapturedAttention c = capture_encoder_attention(*run.model, *backend_, doc->text.toStdString(), run.options,
                                                        request.layer, request.head, kMaxAttentionGrid,
                                                        callbacks_for(ticket, nullptr, 0));
        AttentionCaptureResult out;
        out.document_id = request.document_id;
        out.layer = request.layer;
        out.head = request.head;
        out.num_global = c.num_global;
        out.rows = c.rows;
        out.tokens_read = c.tokens_read;
        out.sparse_path = c.sparse_path;
        out.attention = QString::fromLatin1(encoder_attention_name(run.options.attention.kind));
        out.grid = c.grid;
        out.cells = std::move(c.cells);
        out.max_weight = c.max_weight;
        if (run.options.attention.kind == EncoderAttention::Lsg)
            out.sparsity_type = QString::fromLatin1(sparsity_type_name(run.options.attention.lsg.sparsity_type));
        out.sparse = std::move(c.sparse);
        out.row_texts.reserve(int(c.row_texts.size()));
        for (const std::string& text : c.row_texts) out.row_texts << QString::fromStdString(text);
        emit attention_captured(out);
    });
}

void EngineWorker::run_batch(quint64 ticket, const BatchRequest& request) {
    guarded(ticket, [&] {
        BatchOptions opts;
        opts.root = request.root;
        opts.recursive = request.recursive;
        opts.retry_failed = request.retry_failed;
        opts.extractive = uses_extractive(request.settings);
        opts.extractive_options = extractive_options_for(request.settings);
        std::optional<Run> run;
        std::unique_ptr<Summarizer> summarizer;
        if (opts.extractive) {
            announce_extractive(request.settings);
        } else {
            run = prepare(request.settings);
            summarizer = std::make_unique<Summarizer>(run->model, backend_);
            opts.summarize = run->options;
        }
        if (request.classify) opts.classifier = load_classifier(request.settings, &opts.classify);
        BatchCallbacks cb;
        cb.on_file_started = [this](int finished, int total, const QString& path) { emit batch_file_started(finished, total, path); };
        cb.on_file_finished = [this](const QString& path, bool ok, const QString& error) { emit batch_file_finished(path, ok, error); };
        cb.run = callbacks_for(ticket, run ? run->model.get() : nullptr, 0);
        const BatchReport report = precis::run_batch(library(), summarizer.get(), opts, cb);
        BatchOutcome out;
        out.total = report.total;
        out.done_before = report.done_before;
        out.done_now = report.done_now;
        out.kept = report.kept;
        out.resumed = report.resumed;
        out.cancelled = report.cancelled;
        for (const BatchFailure& f : report.failures) out.failures.push_back({f.path, f.reason});
        for (const BatchFailure& f : report.failed_before) out.failed_before.push_back({f.path, f.reason});
        out.retried = report.retried;
        if (opts.classifier) {
            // The job's documents that carry labels from this classifier (made now or before).
            const QString classifier = QString::fromStdString(opts.classifier->model().name());
            out.classified = 0;
            for (const BatchItem& item : library().batch_items(report.job_id)) {
                const std::optional<SummaryRecord> s = item.summary_id ? library().summary(item.summary_id) : std::nullopt;
                if (!s) continue;
                const QVector<ClassificationRecord> labels = library().classifications_for(s->document_id);
                if (std::any_of(labels.begin(), labels.end(),
                                [&](const ClassificationRecord& c) { return c.model_name == classifier; }))
                    ++out.classified;
            }
        }
        emit batch_finished(out);
    });
}

void EngineWorker::import_model(quint64 ticket, const QString& source_dir, const EngineSettings& settings) {
    guarded(ticket, [&] {
        const fs::path source = native_path(source_dir);
        emit progress(QStringLiteral("importing the model"), 0, 0);
        ByteProgress bytes;
        bytes.should_abort = [this, ticket] { return is_cancelled(ticket); };
        bytes.progress = [this](uint64_t done, uint64_t total) {
            const int mib = int(done >> 20), of = int(total >> 20);
            emit progress(QStringLiteral("importing the model: %1 of %2 MiB").arg(mib).arg(of), mib, of);
        };
        const ImportedModel imported = import_model_folder(source, user_models_dir(), settings, bytes);
        ModelRecord rec;
        rec.name = path_from_fs(imported.dir.filename());
        rec.path = path_from_fs(imported.dir);
        rec.architecture = QString::fromStdString(imported.architecture);
        rec.attention = QStringLiteral("lsg");
        library().register_model(rec);
        emit model_imported(rec.path, imported.message);
    });
}

}  // namespace precis
