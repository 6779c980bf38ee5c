#include "ui/attention_heatmap_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <cmath>

#include "ui/attention_colours.h"

namespace precis::ui {

namespace {
constexpr int kBaseSide = 512;
}

QImage heatmap_image(const AttentionCaptureResult& c) {
    if (c.grid <= 0 || c.cells.size() != size_t(c.grid) * size_t(c.grid)) return {};
    QImage image(c.grid, c.grid, QImage::Format_RGB32);
    const float scale = c.max_weight > 0 ? 1.f / c.max_weight : 0.f;
    for (int y = 0; y < c.grid; ++y) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
        const float* w = c.cells.data() + size_t(y) * size_t(c.grid);
        for (int x = 0; x < c.grid; ++x) line[x] = heat_colour(std::sqrt(w[x] * scale));
    }
    return image;
}

AttentionHeatmapView::AttentionHeatmapView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    set_zoom(1.0);
}

void AttentionHeatmapView::set_capture(const AttentionCaptureResult& c) {
    image_ = heatmap_image(c);
    rows_ = c.rows;
    num_global_ = c.num_global;
    update();
}

void AttentionHeatmapView::set_zoom(double zoom) {
    zoom = std::clamp(zoom, 0.25, 32.0);
    const bool changed = std::abs(zoom - zoom_) > 1e-9;
    zoom_ = zoom;
    const int side = int(std::lround(kBaseSide * zoom_));
    setFixedSize(side, side);
    update();
    if (changed) emit zoom_changed(zoom_);
}

void AttentionHeatmapView::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    if (image_.isNull()) {
        painter.fillRect(rect(), palette().base());
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect().adjusted(20, 20, -20, -20), Qt::AlignCenter | Qt::TextWordWrap,
                         tr("Choose a layer and head and press Compute: the encoder runs on the open document and "
                            "the weights it computes appear here."));
        return;
    }
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.drawImage(rect(), image_);
    if (num_global_ > 0 && rows_ > 0) {
        const double g = double(num_global_) / rows_ * width();
        painter.setPen(QPen(QColor(230, 159, 0), 1, Qt::DashLine));
        painter.drawLine(QPointF(g, 0), QPointF(g, height()));
        painter.drawLine(QPointF(0, g), QPointF(width(), g));
    }
}

void AttentionHeatmapView::wheelEvent(QWheelEvent* event) {
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0) return QWidget::wheelEvent(event);
    set_zoom(zoom_ * std::pow(1.25, steps));
    event->accept();
}

void AttentionHeatmapView::mouseMoveEvent(QMouseEvent* event) {
    if (image_.isNull() || rows_ <= 0) return;
    const int q = int(event->position().y() / height() * rows_), k = int(event->position().x() / width() * rows_);
    const auto describe = [&](int row) {
        return row < num_global_ ? tr("global %1").arg(row) : tr("token %1").arg(row - num_global_);
    };
    QToolTip::showText(event->globalPosition().toPoint(), tr("query %1 → key %2").arg(describe(q), describe(k)), this);
}

}  // namespace precis::ui
