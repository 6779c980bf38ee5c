// Library::search: FTS5 over document title and text, summary text and section summaries;
// one hit per document, with its best matching summary.
#include <QMap>
#include <QRegularExpression>
#include <algorithm>

#include "app/library/library_private.h"

namespace precis {

namespace {

// User text -> FTS5 MATCH expression: every word or "quoted phrase" becomes a quoted
// string (so FTS operators and punctuation are taken literally), a trailing * stays a
// prefix search; all terms must match.
QString fts_query(const QString& user) {
    static const QRegularExpression term(QStringLiteral("\"([^\"]*)\"|(\\S+)"));
    QStringList parts;
    for (auto it = term.globalMatch(user); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        QString t = m.capturedLength(1) > 0 ? m.captured(1) : m.captured(2);
        bool prefix = false;
        if (m.capturedLength(2) > 0 && t.size() > 1 && t.endsWith(QLatin1Char('*'))) {
            t.chop(1);
            prefix = true;
        }
        t.remove(QLatin1Char('"'));
        if (t.trimmed().isEmpty()) continue;
        parts << QStringLiteral("\"%1\"%2").arg(t, prefix ? QStringLiteral("*") : QString());
    }
    return parts.join(QLatin1Char(' '));
}

}  // namespace

QVector<SearchHit> Library::search(const QString& query, const SearchOptions& opts) const {
    const QString match = fts_query(query);
    if (match.isEmpty() || opts.limit <= 0) return {};
    Db& db = d_->db;
    ReadTransaction snapshot(db);
    QMap<qint64, SearchHit> by_doc;
    {
        Stmt st(db,
                "SELECT d.id, d.title, d.path, snippet(documents_fts, -1, ?, ?, '\xE2\x80\xA6', 16), "
                "bm25(documents_fts, 5.0, 1.0) AS r "
                "FROM documents_fts JOIN documents d ON d.id = documents_fts.rowid "
                "WHERE documents_fts MATCH ? ORDER BY r LIMIT ?");
        st.bind(1, opts.mark_begin).bind(2, opts.mark_end).bind(3, match).bind(4, opts.limit);
        while (st.step()) {
            SearchHit h;
            h.document_id = st.int64(0);
            h.title = st.text(1);
            h.path = st.path(2);
            h.document_snippet = st.text(3);
            h.rank = st.real(4);
            by_doc.insert(h.document_id, h);
        }
    }
    // Summaries match through their own text or one of their sections' summaries.
    QVector<SummaryMatch> matches;
    {
        Stmt st(db,
                "SELECT s.id, d.id, d.title, d.path, snippet(summaries_fts, 0, ?, ?, '\xE2\x80\xA6', 16), "
                "bm25(summaries_fts) AS r "
                "FROM summaries_fts JOIN summaries s ON s.id = summaries_fts.rowid JOIN documents d ON d.id = s.document_id "
                "WHERE summaries_fts MATCH ? ORDER BY r, s.created_at DESC LIMIT ?");
        st.bind(1, opts.mark_begin).bind(2, opts.mark_end).bind(3, match).bind(4, opts.limit);
        while (st.step())
            matches.push_back({st.int64(0), st.int64(1), st.text(2), st.path(3), st.text(4), QString(), st.real(5)});
    }
    matches += search_sections(db, match, opts);
    std::stable_sort(matches.begin(), matches.end(), [](const SummaryMatch& a, const SummaryMatch& b) { return a.rank < b.rank; });
    for (const SummaryMatch& m : matches) {
        auto it = by_doc.find(m.document_id);
        if (it == by_doc.end()) {
            SearchHit h;
            h.document_id = m.document_id;
            h.title = m.title;
            h.path = m.path;
            h.rank = m.rank;
            it = by_doc.insert(m.document_id, h);
        } else if (it->summary_id != 0) {
            continue;  // a better matching summary of this document came first
        }
        it->summary_id = m.summary_id;
        it->summary_snippet = m.snippet;
        it->section_title = m.section_title;
        it->rank = std::min(it->rank, m.rank);
    }
    QVector<SearchHit> hits(by_doc.begin(), by_doc.end());
    std::stable_sort(hits.begin(), hits.end(), [](const SearchHit& a, const SearchHit& b) { return a.rank < b.rank; });
    if (hits.size() > opts.limit) hits.resize(opts.limit);
    return hits;
}

}  // namespace precis
