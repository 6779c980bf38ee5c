#pragma once
// Paints an attention pattern in two scales. On top, the whole document as the LSG paper
// draws it (Figures 1 and 4): queries down, keys across, folded onto at most 512 x 512 cells,
// which shows the bands (neighbours on the diagonal, global tokens along the edges, far keys
// beside the band) but, at that scale, not how far keys are made. Below, one query block's
// keys at token scale: a strip over everything the block reaches and a magnified window in
// which each key is drawn as the tokens it stands for (a pooled key as its averaged span, a
// strided key as one token, an lsh key as its scattered cluster). Click the overview to pick
// the query block, the reach strip to move the window; hover a token for its words. From the
// keyboard: Up/Down pick the query block, Left/Right move the window.
#include <QImage>
#include <QStringList>
#include <QWidget>

#include "engine/attention/attention_pattern.h"
#include "engine/attention/sparse_selection.h"
#include "ui/attention_key_strip.h"

namespace precis::ui {

// How rows map to cells: the few global rows get a band wide enough to see (at least
// 1/64 of the grid) even when a document has thousands of tokens; the tokens share the rest.
struct PatternAxis {
    int rows = 0, num_global = 0, grid = 1, global_cells = 0;
    PatternAxis(int rows, int num_global, int max_grid);
    int cell(int row) const;      // the first cell of the row
    int cell_end(int row) const;  // one past its last cell (a global row may span several)
    int row_at(int cell) const;   // the first row drawn in a cell
};

// The whole pattern as grid x grid pixels (white where no key is seen). `head` picks the
// head for per-head patterns (stride, block_stride); `weighted_pools` colours pooled keys as
// bos_pooling's. With `selection`, far keys are the ones the engine built on the document.
QImage rasterize_pattern(const AttentionPattern& pattern, int head, bool weighted_pools,
                         const SparseSelection* selection = nullptr, int max_grid = 512);

class AttentionPatternView : public QWidget {
    Q_OBJECT
public:
    explicit AttentionPatternView(QWidget* parent = nullptr);

    void set_pattern(const AttentionPattern& pattern, int head, bool weighted_pools);
    // The selection the engine made on the open document (same settings and length as the
    // pattern), with each row's text; an empty selection goes back to the static drawing.
    void set_selection(const SparseSelection& selection, const QStringList& row_texts);
    bool shows_document() const { return strip_.from_document; }

    int block_count() const { return int(blocks_.size()); }
    int query_block() const { return block_; }
    void set_query_block(int block);
    // The magnified window: its first row and how many rows it shows.
    int window_begin() const { return window_begin_; }
    int window_rows() const;
    void set_window_begin(int row);

    // How much of the document the drawing stands for, as the caption over the reach strip
    // ends it: "across the whole document", "across the first 4,096 of 20,480 tokens".
    void set_scope(const QString& scope);
    // The caption over the reach strip, as drawn.
    QString reach_caption() const;

    const QImage& image() const { return image_; }
    const KeyStrip& strip() const { return strip_; }
    // What hovering shows at `pos` (empty outside the strips).
    QString tooltip_at(QPoint pos) const;
    // Where a row sits in the magnified window (tests hover there); empty if not shown.
    QRect magnified_cell(int row) const;

    QSize sizeHint() const override { return {480, 640}; }
    QSize minimumSizeHint() const override { return {300, 360}; }

signals:
    void query_block_changed(int block);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    struct Areas {
        QRect overview, reach, magnified, words;
    };
    Areas areas() const;
    void rebuild();
    void place_window_default();
    int row_at_magnified(int x) const;
    QString row_text(int row) const;
    QString describe_key(const StripKey& key) const;
    void paint_overview(QPainter& p, const QRect& r);
    void paint_reach(QPainter& p, const QRect& r);
    void paint_magnified(QPainter& p, const QRect& r, const QRect& words);

    AttentionPattern pattern_;
    int head_ = 0;
    bool weighted_pools_ = false;
    SparseSelection selection_;
    QStringList row_texts_;
    std::vector<std::pair<int, int>> blocks_;
    int block_ = 0;
    KeyStrip strip_;
    QImage image_;
    int window_begin_ = 0;
    QString scope_;
};

}  // namespace precis::ui
