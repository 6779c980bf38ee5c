#pragma once
// Paints an attention pattern as the LSG paper draws it (Figures 1, 2 and 4): queries down,
// keys across, each cell coloured by what the key is to the query (global, local, sparse,
// Fovea node). Long inputs are folded onto at most 512 x 512 cells; when several kinds
// fall in one cell the most specific wins (global over local over sparse).
#include <QImage>
#include <QWidget>

#include "engine/attention/attention_pattern.h"

namespace precis::ui {

// How rows map to cells: the few global rows get a band wide enough to see (at least
// 1/64 of the grid) even when a document has thousands of tokens; the tokens share the rest.
struct PatternAxis {
    int rows = 0, num_global = 0, grid = 1, global_cells = 0;
    PatternAxis(int rows, int num_global, int max_grid);
    int cell(int row) const;      // the first cell of the row
    int cell_end(int row) const;  // one past its last cell (a global row may span several)
};

// The pattern as an image of grid x grid pixels (white where no key is seen). `head` picks
// the head for per-head patterns (stride, block_stride).
QImage rasterize_pattern(const AttentionPattern& pattern, int head, int max_grid = 512);

class AttentionPatternView : public QWidget {
    Q_OBJECT
public:
    explicit AttentionPatternView(QWidget* parent = nullptr);

    void set_pattern(const AttentionPattern& pattern, int head);
    const QImage& image() const { return image_; }
    QSize sizeHint() const override { return {460, 460}; }
    QSize minimumSizeHint() const override { return {220, 220}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    AttentionPattern pattern_;
    QImage image_;
    int global_cells_ = 0;
};

}  // namespace precis::ui
