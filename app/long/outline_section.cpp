#include "app/long/outline_section.h"

#include <QJsonObject>

namespace precis {

QString section_display_title(const OutlineSection& section, int index) {
    const QString t = section.title.simplified();
    return t.isEmpty() ? QStringLiteral("Section %1").arg(index + 1) : t;
}

QString section_pages(const OutlineSection& section) {
    if (section.first_page < 0) return {};
    if (section.last_page <= section.first_page) return QStringLiteral("page %1").arg(section.first_page + 1);
    return QStringLiteral("pages %1-%2").arg(section.first_page + 1).arg(section.last_page + 1);
}

QString section_pages_text(const OutlineSection& section) {
    const QString pages = section_pages(section);
    return pages.isEmpty() ? pages : QStringLiteral(" (%1)").arg(pages);
}

QJsonArray outline_to_json(const DocumentOutline& outline) {
    QJsonArray out;
    for (const OutlineSection& s : outline) {
        const QJsonValue pages = s.first_page >= 0 ? QJsonValue(QJsonArray{s.first_page, s.last_page}) : QJsonValue();
        out.append(QJsonObject{{"title", s.title},
                               {"start", s.start},
                               {"end", s.end},
                               {"pages", pages},
                               {"summary", s.summary},
                               {"tokens", s.tokens}});
    }
    return out;
}

}  // namespace precis
