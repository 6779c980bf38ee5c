#pragma once
// The Pages tab of a PDF: a row of controls (zoom out, zoom in, fit width, the page number
// with go-to-page) over the pages themselves (PdfPageCanvas: rendered on demand, bounded
// cache, the summary's source passages marked). Keys while the pages have the focus:
// Ctrl+= / Ctrl+- zoom, Ctrl+0 fits the width, Ctrl+G goes to the page number box.
#include <QWidget>

#include "app/library/source_passage.h"

class QAction;
class QLabel;
class QSpinBox;
class QToolButton;

namespace precis::ui {

class PdfPageCanvas;

class PdfPagesView : public QWidget {
    Q_OBJECT
public:
    explicit PdfPagesView(QWidget* parent = nullptr);

    // `password` opens an encrypted PDF (kept only as long as the document is shown).
    void load(const QString& path, const QString& password = {});
    void clear();
    // `text` is the document's ingested text the passages index into.
    void set_highlights(const QVector<SourcePassage>& passages, const QString& text);
    void scroll_to_page(int page);  // from 0
    // Scrolls to the passage's own words on its page and outlines them (PdfPageCanvas).
    void reveal_passage(const SourcePassage& passage);

    int rendered_pages() const;  // pages rendered since load (on demand, so few)
    bool visible_pages_rendered() const;
    PdfPageCanvas* canvas() const { return canvas_; }
    QSpinBox* page_box() const { return page_; }
    QLabel* message() const { return message_; }

private:
    void update_controls();

    PdfPageCanvas* canvas_;
    QLabel* message_;  // instead of the pages, when the PDF cannot be shown
    QToolButton* zoom_out_;
    QToolButton* zoom_in_;
    QToolButton* fit_;
    QLabel* zoom_label_;
    QSpinBox* page_;
    QLabel* page_count_;
};

}  // namespace precis::ui
