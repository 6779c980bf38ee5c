#include "ui/attention_pattern_view.h"

#include <QPainter>

#include <algorithm>
#include <vector>

#include "ui/attention_colours.h"

namespace precis::ui {

namespace {

// Later kinds are painted over earlier ones.
int paint_order(const PatternSpan& s) {
    switch (s.kind) {
        case PatternKind::Dense: return 0;
        case PatternKind::FoveaNode: return 1 + (20 - std::min<int>(s.level, 20));  // finer nodes on top
        case PatternKind::Candidates: return 30;
        case PatternKind::Sparse: return 31;
        case PatternKind::Local: return 32;
        case PatternKind::Global: return 33;
    }
    return 0;
}

}  // namespace

PatternAxis::PatternAxis(int rows_, int num_global_, int max_grid)
    : rows(std::max(rows_, 0)), num_global(std::clamp(num_global_, 0, std::max(rows_, 0))) {
    grid = std::max(1, std::min(rows, max_grid));
    if (num_global > 0 && rows > grid) {
        const int proportional = int(int64_t(num_global) * grid / rows);
        global_cells = std::min(grid / 4, std::max(proportional, (grid + 63) / 64));
    } else {
        global_cells = rows > grid ? 0 : num_global;  // one cell per row when everything fits
    }
}

int PatternAxis::cell(int row) const {
    if (rows <= grid) return std::clamp(row, 0, grid - 1);
    if (row < num_global) return int(int64_t(row) * global_cells / num_global);
    const int token_cells = grid - global_cells, tokens = rows - num_global;
    return std::clamp(global_cells + int(int64_t(row - num_global) * token_cells / std::max(tokens, 1)), 0, grid - 1);
}

int PatternAxis::cell_end(int row) const {
    if (rows > grid && row < num_global) return std::max(cell(row) + 1, int(int64_t(row + 1) * global_cells / num_global));
    return cell(row) + 1;
}

QImage rasterize_pattern(const AttentionPattern& p, int head, int max_grid) {
    const PatternAxis axis(p.num_global + p.tokens, p.num_global, max_grid);
    const int grid = axis.grid;
    QImage image(grid, grid, QImage::Format_RGB32);
    image.fill(Qt::white);
    if (axis.rows <= 0) return image;
    const auto bucket = [&](int row) { return axis.cell(row); };

    std::vector<const PatternSpan*> spans;
    for (const PatternSpan& s : p.spans)
        if (s.head < 0 || s.head == head) spans.push_back(&s);
    std::stable_sort(spans.begin(), spans.end(),
                     [](const PatternSpan* a, const PatternSpan* b) { return paint_order(*a) < paint_order(*b); });

    std::vector<char> key_hit(static_cast<size_t>(grid));
    for (const PatternSpan* s : spans) {
        if (s->query_end <= s->query_begin || s->key_end <= s->key_begin) continue;
        std::fill(key_hit.begin(), key_hit.end(), 0);
        // A Fovea node's keys are means over every row it covers; other spans list rows by step.
        const int step = s->kind == PatternKind::FoveaNode ? 1 : std::max(1, int(s->step));
        for (int r = s->key_begin; r < s->key_end; r += step)
            std::fill(key_hit.begin() + axis.cell(r), key_hit.begin() + axis.cell_end(r), 1);
        const QRgb colour = pattern_kind_colour(s->kind, s->level).rgb();
        for (int qb = bucket(s->query_begin); qb < axis.cell_end(s->query_end - 1); ++qb) {
            auto* line = reinterpret_cast<QRgb*>(image.scanLine(qb));
            for (int kb = 0; kb < grid; ++kb)
                if (key_hit[size_t(kb)]) line[kb] = colour;
        }
    }
    return image;
}

AttentionPatternView::AttentionPatternView(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void AttentionPatternView::set_pattern(const AttentionPattern& pattern, int head) {
    pattern_ = pattern;
    image_ = rasterize_pattern(pattern, head);
    global_cells_ = PatternAxis(pattern.num_global + pattern.tokens, pattern.num_global, 512).global_cells;
    update();
}

void AttentionPatternView::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    if (image_.isNull()) return;
    const QFontMetrics fm = painter.fontMetrics();
    const int left = fm.height() * 2 + 4, top = fm.height() * 2 + 4, margin = 8;
    const int side = std::max(10, std::min(width() - left - margin, height() - top - margin));
    const QRect target(left, top, side, side);
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);  // crisp cells
    painter.drawImage(target, image_);
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawRect(target.adjusted(0, 0, -1, -1));

    const int rows = pattern_.num_global + pattern_.tokens;
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(QRect(left, 0, side, fm.height()), Qt::AlignHCenter, tr("keys →"));
    painter.drawText(QRect(left, fm.height(), side, fm.height()), Qt::AlignLeft, QStringLiteral("0"));
    painter.drawText(QRect(left, fm.height(), side, fm.height()), Qt::AlignRight, QString::number(rows));
    painter.save();
    painter.translate(fm.height(), top + side);
    painter.rotate(-90);
    painter.drawText(QRect(0, -fm.height(), side, fm.height()), Qt::AlignHCenter, tr("queries →"));
    painter.restore();
    if (pattern_.num_global > 0 && rows > 0) {
        // Separate the global rows and columns from the tokens.
        const double g = double(global_cells_) / image_.width() * side;
        QPen pen(QColor(0, 0, 0, 90), 1, Qt::DashLine);
        painter.setPen(pen);
        painter.drawLine(QPointF(target.left() + g, target.top()), QPointF(target.left() + g, target.bottom()));
        painter.drawLine(QPointF(target.left(), target.top() + g), QPointF(target.right(), target.top() + g));
    }
}

}  // namespace precis::ui
