#include "ui/outline_model.h"

#include <algorithm>

#include "app/library/library.h"

namespace precis::ui {

QString section_location(const OutlineSection& s, int text_length) {
    if (s.first_page >= 0) return section_pages(s);
    const qint64 share = text_length > 0 ? qint64(std::clamp(s.start, 0, text_length)) * 100 / text_length : 0;
    return QStringLiteral("%1 %").arg(share);
}

SectionCaptionText section_caption(const DocumentOutline& outline, int index, int text_length) {
    if (index < 0 || index >= outline.size()) return {};
    const OutlineSection& s = outline[index];
    return {QObject::tr("Section %1 of %2: ").arg(index + 1).arg(outline.size()), section_display_title(s, index),
            s.first_page >= 0 ? section_pages_text(s)
                              : QObject::tr(" (at %1)").arg(section_location(s, text_length))};
}

void OutlineModel::set_outline(const DocumentOutline& outline, int text_length) {
    beginResetModel();
    outline_ = outline;
    text_length_ = text_length;
    endResetModel();
}

int OutlineModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || outline_.isEmpty() ? 0 : int(outline_.size()) + 1;
}

QVariant OutlineModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() < 0 || index.row() >= rowCount()) return {};
    const int section = section_of(index.row());
    if (section < 0) {
        switch (role) {
            case Qt::DisplayRole: return tr("Whole document");
            case LocationRole: return outline_.size() == 1 ? tr("1 section") : tr("%1 sections").arg(outline_.size());
            case SectionRole: return -1;
            case Qt::ToolTipRole:
                return tr("The summary of the whole document, combined from the summaries of its sections");
            default: return {};
        }
    }
    const OutlineSection& s = outline_[section];
    switch (role) {
        case Qt::DisplayRole: return section_display_title(s, section);
        case LocationRole: return section_location(s, text_length_);
        case SectionRole: return section;
        case Qt::ToolTipRole: {
            QString tip = section_caption(outline_, section, text_length_).full();
            if (s.tokens > 0) tip += tr("\n%1 tokens, read in one window").arg(s.tokens);
            QString excerpt = s.summary.simplified();
            if (excerpt.size() > 300) excerpt = excerpt.left(297) + QStringLiteral("…");
            if (!excerpt.isEmpty()) tip += QStringLiteral("\n\n") + excerpt;
            return tip;
        }
        default: return {};
    }
}

}  // namespace precis::ui
