#include "app/library/library.h"

#include "app/file_names.h"
#include "app/paths.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QStandardPaths>
#include <algorithm>
#include <limits>

#include "app/ingest/ingest.h"
#include "app/library/library_private.h"
#include "app/library/library_schema.h"

namespace precis {

static_assert(Library::kSchemaVersion == kLibrarySchemaVersion);

QString passages_to_json(const QVector<SourcePassage>& passages) {
    QJsonArray a;
    for (const SourcePassage& p : passages)
        a.append(QJsonObject{{"begin", p.begin}, {"end", p.end}, {"page", p.page}, {"weight", p.weight}});
    return QString::fromUtf8(QJsonDocument(a).toJson(QJsonDocument::Compact));
}

std::optional<QVector<SourcePassage>> passages_from_json(const QString& json, bool is_null) {
    if (is_null) return std::nullopt;
    QVector<SourcePassage> out;
    for (const QJsonValue& v : QJsonDocument::fromJson(json.toUtf8()).array()) {
        const QJsonObject o = v.toObject();
        const SourcePassage p{o.value("begin").toInt(), o.value("end").toInt(), o.value("weight").toDouble(),
                              o.value("page").toInt(-1)};
        // A damaged or hand-made file can hold any numbers; readers compute end - begin and
        // page + 1, so only ranges our own code could have written are kept.
        const bool range_ok = p.begin >= 0 && p.end >= p.begin;
        const bool page_ok = p.page >= -1 && p.page < std::numeric_limits<int>::max();
        const bool weight_ok = p.weight >= 0 && p.weight <= 1;
        if (range_ok && page_ok && weight_ok) out.push_back(p);
    }
    return out;
}

namespace {

QJsonObject object_from_json(const QString& s) { return QJsonDocument::fromJson(s.toUtf8()).object(); }
QJsonArray array_from_json(const QString& s) { return QJsonDocument::fromJson(s.toUtf8()).array(); }

QVector<qint32> ints_from_json(const QString& s) {
    QVector<qint32> out;
    for (const QJsonValue& v : array_from_json(s)) out.push_back(qint32(v.toInteger()));
    return out;
}

QString time_to_text(const QDateTime& t) { return t.toUTC().toString(Qt::ISODateWithMs); }

#define DOCUMENT_INFO_COLUMNS "d.id, d.path, d.content_hash, d.title, d.pages, d.encoding, d.added_at"
constexpr int kDocumentInfoColumnCount = 7;

DocumentInfo read_document_info(const Stmt& st, int c = 0) {
    DocumentInfo d;
    d.id = st.int64(c + 0);
    d.path = st.path(c + 1);
    d.content_hash = st.bytes(c + 2);
    d.title = st.text(c + 3);
    d.pages = int(st.int64(c + 4));
    d.encoding = st.text(c + 5);
    d.added_at = time_from_db(st.text(c + 6));
    return d;
}

#define SUMMARY_COLUMNS                                                                                        \
    "s.id, s.document_id, s.model_name, s.model_path, s.parameters, s.summary, s.summary_ids, s.input_tokens, " \
    "s.truncated, s.seconds_encode, s.seconds_generate, s.device, s.created_at, s.source_passages, s.method"

SummaryRecord read_summary(const Stmt& st, int c = 0) {
    SummaryRecord s;
    s.id = st.int64(c + 0);
    s.document_id = st.int64(c + 1);
    s.model_name = st.text(c + 2);
    s.model_path = st.path(c + 3);
    s.parameters = object_from_json(st.text(c + 4));
    s.summary = st.text(c + 5);
    s.summary_ids = ints_from_json(st.text(c + 6));
    s.input_tokens = st.int64(c + 7);
    s.truncated = st.int64(c + 8) != 0;
    s.seconds_encode = st.real(c + 9);
    s.seconds_generate = st.real(c + 10);
    s.device = st.text(c + 11);
    s.created_at = time_from_db(st.text(c + 12));
    s.passages = passages_from_json(st.text(c + 13), st.is_null(c + 13));
    s.method = st.text(c + 14);
    return s;
}

}  // namespace

QString summary_method_description(const SummaryRecord& s) {
    if (s.method != QLatin1String("extractive")) return QStringLiteral("neural: %1").arg(s.model_name);
    const int n = s.parameters.value(QStringLiteral("sentences")).toInt();
    return n == 1 ? QStringLiteral("extractive: 1 sentence from the document")
                  : QStringLiteral("extractive: %1 sentences from the document").arg(n);
}

namespace {

#define CLASSIFICATION_COLUMNS "c.id, c.document_id, c.model_name, c.parameters, c.label, c.score, c.created_at"

ClassificationRecord read_classification(const Stmt& st) {
    ClassificationRecord c;
    c.id = st.int64(0);
    c.document_id = st.int64(1);
    c.model_name = st.text(2);
    c.parameters = object_from_json(st.text(3));
    c.label = st.text(4);
    c.score = st.real(5);
    c.created_at = time_from_db(st.text(6));
    return c;
}

#define MODEL_COLUMNS "m.id, m.name, m.path, m.architecture, m.attention, m.imported_at"

ModelRecord read_model(const Stmt& st) {
    ModelRecord m;
    m.id = st.int64(0);
    m.name = st.text(1);
    m.path = st.path(2);
    m.architecture = st.text(3);
    m.attention = st.text(4);
    m.imported_at = time_from_db(st.text(5));
    return m;
}

QString markdown_escape_inline(QString s) { return s.replace(QLatin1Char('`'), QLatin1Char('\'')); }

}  // namespace

QString Library::default_path() {
    // One definition for the GUI and every command: app/paths.h.
    return QString::fromStdString(default_library_path().string());
}

Library::Library(const QString& path) : d_(std::make_unique<Impl>(path)) {
    Db& db = d_->db;
    db.exec("PRAGMA foreign_keys = ON");
    check_library_file(db);  // before the file is changed in any way
    {
        Stmt st(db, "PRAGMA journal_mode = WAL");
        st.step();
    }
    db.exec("PRAGMA synchronous = FULL");
    migrate_library(db);
}

Library::~Library() = default;

const QString& Library::path() const { return d_->db.path(); }

int Library::schema_version() const { return d_->db.pragma_int("user_version"); }

// ---------------------------------------------------------------- documents

qint64 Library::add_or_get_document(const IngestedDocument& doc, bool* added) {
    Db& db = d_->db;
    WriteTransaction tx(db);
    Stmt ins(db,
             "INSERT INTO documents (path, content_hash, title, pages, text, encoding, page_offsets, notes, outline) "
             "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(content_hash) DO NOTHING");
    const QString outline = outline_to_json(doc.outline);
    ins.bind_path(1, doc.path)
        .bind(2, doc.content_hash)
        .bind(3, doc.title)
        .bind(4, doc.pages)
        .bind(5, doc.text)
        .bind(6, doc.encoding)
        .bind(7, to_json_array(doc.page_offsets))
        .bind(8, to_json_array(doc.notes))
        .bind(9, outline);
    ins.run();
    const bool inserted = db.changes() > 0;
    qint64 id = 0;
    if (inserted) {
        id = db.last_insert_id();
    } else {
        Stmt st(db, "SELECT id FROM documents WHERE content_hash = ?");
        st.bind(1, doc.content_hash);
        if (!st.step()) db.fail(LibraryErrorKind::Other, QStringLiteral("lost a document while adding it."));
        id = st.int64(0);
        // The same content from another place (the file was moved or copied): the library
        // shows where it was last read from, since the old path may no longer exist.
        Stmt moved(db, "UPDATE documents SET path = ? WHERE id = ? AND path != ?");
        moved.bind_path(1, doc.path).bind(2, id).bind_path(3, doc.path);
        moved.run();
        // A document added before outlines were kept gains its outline when read again.
        Stmt outlined(db, "UPDATE documents SET outline = ? WHERE id = ? AND outline = '[]'");
        outlined.bind(1, outline).bind(2, id);
        outlined.run();
    }
    tx.commit();
    if (added) *added = inserted;
    return id;
}

std::optional<DocumentRecord> Library::document(qint64 id) const {
    Stmt st(d_->db, "SELECT " DOCUMENT_INFO_COLUMNS ", d.text, d.page_offsets, d.notes, d.outline FROM documents d WHERE d.id = ?");
    st.bind(1, id);
    if (!st.step()) return std::nullopt;
    DocumentRecord r;
    static_cast<DocumentInfo&>(r) = read_document_info(st);
    r.text = st.text(kDocumentInfoColumnCount);
    for (const QJsonValue& v : array_from_json(st.text(kDocumentInfoColumnCount + 1))) r.page_offsets.push_back(v.toInt());
    for (const QJsonValue& v : array_from_json(st.text(kDocumentInfoColumnCount + 2))) r.notes.push_back(v.toString());
    r.outline = outline_from_json(st.text(kDocumentInfoColumnCount + 3), int(r.text.size()), r.pages);
    return r;
}

std::optional<qint64> Library::find_document_by_hash(const QByteArray& content_hash) const {
    Stmt st(d_->db, "SELECT id FROM documents WHERE content_hash = ?");
    st.bind(1, content_hash);
    if (!st.step()) return std::nullopt;
    return st.int64(0);
}

QVector<DocumentListItem> Library::documents() const {
    Db& db = d_->db;
    ReadTransaction snapshot(db);
    QHash<qint64, QStringList> labels;
    {
        Stmt st(db, "SELECT DISTINCT document_id, label FROM classifications ORDER BY label");
        while (st.step()) labels[st.int64(0)].push_back(st.text(1));
    }
    QVector<DocumentListItem> out;
    Stmt st(db,
            "SELECT " DOCUMENT_INFO_COLUMNS ", (SELECT count(*) FROM summaries c WHERE c.document_id = d.id), " SUMMARY_COLUMNS
            " FROM documents d LEFT JOIN summaries s ON s.id = (SELECT id FROM summaries x WHERE x.document_id = d.id "
            "ORDER BY x.created_at DESC, x.id DESC LIMIT 1) "
            "ORDER BY d.added_at DESC, d.id DESC");
    while (st.step()) {
        DocumentListItem item;
        item.document = read_document_info(st);
        item.summary_count = int(st.int64(kDocumentInfoColumnCount));
        if (!st.is_null(kDocumentInfoColumnCount + 1)) item.latest_summary = read_summary(st, kDocumentInfoColumnCount + 1);
        item.labels = labels.value(item.document.id);
        out.push_back(std::move(item));
    }
    SectionReader sections(db);
    for (DocumentListItem& item : out)
        if (item.latest_summary) item.latest_summary->sections = sections.read(item.latest_summary->id);
    return out;
}

bool Library::delete_document(qint64 id) {
    return d_->delete_by_id("DELETE FROM documents WHERE id = ?", id);
}

// ---------------------------------------------------------------- summaries

qint64 Library::add_summary(const SummaryRecord& summary) {
    WriteTransaction tx(d_->db);
    const qint64 id = d_->insert_summary(summary);
    tx.commit();
    return id;
}

std::optional<SummaryRecord> Library::summary(qint64 id) const {
    ReadTransaction snapshot(d_->db);  // the summary and its sections as one
    Stmt st(d_->db, "SELECT " SUMMARY_COLUMNS " FROM summaries s WHERE s.id = ?");
    st.bind(1, id);
    if (!st.step()) return std::nullopt;
    SummaryRecord s = read_summary(st);
    s.sections = SectionReader(d_->db).read(s.id);
    return s;
}

QVector<SummaryRecord> Library::summaries_for(qint64 document_id) const {
    ReadTransaction snapshot(d_->db);
    Stmt st(d_->db, "SELECT " SUMMARY_COLUMNS " FROM summaries s WHERE s.document_id = ? ORDER BY s.created_at DESC, s.id DESC");
    st.bind(1, document_id);
    QVector<SummaryRecord> out;
    while (st.step()) out.push_back(read_summary(st));
    SectionReader sections(d_->db);
    for (SummaryRecord& s : out) s.sections = sections.read(s.id);
    return out;
}

bool Library::delete_summary(qint64 id) {
    return d_->delete_by_id("DELETE FROM summaries WHERE id = ?", id);
}

bool Library::set_summary_passages(qint64 summary_id, const QVector<SourcePassage>& passages) {
    WriteTransaction tx(d_->db);
    Stmt st(d_->db, "UPDATE summaries SET source_passages = ? WHERE id = ?");
    st.bind(1, passages_to_json(passages)).bind(2, summary_id);
    st.run();
    const bool found = d_->db.changes() > 0;
    tx.commit();
    return found;
}

QString Library::export_summary(qint64 summary_id, ExportFormat format) const {
    Db& db = d_->db;
    ReadTransaction snapshot(db);
    const std::optional<SummaryRecord> s = summary(summary_id);
    if (!s) db.fail(LibraryErrorKind::NotFound, QStringLiteral("has no summary %1 to export.").arg(summary_id));
    DocumentInfo doc;
    {
        Stmt st(db, "SELECT " DOCUMENT_INFO_COLUMNS " FROM documents d WHERE d.id = ?");
        st.bind(1, s->document_id);
        if (st.step()) doc = read_document_info(st);
    }
    // The passages' own words, cut from the document text (only read when there are some).
    QStringList passage_texts;
    if (s->passages && !s->passages->isEmpty()) {
        Stmt st(db, "SELECT text FROM documents WHERE id = ?");
        st.bind(1, s->document_id);
        const QString text = st.step() ? st.text(0) : QString();
        for (const SourcePassage& p : *s->passages) passage_texts << text.mid(p.begin, p.end - p.begin).simplified();
    }

    // A summary by the random fixture model reads like text but means nothing: every
    // export says so at the top, where a reader of the file cannot miss it.
    const bool random_model = s->parameters.value("random_test_model").toBool() ||
                              is_fixture_test_model(native_path(s->model_path));

    if (format == ExportFormat::Json) {
        QJsonObject document{{"id", doc.id},       {"title", doc.title},
                             {"path", path_for_display(doc.path)},   {"content_hash", QString::fromLatin1(doc.content_hash)},
                             {"pages", doc.pages}, {"encoding", doc.encoding}};
        QJsonArray ids;
        for (qint32 v : s->summary_ids) ids.append(v);
        QJsonObject o{{"id", s->id},
                      {"document", document},
                      {"model", QJsonObject{{"name", s->model_name}, {"path", path_for_display(s->model_path)}}},
                      {"method", s->method},
                      {"parameters", s->parameters},
                      {"summary", s->summary},
                      {"summary_ids", ids},
                      {"input_tokens", s->input_tokens},
                      {"truncated", s->truncated},
                      {"seconds", QJsonObject{{"encode", s->seconds_encode},
                                              {"generate", s->seconds_generate},
                                              {"total", s->seconds_encode + s->seconds_generate}}},
                      {"device", s->device},
                      {"created_at", time_to_text(s->created_at)}};
        if (random_model) {
            o["random_test_model"] = true;
            o["warning"] = QStringLiteral("Made by the tiny RANDOM test model of the fixtures: this summary is meaningless.");
        }
        if (s->passages) {
            QJsonArray passages;
            for (int i = 0; i < s->passages->size(); ++i) {
                const SourcePassage& p = (*s->passages)[i];
                passages.append(QJsonObject{{"begin", p.begin}, {"end", p.end}, {"page", p.page},
                                            {"weight", p.weight}, {"text", passage_texts.value(i)}});
            }
            o["source_passages"] = passages;
        }
        o["sections"] = outline_to_json(s->sections);
        return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Indented));
    }

    QString md;
    md += QStringLiteral("# %1\n\n").arg(doc.title.isEmpty() ? path_for_display(doc.path.mid(doc.path.lastIndexOf(QLatin1Char('/')) + 1)) : doc.title);
    if (random_model)
        md += QStringLiteral("> **Warning:** made by the tiny RANDOM test model of the fixtures; this summary is "
                             "meaningless.\n\n");
    md += s->summary.trimmed() + QStringLiteral("\n\n");
    md += sections_to_markdown(s->sections);
    md += QStringLiteral("---\n\n");
    md += QStringLiteral("- Document: `%1`").arg(markdown_escape_inline(path_for_display(doc.path)));
    if (doc.pages > 0) md += QStringLiteral(" (%1 page%2)").arg(doc.pages).arg(doc.pages == 1 ? "" : "s");
    md += QLatin1Char('\n');
    if (s->method == QLatin1String("extractive")) {
        md += QStringLiteral("- Method: %1\n").arg(summary_method_description(*s));
    } else {
        md += QStringLiteral("- Model: %1").arg(s->model_name);
        if (!s->model_path.isEmpty()) md += QStringLiteral(" (`%1`)").arg(markdown_escape_inline(path_for_display(s->model_path)));
        md += QLatin1Char('\n');
    }
    if (!s->parameters.isEmpty()) {
        QStringList params;
        for (auto it = s->parameters.begin(); it != s->parameters.end(); ++it) {
            const QJsonValue v = it.value();
            QString shown = v.isString() ? v.toString()
                                         : QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact)).mid(1).chopped(1);
            params << QStringLiteral("%1 = %2").arg(it.key(), shown);
        }
        md += QStringLiteral("- Parameters: %1\n").arg(params.join(QStringLiteral(", ")));
    }
    if (s->method == QLatin1String("extractive")) {
        md += QStringLiteral("- Input: %1 words in %2 sentences\n")
                  .arg(s->parameters.value("document_words").toInt())
                  .arg(s->parameters.value("document_sentences").toInt());
        md += QStringLiteral("- Device: %1; %2 s\n").arg(s->device).arg(s->seconds_generate, 0, 'f', 2);
    } else {
        md += QStringLiteral("- Input: %1 tokens%2\n")
                  .arg(s->input_tokens)
                  .arg(s->truncated ? QStringLiteral(" (truncated to the model's maximum length)") : QString());
        md += QStringLiteral("- Device: %1; %2 s encoding, %3 s generation\n")
                  .arg(s->device.isEmpty() ? QStringLiteral("unknown") : s->device)
                  .arg(s->seconds_encode, 0, 'f', 2)
                  .arg(s->seconds_generate, 0, 'f', 2);
    }
    md += QStringLiteral("- Created: %1\n").arg(time_to_text(s->created_at));
    if (!passage_texts.isEmpty()) {
        // An extractive summary has no attention: its passages are the sentences it chose, with
        // no share to show (as the summary panel lists them), only their page.
        const bool extractive = s->method == QLatin1String("extractive");
        md += extractive ? QStringLiteral("\n## Source passages\n\nThe document's own sentences that the summary chose, "
                                          "in document order.\n\n")
                         : QStringLiteral("\n## Source passages\n\nWhere the summary drew most of its attention, in "
                                          "document order.\n\n");
        for (int i = 0; i < passage_texts.size(); ++i) {
            const SourcePassage& p = (*s->passages)[i];
            QStringList where;
            if (p.page >= 0) where << QStringLiteral("p. %1").arg(p.page + 1);
            if (!extractive) where << QStringLiteral("%1%").arg(100.0 * p.weight, 0, 'f', 1);
            md += where.isEmpty() ? QStringLiteral("> %1\n\n").arg(passage_texts[i])
                                  : QStringLiteral("> %1 (%2)\n\n").arg(passage_texts[i], where.join(QStringLiteral(", ")));
        }
    }
    return md;
}

// ---------------------------------------------------------------- classifications

qint64 Library::add_classification(const ClassificationRecord& c) {
    WriteTransaction tx(d_->db);
    const qint64 id = d_->insert_classification(c, d_->now());
    tx.commit();
    return id;
}

QVector<qint64> Library::add_classifications(const QVector<ClassificationRecord>& cs) {
    WriteTransaction tx(d_->db);
    const QString created_at = d_->now();
    QVector<qint64> ids;
    for (const ClassificationRecord& c : cs) ids.push_back(d_->insert_classification(c, created_at));
    tx.commit();
    return ids;
}

QVector<ClassificationRecord> Library::classifications_for(qint64 document_id) const {
    Stmt st(d_->db, "SELECT " CLASSIFICATION_COLUMNS
                    " FROM classifications c WHERE c.document_id = ? ORDER BY c.created_at DESC, c.score DESC, c.id DESC");
    st.bind(1, document_id);
    QVector<ClassificationRecord> out;
    while (st.step()) out.push_back(read_classification(st));
    return out;
}

QStringList Library::labels() const {
    Stmt st(d_->db, "SELECT DISTINCT label FROM classifications ORDER BY label");
    QStringList out;
    while (st.step()) out.push_back(st.text(0));
    return out;
}

QVector<DocumentInfo> Library::documents_with_label(const QString& label, double min_score) const {
    Stmt st(d_->db, "SELECT " DOCUMENT_INFO_COLUMNS " FROM documents d WHERE EXISTS (SELECT 1 FROM classifications c "
                    "WHERE c.document_id = d.id AND c.label = ? AND c.score >= ?) ORDER BY d.added_at DESC, d.id DESC");
    st.bind(1, label).bind(2, min_score);
    QVector<DocumentInfo> out;
    while (st.step()) out.push_back(read_document_info(st));
    return out;
}

// ---------------------------------------------------------------- models

qint64 Library::register_model(const ModelRecord& m) {
    Db& db = d_->db;
    WriteTransaction tx(db);
    Stmt st(db,
            "INSERT INTO models (name, path, architecture, attention) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(path) DO UPDATE SET name = excluded.name, architecture = excluded.architecture, "
            "attention = excluded.attention, imported_at = strftime('%Y-%m-%dT%H:%M:%fZ','now')");
    st.bind(1, m.name).bind_path(2, m.path).bind(3, m.architecture).bind(4, m.attention);
    st.run();
    Stmt id(db, "SELECT id FROM models WHERE path = ?");
    id.bind_path(1, m.path);
    id.step();
    const qint64 model_id = id.int64(0);
    tx.commit();
    return model_id;
}

QVector<ModelRecord> Library::models() const {
    Stmt st(d_->db, "SELECT " MODEL_COLUMNS " FROM models m ORDER BY m.name, m.id");
    QVector<ModelRecord> out;
    while (st.step()) out.push_back(read_model(st));
    return out;
}

std::optional<ModelRecord> Library::model(qint64 id) const {
    Stmt st(d_->db, "SELECT " MODEL_COLUMNS " FROM models m WHERE m.id = ?");
    st.bind(1, id);
    if (!st.step()) return std::nullopt;
    return read_model(st);
}

bool Library::remove_model(qint64 id) {
    return d_->delete_by_id("DELETE FROM models WHERE id = ?", id);
}

}  // namespace precis
