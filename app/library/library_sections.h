#pragma once
// A summary's outline in the library (app/long/outline_section.h): the summary_sections
// rows of schema v5, written in the summary's transaction, read back in document order,
// exported, and searched through their own FTS5 index. Internal to app/library.
#include <QJsonArray>
#include <QString>
#include <QVector>

#include "app/library/library.h"
#include "app/library/sqlite_db.h"
#include "app/long/outline_section.h"

namespace precis {

// Stores `sections` for summary `summary_id`, positions 0, 1, ... in their order. Call it
// inside the write transaction that stores the summary.
void insert_sections(sqlite::Db& db, qint64 summary_id, const DocumentOutline& sections);

// Reads the outlines of one or many summaries with one prepared statement. A file edited by
// hand can hold any numbers: ranges and pages come back as ones our own code could have
// written (readers compute end - start and page + 1).
class SectionReader {
public:
    explicit SectionReader(sqlite::Db& db);
    DocumentOutline read(qint64 summary_id);

private:
    sqlite::Stmt st_;
};

// "## Sections" with a "### title (pages a-b)" part per section; empty without sections.
QString sections_to_markdown(const DocumentOutline& sections);

// A summary that matched a search, through its text or one of its sections' summaries.
struct SummaryMatch {
    qint64 summary_id = 0, document_id = 0;
    QString title, path;  // the document's
    QString snippet;
    QString section_title;  // empty when the summary's own text matched
    double rank = 0;        // bm25, lower is better
};

// The best `opts.limit` section summaries matching the FTS5 expression `match`.
QVector<SummaryMatch> search_sections(sqlite::Db& db, const QString& match, const SearchOptions& opts);

// A document's PDF outline (app/ingest/ingest.h) as stored in documents.outline, and back;
// entries whose offset or page a hand-edited file put outside the document point nowhere.
QString outline_to_json(const QVector<OutlineEntry>& outline);
QVector<OutlineEntry> outline_from_json(const QString& json, int text_size, int pages);

}  // namespace precis
