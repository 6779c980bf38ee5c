#include "ui/attention_colour_scale.h"

#include <QPainter>

#include "ui/attention_colours.h"

namespace precis::ui {

namespace {
constexpr float kTicks[] = {0.f, 0.25f, 0.5f, 0.75f, 1.f};  // positions on the colour bar
constexpr int kBarWidth = 14;
}  // namespace

AttentionColourScale::AttentionColourScale(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Expanding);
    setToolTip(tr("Colour of a cell: the attention weight a word gives another word (the share of its attention, "
                  "0 to 1). Square-root scale, so small weights still show."));
}

void AttentionColourScale::set_maximum(float max_weight) {
    max_ = std::max(0.f, max_weight);
    update();
}

QStringList AttentionColourScale::tick_labels() const {
    QStringList out;
    for (float t : kTicks) out << QString::number(weight_at(t), 'g', 2);
    return out;
}

QSize AttentionColourScale::sizeHint() const {
    const QFontMetrics fm = fontMetrics();
    return {kBarWidth + 8 + fm.horizontalAdvance(QStringLiteral("0.0025")) + 4, 8 * fm.height()};
}

void AttentionColourScale::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QFontMetrics fm = p.fontMetrics();
    const int top = fm.height() * 2, bottom = height() - fm.height() / 2 - 2;
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(0, 0, width(), fm.height()), Qt::AlignLeft, tr("weight"));
    if (bottom <= top) return;
    for (int y = top; y <= bottom; ++y) {
        const float t = float(bottom - y) / float(bottom - top);
        p.setPen(QColor::fromRgb(heat_colour(t)));
        p.drawLine(2, y, 2 + kBarWidth, y);
    }
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(2, top, kBarWidth, bottom - top);
    p.setPen(palette().color(QPalette::Text));
    const QStringList labels = tick_labels();
    for (int i = 0; i < labels.size(); ++i) {
        const int y = bottom - int(kTicks[i] * float(bottom - top));
        p.drawLine(2 + kBarWidth, y, 6 + kBarWidth, y);
        p.drawText(QRect(8 + kBarWidth, y - fm.height() / 2, width() - kBarWidth - 8, fm.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, max_ > 0 ? labels[i] : QStringLiteral("–"));
    }
}

}  // namespace precis::ui
