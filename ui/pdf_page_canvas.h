#pragma once
// A PDF's pages one under the other, drawn on demand: only the pages in view (and one on
// either side) are rendered with Poppler, one per event-loop turn, into a cache bounded in
// bytes; a page scrolled far away is dropped and rendered again when it comes back. A
// 500-page PDF opens as fast as a 2-page one and its memory does not grow with its length.
// The summary's source passages are marked on the pages where their words are found.
#include <QAbstractScrollArea>
#include <QCache>
#include <QElapsedTimer>
#include <QHash>
#include <QImage>
#include <QVector>

#include <memory>

#include "app/library/source_passage.h"
#include "ui/pdf_passage_marks.h"

class QPainter;
class QTimer;

namespace Poppler {
class Document;
}

namespace precis::ui {

class PdfPageCanvas : public QAbstractScrollArea {
    Q_OBJECT
public:
    static constexpr qint64 kCacheBytes = 96ll << 20;  // rendered pages kept, at most
    static constexpr double kMinZoom = 0.25, kMaxZoom = 4.0;

    explicit PdfPageCanvas(QWidget* parent = nullptr);
    ~PdfPageCanvas() override;

    // False with `why` set when the file cannot be read or stays locked.
    bool load(const QString& path, const QString& password, QString* why);
    void clear();
    void set_highlights(const QVector<SourcePassage>& passages, const QString& text);
    // Scrolls so the passage's own words (their boxes on its page, not the page's top) are in
    // the middle of the view, and outlines them until another passage is revealed. A passage
    // not among the highlights, or whose words are not found on its page, shows its page.
    void reveal_passage(const SourcePassage& passage);
    // Where the highlights of passage `index` (into set_highlights' list) lie on its first
    // page, one rectangle per printed line, in viewport pixels at the current scroll and zoom.
    QVector<QRect> passage_boxes_in_view(int index);
    int revealed_passage() const { return revealed_; }  // -1: none

    int page_count() const { return int(page_points_.size()); }
    int current_page() const;  // the page at the middle of the view, from 0
    void scroll_to_page(int page);
    double zoom() const { return zoom_; }  // 1.0: the page's printed size on a 96 dpi screen
    void set_zoom(double zoom);             // leaves fit-width mode
    void fit_width();                       // and keep fitting as the view resizes
    bool fitting_width() const { return fit_width_; }

    int rendered_pages() const { return renders_; }  // Poppler renders since load()
    qint64 cached_bytes() const;
    bool visible_pages_rendered() const;
    qint64 first_page_ms() const { return first_page_ms_; }  // load() to the first page drawn; -1 before

signals:
    void page_changed(int page, int count);
    void zoom_changed(double zoom);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;

private:
    double max_zoom() const;  // so the largest page still fits the cache a few times
    double pixels_per_point() const { return zoom_ * 96.0 / 72.0; }
    QSize page_pixels(int page) const;
    void relayout();                          // page tops and scroll ranges for the zoom
    QPair<int, int> pages_wanted() const;     // first and last page to have rendered
    quint64 cache_key(int page) const;
    void schedule_render();
    void render_one();
    QImage render_page(int page);
    const QVector<PageWord>& words_on(int page);
    int carried_into(int passage, int page);  // words of `passage` matched before `page`
    PassageMarks marks_on(int passage, int page, int from);
    QRect page_rect(int page) const;          // in content pixels
    void outline_revealed(QPainter& painter);
    void emit_page_if_changed();

    std::unique_ptr<Poppler::Document> document_;
    QVector<QSizeF> page_points_;
    QVector<int> tops_;  // at the current zoom, in pixels from the top of the content
    int content_width_ = 0, content_height_ = 0;
    double zoom_ = 1.0;
    bool fit_width_ = true;
    QCache<quint64, QImage> cache_;  // cost in KiB
    QHash<int, QVector<PageWord>> words_;
    QVector<SourcePassage> passages_;
    QVector<QStringList> passage_words_;
    QVector<QStringList> words_before_;  // the text's last words before each passage
    int revealed_ = -1;
    QTimer* render_timer_;
    QElapsedTimer since_load_;
    qint64 first_page_ms_ = -1;
    int renders_ = 0;
    int last_page_reported_ = -1;
};

}  // namespace precis::ui
