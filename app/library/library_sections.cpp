#include "app/library/library_sections.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <limits>

namespace precis {

using sqlite::Db;
using sqlite::Stmt;

void insert_sections(Db& db, qint64 summary_id, const DocumentOutline& sections) {
    if (sections.isEmpty()) return;
    Stmt st(db,
            "INSERT INTO summary_sections (summary_id, position, title, start, \"end\", first_page, last_page, "
            "summary, tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (int i = 0; i < sections.size(); ++i) {
        const OutlineSection& s = sections[i];
        st.reset();
        st.bind(1, summary_id)
            .bind(2, i)
            .bind(3, s.title)
            .bind(4, s.start)
            .bind(5, s.end)
            .bind(6, s.first_page)
            .bind(7, s.last_page)
            .bind(8, s.summary)
            .bind(9, s.tokens);
        st.run();
    }
}

namespace {

constexpr qint64 kIntMax = std::numeric_limits<int>::max();

int clamp_to_int(qint64 v, qint64 lo, qint64 hi) { return int(std::clamp(v, lo, hi)); }

}  // namespace

SectionReader::SectionReader(Db& db)
    : st_(db,
          "SELECT title, start, \"end\", first_page, last_page, summary, tokens FROM summary_sections "
          "WHERE summary_id = ? ORDER BY position") {}

DocumentOutline SectionReader::read(qint64 summary_id) {
    st_.reset();
    st_.bind(1, summary_id);
    DocumentOutline out;
    while (st_.step()) {
        OutlineSection s;
        s.title = st_.text(0);
        s.start = clamp_to_int(st_.int64(1), 0, kIntMax);
        s.end = clamp_to_int(st_.int64(2), s.start, kIntMax);
        const qint64 first = st_.int64(3), last = st_.int64(4);
        if (first >= 0 && first < kIntMax && last >= first && last < kIntMax) {
            s.first_page = int(first);
            s.last_page = int(last);
        }  // else no pages: -1, -1
        s.summary = st_.text(5);
        s.tokens = clamp_to_int(st_.int64(6), 0, kIntMax);
        out.push_back(std::move(s));
    }
    st_.reset();
    return out;
}

QString sections_to_markdown(const DocumentOutline& sections) {
    if (sections.isEmpty()) return {};
    QString md = QStringLiteral("## Sections\n\n");
    for (int i = 0; i < sections.size(); ++i) {
        const OutlineSection& s = sections[i];
        md += QStringLiteral("### %1%2\n\n").arg(section_display_title(s, i), section_pages_text(s));
        const QString text = s.summary.trimmed();
        if (!text.isEmpty()) md += text + QStringLiteral("\n\n");
    }
    return md;
}

QVector<SummaryMatch> search_sections(Db& db, const QString& match, const SearchOptions& opts) {
    Stmt st(db,
            "SELECT s.id, d.id, d.title, d.path, snippet(summary_sections_fts, 0, ?, ?, '\xE2\x80\xA6', 16), "
            "bm25(summary_sections_fts) AS r, x.title, x.position "
            "FROM summary_sections_fts JOIN summary_sections x ON x.id = summary_sections_fts.rowid "
            "JOIN summaries s ON s.id = x.summary_id JOIN documents d ON d.id = s.document_id "
            "WHERE summary_sections_fts MATCH ? ORDER BY r, s.created_at DESC, x.position LIMIT ?");
    st.bind(1, opts.mark_begin).bind(2, opts.mark_end).bind(3, match).bind(4, opts.limit);
    QVector<SummaryMatch> out;
    while (st.step()) {
        SummaryMatch m;
        m.summary_id = st.int64(0);
        m.document_id = st.int64(1);
        m.title = st.text(2);
        m.path = st.path(3);
        m.snippet = st.text(4);
        m.rank = st.real(5);
        OutlineSection section;
        section.title = st.text(6);
        m.section_title = section_display_title(section, int(std::clamp<qint64>(st.int64(7), 0, kIntMax - 1)));
        out.push_back(std::move(m));
    }
    return out;
}

QString outline_to_json(const QVector<OutlineEntry>& outline) {
    QJsonArray a;
    for (const OutlineEntry& e : outline)
        a.append(QJsonObject{{"title", e.title}, {"level", e.level}, {"page", e.page}, {"offset", e.offset}});
    return QString::fromUtf8(QJsonDocument(a).toJson(QJsonDocument::Compact));
}

QVector<OutlineEntry> outline_from_json(const QString& json, int text_size, int pages) {
    QVector<OutlineEntry> out;
    for (const QJsonValue& v : QJsonDocument::fromJson(json.toUtf8()).array()) {
        const QJsonObject o = v.toObject();
        OutlineEntry e;
        e.title = o.value("title").toString();
        e.level = std::max(0, o.value("level").toInt());
        e.page = o.value("page").toInt(-1);
        e.offset = o.value("offset").toInt(-1);
        if (e.page < -1 || e.page >= pages || e.offset < -1 || e.offset > text_size) e.page = e.offset = -1;
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace precis
