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
// Room for the axis titles and the position labels.
constexpr int kAxisLeft = 64, kAxisTop = 38;
constexpr int kTickSpacing = 64;  // at least this many pixels between two position labels

// A step of 1, 2 or 5 times a power of ten, at least `minimum`.
int nice_step(double minimum) {
    double step = 1;
    while (step < minimum) {
        for (double m : {2.0, 2.5, 2.0}) {  // 1 -> 2 -> 5 -> 10
            step *= m;
            if (step >= minimum) break;
        }
    }
    return std::max(1, int(std::lround(step)));
}
}  // namespace

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
    grid_ = image_.isNull() ? 0 : c.grid;
    cells_ = image_.isNull() ? std::vector<float>{} : c.cells;
    row_texts_ = c.row_texts;
    update();
}

void AttentionHeatmapView::set_zoom(double zoom) {
    zoom = std::clamp(zoom, 0.25, 32.0);
    const bool changed = std::abs(zoom - zoom_) > 1e-9;
    zoom_ = zoom;
    const int side = int(std::lround(kBaseSide * zoom_));
    setFixedSize(side + kAxisLeft, side + kAxisTop);
    update();
    if (changed) emit zoom_changed(zoom_);
}

QRect AttentionHeatmapView::map_rect() const {
    return QRect(kAxisLeft, kAxisTop, width() - kAxisLeft, height() - kAxisTop);
}

QVector<QPair<int, QString>> AttentionHeatmapView::axis_ticks() const {
    QVector<QPair<int, QString>> ticks;
    const int tokens = rows_ - num_global_;
    if (rows_ <= 0 || tokens <= 0) return ticks;
    const double per_token = double(map_rect().width()) / rows_;
    if (num_global_ > 0) ticks.push_back({0, tr("G")});
    // Positions 0, step, 2·step… counted from the first token after the global ones.
    const int step = nice_step(kTickSpacing / per_token);
    for (int p = 0; p < tokens; p += step) {
        const int at = int(std::lround((num_global_ + p) * per_token));
        if (!ticks.isEmpty() && at - ticks.last().first < kTickSpacing / 2) continue;  // too close to "G"
        ticks.push_back({at, QString::number(p)});
    }
    return ticks;
}

void AttentionHeatmapView::draw_axes(QPainter& painter) const {
    const QRect map = map_rect();
    const QColor ink = palette().color(QPalette::WindowText);
    painter.setPen(ink);
    QFont title = font();
    title.setBold(true);
    painter.setFont(title);
    painter.drawText(QRect(map.left(), 0, map.width(), 18), Qt::AlignLeft | Qt::AlignVCenter, tr("what it reads (keys) →"));
    painter.save();
    painter.translate(18, map.top());
    painter.rotate(90);  // reads downwards, as the queries go
    painter.drawText(QRect(0, 0, map.height(), 16), Qt::AlignLeft | Qt::AlignVCenter, tr("each word (queries) →"));
    painter.restore();
    painter.setFont(font());
    const QFontMetrics fm(font());
    for (const auto& [at, label] : axis_ticks()) {
        const int x = map.left() + at, y = map.top() + at;
        painter.drawLine(x, map.top() - 4, x, map.top());
        painter.drawText(QRect(x + 2, map.top() - 4 - fm.height(), kTickSpacing, fm.height()), Qt::AlignLeft | Qt::AlignBottom, label);
        painter.drawLine(map.left() - 4, y, map.left(), y);
        painter.drawText(QRect(20, y, map.left() - 26, fm.height()), Qt::AlignRight | Qt::AlignTop, label);
    }
}

void AttentionHeatmapView::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    if (image_.isNull()) {
        painter.fillRect(rect(), palette().base());
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect().adjusted(20, 20, -20, -20), Qt::AlignCenter | Qt::TextWordWrap,
                         tr("Choose a layer and head and press Run: the encoder runs on the open document and "
                            "the weights it computes appear here, queries down and keys across."));
        return;
    }
    painter.fillRect(rect(), palette().window());
    draw_axes(painter);
    const QRect map = map_rect();
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.drawImage(map, image_);
    if (num_global_ > 0 && rows_ > 0) {
        const double g = double(num_global_) / rows_ * map.width();
        painter.setPen(QPen(key_style_colour(KeyStyle::Global), 1, Qt::DashLine));
        painter.drawLine(QPointF(map.left() + g, map.top()), QPointF(map.left() + g, map.bottom()));
        painter.drawLine(QPointF(map.left(), map.top() + g), QPointF(map.right(), map.top() + g));
    }
}

void AttentionHeatmapView::wheelEvent(QWheelEvent* event) {
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0) return QWidget::wheelEvent(event);
    set_zoom(zoom_ * std::pow(1.25, steps));
    event->accept();
}

std::pair<int, int> AttentionHeatmapView::rows_of_cell(int cell) const {
    // fold_attention puts row r in cell r * grid / rows: the inverse, rounded up.
    const auto first = [&](int c) { return int((int64_t(c) * rows_ + grid_ - 1) / grid_); };
    return {first(cell), std::max(first(cell) + 1, first(cell + 1))};
}

QString AttentionHeatmapView::describe_rows(std::pair<int, int> rows) const {
    const auto one = [&](int row) {
        if (row < num_global_) return tr("global token %1").arg(row);
        QString s = tr("token %1").arg(row - num_global_);
        const QString text = row < row_texts_.size() ? row_texts_[row].trimmed() : QString();
        if (!text.isEmpty()) s += QStringLiteral(" “%1”").arg(text);
        return s;
    };
    if (rows.second - rows.first <= 1) return one(rows.first);
    QStringList parts;
    for (int r = rows.first; r < rows.second && parts.size() < 4; ++r) parts << one(r);
    if (rows.second - rows.first > 4) parts << tr("… (%1 tokens in this cell)").arg(rows.second - rows.first);
    return parts.join(QStringLiteral(", "));
}

QString AttentionHeatmapView::tooltip_at(QPointF pos) const {
    const QRect map = map_rect();
    if (image_.isNull() || rows_ <= 0 || grid_ <= 0 || map.width() <= 0 || map.height() <= 0) return {};
    if (!QRectF(map).contains(pos)) return {};  // over an axis
    pos -= map.topLeft();
    const int qc = std::clamp(int(pos.y() / map.height() * grid_), 0, grid_ - 1);
    const int kc = std::clamp(int(pos.x() / map.width() * grid_), 0, grid_ - 1);
    const float w = cells_[size_t(qc) * size_t(grid_) + size_t(kc)];
    const auto q = rows_of_cell(qc), k = rows_of_cell(kc);
    const bool folded = q.second - q.first > 1 || k.second - k.first > 1;
    return tr("Query: %1\nKey: %2\nWeight %3%4")
        .arg(describe_rows(q), describe_rows(k), QString::number(w, 'f', 4),
             folded ? tr(" (the largest in this cell)") : (w == 0 ? tr(" (not read)") : QString()));
}

void AttentionHeatmapView::mouseMoveEvent(QMouseEvent* event) {
    const QString tip = tooltip_at(event->position());
    if (!tip.isEmpty()) QToolTip::showText(event->globalPosition().toPoint(), tip, this);
}

}  // namespace precis::ui
