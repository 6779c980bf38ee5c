#pragma once
// The rows of a sectioned summary's outline pane (ui/outline_view.h): "Whole document" first,
// then one row per section of the DocumentOutline (app/long/outline_section.h), in document
// order, each with its title and where it is: "pages 3-7" in a PDF, "12 %" into a text file.
#include <QAbstractListModel>

#include "app/long/outline_section.h"

namespace precis::ui {

class OutlineModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Role {
        LocationRole = Qt::UserRole + 1,  // QString: "pages 3-7", "page 3", "12 %"; "6 sections" on the first row
        SectionRole,                      // int: the section's index in the outline; -1 on "Whole document"
    };

    using QAbstractListModel::QAbstractListModel;

    // `text_length`: the document text's length, which a text file's positions are a share of.
    void set_outline(const DocumentOutline& outline, int text_length);
    void clear() { set_outline({}, 0); }

    const DocumentOutline& outline() const { return outline_; }
    int text_length() const { return text_length_; }
    // The row of section `index` (-1: "Whole document"), and back.
    static int row_of(int section) { return section + 1; }
    static int section_of(int row) { return row - 1; }

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
    DocumentOutline outline_;
    int text_length_ = 0;
};

// Where a section is, as its row says it: "pages 3-7" or "page 3" (from 1) in a PDF, else how
// far into the text it starts ("12 %").
QString section_location(const OutlineSection& section, int text_length);
// The caption over a section's summary: "Section 7 of 42: " + "CHAPTER VII. The Storm" +
// " (pages 88-101)" (" (at 34 %)" into a text file); the title is the part a
// narrow pane shortens.
struct SectionCaptionText {
    QString head, title, tail;
    QString full() const { return head + title + tail; }
};
SectionCaptionText section_caption(const DocumentOutline& outline, int index, int text_length);

}  // namespace precis::ui
