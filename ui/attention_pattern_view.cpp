#include "ui/attention_pattern_view.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <climits>
#include <vector>

#include "ui/attention_colours.h"

namespace precis::ui {

namespace {

constexpr int kMaxGrid = 512;
constexpr int kReachHeight = 18, kMagnifiedHeight = 52, kWordsHeight = 64, kMinCellWidth = 11;

// Later kinds are painted over earlier ones: the most specific wins a shared cell.
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

KeyStyle span_style(const PatternSpan& s, bool weighted_pools) {
    switch (s.kind) {
        case PatternKind::Dense: return KeyStyle::Dense;
        case PatternKind::Global: return KeyStyle::Global;
        case PatternKind::Local: return KeyStyle::Local;
        case PatternKind::Sparse:
            return s.group > 1 ? (weighted_pools ? KeyStyle::Weighted : KeyStyle::Averaged) : KeyStyle::Single;
        case PatternKind::Candidates: return KeyStyle::Candidates;
        case PatternKind::FoveaNode: return KeyStyle::FoveaNode;
    }
    return KeyStyle::Dense;
}

KeyStyle built_style(SparsityType built_as) {
    switch (built_as) {
        case SparsityType::Pooling: return KeyStyle::Averaged;
        case SparsityType::BosPooling: return KeyStyle::Weighted;
        case SparsityType::Lsh: return KeyStyle::Cluster;
        default: return KeyStyle::Single;
    }
}

int style_priority(KeyStyle s) {
    switch (s) {
        case KeyStyle::Global: return 5;
        case KeyStyle::Local: return 4;
        case KeyStyle::Candidates: return 1;
        case KeyStyle::Dense: return 0;
        default: return 3;
    }
}

QString quoted(const QString& text) { return QStringLiteral("“%1”").arg(text); }

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

int PatternAxis::row_at(int c) const {
    if (rows <= grid) return std::clamp(c, 0, std::max(rows - 1, 0));
    if (c < global_cells) return int(int64_t(c) * num_global / std::max(global_cells, 1));
    const int token_cells = grid - global_cells, tokens = rows - num_global;
    return std::clamp(num_global + int((int64_t(c - global_cells) * tokens + token_cells - 1) / std::max(token_cells, 1)),
                      0, rows - 1);
}

QImage rasterize_pattern(const AttentionPattern& p, int head, bool weighted_pools, const SparseSelection* selection,
                         int max_grid) {
    const PatternAxis axis(p.num_global + p.tokens, p.num_global, max_grid);
    const int grid = axis.grid;
    QImage image(grid, grid, QImage::Format_RGB32);
    image.fill(Qt::white);
    if (axis.rows <= 0) return image;
    const bool from_document = selection && !selection->empty();

    std::vector<const PatternSpan*> spans;
    for (const PatternSpan& s : p.spans)
        if ((s.head < 0 || s.head == head) && !(from_document && (s.kind == PatternKind::Sparse || s.kind == PatternKind::Candidates)))
            spans.push_back(&s);
    std::stable_sort(spans.begin(), spans.end(),
                     [](const PatternSpan* a, const PatternSpan* b) { return paint_order(*a) < paint_order(*b); });

    std::vector<char> key_hit(static_cast<size_t>(grid));
    const auto paint_rows = [&](int q0, int q1, QRgb colour) {
        for (int qb = axis.cell(q0); qb < axis.cell_end(q1 - 1); ++qb) {
            auto* line = reinterpret_cast<QRgb*>(image.scanLine(qb));
            for (int kb = 0; kb < grid; ++kb)
                if (key_hit[size_t(kb)]) line[kb] = colour;
        }
    };
    // The engine's far keys go under the local and global ones, as in the static drawing.
    if (from_document) {
        const QRgb colour = key_style_colour(built_style(selection->built_as)).rgb();
        for (const SparseBlockKeys& b : selection->blocks) {
            if (b.query_end <= b.query_begin) continue;
            std::fill(key_hit.begin(), key_hit.end(), 0);
            for (int32_t j : b.keys)
                if (j >= 0 && size_t(j) < selection->keys.size())
                    for (int32_t r : selection->keys[size_t(j)].rows)
                        if (r >= 0 && r < axis.rows) key_hit[size_t(axis.cell(r))] = 1;
            paint_rows(b.query_begin, b.query_end, colour);
        }
    }
    for (const PatternSpan* s : spans) {
        if (s->query_end <= s->query_begin || s->key_end <= s->key_begin) continue;
        std::fill(key_hit.begin(), key_hit.end(), 0);
        // A Fovea node's keys are means over every row it covers; other spans list rows by step.
        const int step = s->kind == PatternKind::FoveaNode ? 1 : std::max(1, int(s->step));
        for (int r = s->key_begin; r < s->key_end; r += step)
            std::fill(key_hit.begin() + axis.cell(r), key_hit.begin() + axis.cell_end(r), 1);
        paint_rows(s->query_begin, s->query_end, key_style_colour(span_style(*s, weighted_pools), s->level).rgb());
    }
    return image;
}

AttentionPatternView::AttentionPatternView(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
}

void AttentionPatternView::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
        case Qt::Key_Up: return set_query_block(block_ - 1);
        case Qt::Key_Down: return set_query_block(block_ + 1);
        case Qt::Key_Left: return set_window_begin(window_begin_ - window_rows() / 2);
        case Qt::Key_Right: return set_window_begin(window_begin_ + window_rows() / 2);
        default: QWidget::keyPressEvent(event);
    }
}

void AttentionPatternView::set_pattern(const AttentionPattern& pattern, int head, bool weighted_pools) {
    const bool same_shape = pattern.tokens == pattern_.tokens && pattern.num_global == pattern_.num_global;
    pattern_ = pattern;
    head_ = head;
    weighted_pools_ = weighted_pools;
    blocks_ = query_blocks(pattern_);
    if (!same_shape) block_ = int(blocks_.size()) / 2;  // a block in the middle reaches both ways
    block_ = std::clamp(block_, 0, std::max(0, int(blocks_.size()) - 1));
    rebuild();
    if (!same_shape) place_window_default();
}

void AttentionPatternView::set_selection(const SparseSelection& selection, const QStringList& row_texts) {
    selection_ = selection;
    row_texts_ = row_texts;
    rebuild();
    place_window_default();
}

void AttentionPatternView::set_query_block(int block) {
    block_ = std::clamp(block, 0, std::max(0, int(blocks_.size()) - 1));
    rebuild();
    place_window_default();
    emit query_block_changed(block_);
}

int AttentionPatternView::window_rows() const {
    const int width = std::max(1, areas().magnified.width());
    return std::clamp(width / kMinCellWidth, 8, 128);
}

void AttentionPatternView::set_window_begin(int row) {
    const int rows = pattern_.num_global + pattern_.tokens;
    window_begin_ = std::clamp(row, pattern_.num_global, std::max(pattern_.num_global, rows - window_rows()));
    update();
}

void AttentionPatternView::place_window_default() {
    // Straddle the end of the neighbours and the start of the far keys after them: the
    // window then shows both, side by side, which is where the types differ.
    int local_end = strip_.query_end, first_far = INT_MAX;
    for (const StripKey& k : strip_.keys)
        if (k.style == KeyStyle::Local && !k.rows.empty()) local_end = std::max(local_end, k.rows.back() + 1);
    for (const StripKey& k : strip_.keys)
        if (k.style != KeyStyle::Local && k.style != KeyStyle::Global)
            for (int row : k.rows)
                if (row >= local_end) first_far = std::min(first_far, row);
    const int n = window_rows();
    int begin = local_end - n / 4;
    // Far keys that start after a gap (block_stride's other runs) would fall outside: show them.
    if (first_far != INT_MAX && first_far >= begin + n * 3 / 4) begin = first_far - n / 4;
    set_window_begin(begin);
}

void AttentionPatternView::rebuild() {
    const bool use_selection = !selection_.empty();
    image_ = rasterize_pattern(pattern_, head_, weighted_pools_, use_selection ? &selection_ : nullptr, kMaxGrid);
    strip_ = use_selection ? key_strip_from_selection(pattern_, selection_, block_, head_)
                           : key_strip_from_pattern(pattern_, block_, head_, weighted_pools_);
    update();
}

void AttentionPatternView::resizeEvent(QResizeEvent*) { set_window_begin(window_begin_); }

AttentionPatternView::Areas AttentionPatternView::areas() const {
    const QFontMetrics fm = fontMetrics();
    const int line = fm.height(), margin = 6, left = line * 2 + 4;
    const int words = row_texts_.isEmpty() ? 0 : kWordsHeight;
    const int below = line + 4 + kReachHeight + 4 + line + kMagnifiedHeight + words + margin;
    const int top = line * 2 + 4;
    const int side = std::max(40, std::min(width() - left - margin, height() - top - below - margin));
    Areas a;
    a.overview = QRect(std::max(left, (width() - side) / 2), top, side, side);  // centred when height is short
    int y = a.overview.bottom() + 1 + margin + line + 4;  // room for the query block's mark above the strip
    a.reach = QRect(margin, y, width() - 2 * margin, kReachHeight);
    y = a.reach.bottom() + 1 + 4 + line;
    a.magnified = QRect(margin, y, width() - 2 * margin, kMagnifiedHeight);
    a.words = QRect(margin, a.magnified.bottom() + 1, width() - 2 * margin, words);
    return a;
}

QString AttentionPatternView::row_text(int row) const {
    if (row < pattern_.num_global) return tr("global token %1").arg(row);
    if (row < row_texts_.size()) {
        const QString text = row_texts_[row].trimmed();
        return text.isEmpty() && !row_texts_[row].isEmpty() ? tr("(space)") : text.isEmpty() ? tr("(padding)") : text;
    }
    return {};
}

QString AttentionPatternView::describe_key(const StripKey& key) const {
    const auto member = [&](size_t m) {
        const int row = key.rows[m];
        QString s = tr("token %1").arg(row - pattern_.num_global);
        const QString text = row_text(row);
        if (!text.isEmpty()) s += QStringLiteral(" ") + quoted(text);
        if (!key.shares.empty() && key.rows.size() > 1) s += QStringLiteral(" %1%").arg(key.shares[m] * 100, 0, 'f', 0);
        return s;
    };
    QStringList members;
    for (size_t m = 0; m < key.rows.size() && m < 8; ++m) members << member(m);
    if (key.rows.size() > 8) members << tr("… %1 more").arg(key.rows.size() - 8);
    const QString list = members.join(QStringLiteral(", "));
    switch (key.style) {
        case KeyStyle::Global: return tr("Global token: every word reads it.");
        case KeyStyle::Local: return tr("Neighbour, read in full: %1").arg(list);
        case KeyStyle::Dense: return tr("Read in full (short text): %1").arg(list);
        case KeyStyle::Single:
            return strip_.from_document && selection_.built_as == SparsityType::Norm
                       ? tr("Far key kept because its key is among the strongest of its stretch: %1").arg(list)
                       : tr("Far key, one token: %1").arg(list);
        case KeyStyle::Averaged: return tr("Far key averaging %1 tokens: %2").arg(key.rows.size()).arg(list);
        case KeyStyle::Weighted:
            return key.shares.empty()
                       ? tr("Far key, a weighted average of %1 tokens (the weights come from the text): %2")
                             .arg(key.rows.size())
                             .arg(list)
                       : tr("Far key, a weighted average set by the first token: %1").arg(list);
        case KeyStyle::Cluster: return tr("Far key averaging a cluster of %1 similar tokens: %2").arg(key.rows.size()).arg(list);
        case KeyStyle::Candidates:
            return tr("The far keys are picked from these %1 tokens on the document: press Run to see which.")
                .arg(key.rows.size());
        case KeyStyle::FoveaNode: return tr("Averaged over blocks (level %1): %2").arg(key.level).arg(list);
    }
    return {};
}

int AttentionPatternView::row_at_magnified(int x) const {
    const QRect r = areas().magnified;
    if (x < r.left() || x > r.right()) return -1;
    return window_begin_ + int(int64_t(x - r.left()) * window_rows() / std::max(1, r.width()));
}

QRect AttentionPatternView::magnified_cell(int row) const {
    const QRect r = areas().magnified;
    const int n = window_rows();
    if (row < window_begin_ || row >= window_begin_ + n) return {};
    const double cw = double(r.width()) / n;
    const int x0 = r.left() + int((row - window_begin_) * cw), x1 = r.left() + int((row - window_begin_ + 1) * cw);
    return QRect(x0, r.top(), std::max(1, x1 - x0), r.height());
}

QString AttentionPatternView::tooltip_at(QPoint pos) const {
    const Areas a = areas();
    if (a.magnified.united(a.words).contains(pos)) {
        const int row = row_at_magnified(pos.x());
        if (row < 0) return {};
        const StripKey* key = strip_.key_at(row);
        QString head = tr("Token %1").arg(row - pattern_.num_global);
        if (const QString t = row_text(row); !t.isEmpty()) head += QStringLiteral(" ") + quoted(t);
        return head + QStringLiteral("\n") + (key ? describe_key(*key) : tr("Not read by this query block."));
    }
    if (a.overview.contains(pos) && !image_.isNull()) {
        const PatternAxis axis(pattern_.num_global + pattern_.tokens, pattern_.num_global, kMaxGrid);
        const int q = axis.row_at(int((pos.y() - a.overview.top()) * double(axis.grid) / a.overview.height()));
        const QString word = row_text(q);
        return tr("Query row %1%2: click to see what its block reads, token by token.")
            .arg(q)
            .arg(word.isEmpty() ? QString() : QStringLiteral(" ") + quoted(word));
    }
    if (a.reach.contains(pos)) return tr("Everything this query block reads, over the whole document: click to magnify a place.");
    return {};
}

void AttentionPatternView::mousePressEvent(QMouseEvent* event) {
    const Areas a = areas();
    const QPoint pos = event->position().toPoint();
    if (a.overview.contains(pos) && !blocks_.empty()) {
        const PatternAxis axis(pattern_.num_global + pattern_.tokens, pattern_.num_global, kMaxGrid);
        const int q = axis.row_at(int((pos.y() - a.overview.top()) * double(axis.grid) / a.overview.height()));
        for (size_t b = 0; b < blocks_.size(); ++b)
            if (q < blocks_[b].second) return set_query_block(int(b));
        return set_query_block(int(blocks_.size()) - 1);
    }
    if (a.reach.contains(pos)) {
        const int rows = pattern_.num_global + pattern_.tokens;
        const int row = int(int64_t(pos.x() - a.reach.left()) * rows / std::max(1, a.reach.width()));
        set_window_begin(row - window_rows() / 2);
    }
}

void AttentionPatternView::mouseMoveEvent(QMouseEvent* event) {
    const QString tip = tooltip_at(event->position().toPoint());
    if (tip.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), tip, this);
}

void AttentionPatternView::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    if (image_.isNull()) return;
    const Areas a = areas();
    paint_overview(painter, a.overview);
    paint_reach(painter, a.reach);
    paint_magnified(painter, a.magnified, a.words);
}

void AttentionPatternView::paint_overview(QPainter& painter, const QRect& target) {
    const QFontMetrics fm = painter.fontMetrics();
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);  // crisp cells
    painter.drawImage(target, image_);
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawRect(target.adjusted(0, 0, -1, -1));
    const int rows = pattern_.num_global + pattern_.tokens;
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(QRect(target.left(), 0, target.width(), fm.height()), Qt::AlignHCenter,
                     tr("what it reads (keys) →"));
    painter.drawText(QRect(target.left(), fm.height(), target.width(), fm.height()), Qt::AlignLeft, QStringLiteral("0"));
    painter.drawText(QRect(target.left(), fm.height(), target.width(), fm.height()), Qt::AlignRight, QString::number(rows));
    painter.save();
    painter.translate(target.left() - fm.height() - 4, target.bottom());
    painter.rotate(-90);
    painter.drawText(QRect(0, -fm.height(), target.height(), fm.height()), Qt::AlignHCenter,
                     fm.elidedText(tr("each word (queries) →"), Qt::ElideMiddle, target.height()));
    painter.restore();
    const PatternAxis axis(rows, pattern_.num_global, kMaxGrid);
    const double scale = double(target.height()) / axis.grid;
    if (pattern_.num_global > 0 && rows > 0) {
        // Separate the global rows and columns from the tokens.
        const double g = axis.global_cells * scale;
        painter.setPen(QPen(QColor(0, 0, 0, 90), 1, Qt::DashLine));
        painter.drawLine(QPointF(target.left() + g, target.top()), QPointF(target.left() + g, target.bottom()));
        painter.drawLine(QPointF(target.left(), target.top() + g), QPointF(target.right(), target.top() + g));
    }
    if (strip_.query_end > strip_.query_begin) {  // the block drawn below, bracketed on the left
        const double y0 = target.top() + axis.cell(strip_.query_begin) * scale;
        const double y1 = target.top() + axis.cell_end(strip_.query_end - 1) * scale;
        painter.setPen(QPen(palette().color(QPalette::Text), 2));
        painter.drawLine(QPointF(target.left() - 5, y0), QPointF(target.left() - 5, std::max(y1, y0 + 2)));
        painter.setPen(QPen(QColor(0, 0, 0, 120), 1));
        painter.drawRect(QRectF(target.left(), y0, target.width() - 1, std::max(1.0, y1 - y0)));
    }
}

void AttentionPatternView::set_scope(const QString& scope) {
    if (scope == scope_) return;
    scope_ = scope;
    update();
}

QString AttentionPatternView::reach_caption() const {
    return tr("Query block %1 (tokens %2–%3) reads, %4:")
        .arg(block_ + 1)
        .arg(strip_.query_begin - pattern_.num_global)
        .arg(strip_.query_end - pattern_.num_global - 1)
        .arg(scope_.isEmpty() ? tr("across the whole document") : scope_);
}

void AttentionPatternView::paint_reach(QPainter& painter, const QRect& r) {
    const QFontMetrics fm = painter.fontMetrics();
    const int rows = pattern_.num_global + pattern_.tokens;
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(QRect(r.left(), r.top() - fm.height() - 5, r.width(), fm.height()), Qt::AlignLeft,
                     fm.elidedText(reach_caption(), Qt::ElideRight, r.width()));
    if (rows <= 0 || r.width() <= 0) return;
    // The strongest style per pixel column.
    std::vector<int> best(static_cast<size_t>(r.width()), -1);
    std::vector<QColor> colour(static_cast<size_t>(r.width()));
    for (const StripKey& k : strip_.keys)
        for (int row : k.rows) {
            const int x = std::clamp(int(int64_t(row) * r.width() / rows), 0, r.width() - 1);
            if (style_priority(k.style) > best[size_t(x)]) {
                best[size_t(x)] = style_priority(k.style);
                colour[size_t(x)] = key_style_colour(k.style, k.level);
            }
        }
    painter.fillRect(r, Qt::white);
    for (int x = 0; x < r.width(); ++x)
        if (best[size_t(x)] >= 0) painter.fillRect(QRect(r.left() + x, r.top(), 1, r.height()), colour[size_t(x)]);
    const auto x_of = [&](int row) { return r.left() + int(int64_t(row) * r.width() / rows); };
    painter.setPen(QPen(palette().color(QPalette::Text), 2));  // the query block itself
    painter.drawLine(x_of(strip_.query_begin), r.top() - 1, std::max(x_of(strip_.query_end), x_of(strip_.query_begin) + 2), r.top() - 1);
    painter.setPen(QPen(QColor(0, 0, 0), 1, Qt::DashLine));  // the magnified window
    painter.drawRect(QRect(x_of(window_begin_), r.top(), std::max(3, x_of(window_begin_ + window_rows()) - x_of(window_begin_)), r.height() - 1));
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawRect(r.adjusted(0, 0, -1, -1));
}

void AttentionPatternView::paint_magnified(QPainter& painter, const QRect& r, const QRect& words) {
    const QFontMetrics fm = painter.fontMetrics();
    const int n = window_rows();
    painter.setPen(palette().color(QPalette::Text));
    painter.drawText(QRect(r.left(), r.top() - fm.height() - 2, r.width(), fm.height()), Qt::AlignLeft,
                     tr("Magnified, tokens %1–%2: one box per key, as wide as the tokens it stands for")
                         .arg(window_begin_ - pattern_.num_global)
                         .arg(window_begin_ - pattern_.num_global + n - 1));
    painter.fillRect(r, Qt::white);
    const double cw = double(r.width()) / n;
    const auto x_of = [&](int row) { return r.left() + (row - window_begin_) * cw; };
    const int end = window_begin_ + n;
    for (const StripKey& k : strip_.keys) {
        if (k.rows.empty() || k.rows.back() < window_begin_ || k.rows.front() >= end || k.style == KeyStyle::Global) continue;
        const QColor c = key_colour(k);
        const bool contiguous = k.rows.back() - k.rows.front() + 1 == int(k.rows.size());
        if (k.style == KeyStyle::Candidates) {
            const double x0 = x_of(std::max(k.rows.front(), window_begin_)), x1 = x_of(std::min(k.rows.back() + 1, end));
            painter.fillRect(QRectF(x0, r.top() + 6, x1 - x0, r.height() - 12), c);
            continue;
        }
        if (contiguous && k.rows.size() > 1) {
            // One key standing for a span of neighbours: one box over the span, and inside it
            // each token's share as a bar (even for pooling, uneven for bos_pooling).
            const double x0 = x_of(k.rows.front()) + 1, x1 = x_of(k.rows.back() + 1) - 1;
            const QRectF box(x0, r.top() + 2, x1 - x0, r.height() - 4);
            painter.fillRect(box, c.lighter(160));
            if (k.shares.empty()) {
                painter.fillRect(box, QBrush(c, Qt::BDiagPattern));  // weights unknown until a run
            } else {
                const float top = *std::max_element(k.shares.begin(), k.shares.end());
                for (size_t m = 0; m < k.rows.size(); ++m) {
                    const double h = (box.height() - 2) * (top > 0 ? k.shares[m] / top : 0.0);
                    painter.fillRect(QRectF(x_of(k.rows[m]) + 1, box.bottom() - h, cw - 2, h), c);
                }
            }
            painter.setPen(QPen(c.darker(150), 1));
            painter.drawRect(box);
            continue;
        }
        // One token per key, or a scattered cluster: a box per token; a cluster's tokens are
        // joined by arcs in its colour under them (an arc diagram), so one reads which far
        // tokens were averaged together.
        const bool cluster = k.rows.size() > 1;
        const double box_height = cluster ? r.height() * 0.55 : r.height() - 4;
        double previous = -1;
        for (int row : k.rows) {
            if (row < window_begin_ || row >= end) continue;
            painter.fillRect(QRectF(x_of(row) + 1, r.top() + 2, cw - 2, box_height), c);
            const double x = x_of(row) + cw / 2;
            if (cluster && previous >= 0) {
                const double depth = std::min(r.height() - box_height - 4, 4 + (x - previous) / 6);
                QPainterPath arc;
                arc.moveTo(previous, r.top() + 2 + box_height);
                arc.cubicTo(previous, r.top() + 2 + box_height + depth * 1.3, x, r.top() + 2 + box_height + depth * 1.3, x,
                            r.top() + 2 + box_height);
                painter.setPen(QPen(c, 1.5));
                painter.setBrush(Qt::NoBrush);
                painter.drawPath(arc);
            }
            previous = x;
        }
    }
    // The query block's own tokens: a mark above, so "near" and "far" have a reference.
    painter.setPen(QPen(palette().color(QPalette::Text), 2));
    const int q0 = std::max(strip_.query_begin, window_begin_), q1 = std::min(strip_.query_end, end);
    if (q1 > q0) painter.drawLine(QPointF(x_of(q0), r.top()), QPointF(x_of(q1), r.top()));
    painter.setPen(palette().color(QPalette::Mid));
    painter.drawRect(r.adjusted(0, 0, -1, -1));

    if (words.height() <= 0) return;
    QFont small = painter.font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8));
    painter.setFont(small);
    painter.setPen(palette().color(QPalette::Text));
    for (int row = window_begin_; row < end; ++row) {
        const QString text = row_text(row);
        if (text.isEmpty()) continue;
        painter.save();
        // Turned a quarter clockwise: the text runs down and its line spans the cell's width.
        painter.translate(x_of(row) + cw, words.top() + 2);
        painter.rotate(90);
        painter.drawText(QRectF(0, 0, words.height() - 4, cw), Qt::AlignLeft | Qt::AlignVCenter,
                         QFontMetrics(small).elidedText(text, Qt::ElideRight, words.height() - 4));
        painter.restore();
    }
}

}  // namespace precis::ui
