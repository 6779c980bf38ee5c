#pragma once
// A PDF's pages rendered with Poppler, one under the other, with the summary's source
// passages marked line by line where their words are found on the page. Pages render one per event
// loop turn, so a long PDF never freezes the window.
#include <QScrollArea>
#include <QVector>

#include <memory>

#include "app/library/source_passage.h"

class QLabel;
class QTimer;
class QVBoxLayout;

namespace Poppler {
class Document;
}

namespace precis::ui {

class PdfPagesView : public QScrollArea {
    Q_OBJECT
public:
    explicit PdfPagesView(QWidget* parent = nullptr);
    ~PdfPagesView() override;

    // `password` opens an encrypted PDF (kept only as long as the document is shown).
    void load(const QString& path, const QString& password = {});
    void clear();
    // `text` is the document's ingested text the passages index into.
    void set_highlights(const QVector<SourcePassage>& passages, const QString& text);
    void scroll_to_page(int page);
    int rendered_pages() const { return next_page_; }

private:
    void render_next_page();
    void restart_rendering();

    std::unique_ptr<Poppler::Document> document_;
    QWidget* container_;
    QVBoxLayout* column_;
    QVector<QLabel*> pages_;
    QVector<SourcePassage> passages_;
    QVector<QStringList> passage_words_;
    QVector<int> carried_;  // per passage: words already marked on earlier pages
    QTimer* render_timer_;
    int next_page_ = 0;
};

}  // namespace precis::ui
