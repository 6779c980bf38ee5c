#pragma once
// The middle column: the open document's text with the passages the selected summary drew
// on highlighted (stronger colour = more of the summary's attention), and for PDFs the
// rendered pages.
#include <QWidget>

#include <optional>

#include "app/library/library.h"
#include "app/library/source_passage.h"

class QLabel;
class QPlainTextEdit;
class QTabWidget;

namespace precis::ui {

class PdfPagesView;

class DocumentView : public QWidget {
    Q_OBJECT
public:
    explicit DocumentView(QWidget* parent = nullptr);

    // `pdf_password`: the password the PDF was opened with, if it is encrypted.
    void show_document(const DocumentRecord& document, const QString& pdf_password = {});
    void clear();
    void set_passages(const QVector<SourcePassage>& passages);
    // Scrolls the text to the passage and selects it, and the PDF view to the passage's own
    // words on its page (now, or when the Pages tab is next shown).
    void reveal(const SourcePassage& passage);
    // Where a section of the summary's outline starts: scrolls the text so that `offset` is at
    // the top of the view, and the PDF view to page `page` (from 0; -1 for a text file), now
    // or when the Pages tab is next shown.
    void reveal_start(int offset, int page);

    qint64 document_id() const { return document_id_; }
    const QVector<SourcePassage>& passages() const { return passages_; }
    QPlainTextEdit* text_view() const { return text_; }
    QTabWidget* tabs() const { return tabs_; }
    PdfPagesView* pages_view() const { return pages_; }

private:
    QLabel* header_;
    QTabWidget* tabs_;
    QPlainTextEdit* text_;
    PdfPagesView* pages_;
    qint64 document_id_ = 0;
    QVector<SourcePassage> passages_;
    std::optional<SourcePassage> revealed_;
};

// The colour of a highlighted passage: the heaviest passage is the most saturated.
QColor passage_colour(double weight, double heaviest);

}  // namespace precis::ui
