#pragma once
// The attention weights the engine computed for one layer and head, as a heat map
// (queries down, keys across; darker = more weight, on a square-root scale so small
// weights stay visible; AttentionColourScale is its legend). The axes are labelled in the
// margins, "keys" across the top and "queries" down the left, with token positions (the
// global tokens marked G). Hovering names the query and key words and the weight. Zoom with
// the mouse wheel or set_zoom(); it sits in a scroll area.
#include <QImage>
#include <QWidget>

#include "app/worker/worker_types.h"

namespace precis::ui {

QImage heatmap_image(const AttentionCaptureResult& capture);

class AttentionHeatmapView : public QWidget {
    Q_OBJECT
public:
    explicit AttentionHeatmapView(QWidget* parent = nullptr);

    void set_capture(const AttentionCaptureResult& capture);
    bool has_capture() const { return !image_.isNull(); }
    const QImage& image() const { return image_; }
    double zoom() const { return zoom_; }
    void set_zoom(double zoom);  // 1 = the base size (512 px), clamped to [0.25, 32]
    // Where the map itself is drawn, inside the axis margins.
    QRect map_rect() const;
    // What hovering at `pos` (widget coordinates) shows: the query and key words and the weight.
    QString tooltip_at(QPointF pos) const;
    // The token positions labelled along each axis, and where (pixels along the map's side).
    QVector<QPair<int, QString>> axis_ticks() const;

signals:
    void zoom_changed(double zoom);

protected:
    void paintEvent(QPaintEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    void draw_axes(QPainter& painter) const;
    // Rows [first, last) folded into cell `cell` of the grid.
    std::pair<int, int> rows_of_cell(int cell) const;
    QString describe_rows(std::pair<int, int> rows) const;

    QImage image_;
    int rows_ = 0, num_global_ = 0, grid_ = 0;
    std::vector<float> cells_;
    QStringList row_texts_;
    double zoom_ = 1.0;
};

}  // namespace precis::ui
