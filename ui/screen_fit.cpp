#include "ui/screen_fit.h"

#include <QFrame>
#include <QGuiApplication>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QWidget>

#include <algorithm>

namespace precis::ui {

QSize fit_size(const QSize& wanted, const QRect& available) {
    return {std::max(1, std::min(wanted.width(), available.width() - kFrameWidth)),
            std::max(1, std::min(wanted.height(), available.height() - kFrameHeight))};
}

QRect available_screen(const QWidget* w) {
    const QScreen* screen = nullptr;
    if (w) screen = w->isVisible() ? w->screen() : (w->parentWidget() ? w->parentWidget()->screen() : w->screen());
    if (!screen) screen = QGuiApplication::primaryScreen();
    return screen ? screen->availableGeometry() : QRect(0, 0, 1024, 700);
}

void place_within_screen(QWidget* w, const QSize& wanted) {
    const QRect screen = available_screen(w);
    const QSize size = fit_size(wanted.expandedTo(w->minimumSizeHint().boundedTo(wanted)), screen);
    w->resize(size);
    w->move(screen.center() - QPoint(size.width() / 2, (size.height() + kFrameHeight) / 2) +
            QPoint(0, kFrameHeight / 2));
}

void keep_within_screen(QWidget* w) {
    const QRect screen = available_screen(w);
    const QSize size = fit_size(w->size(), screen);
    if (size != w->size()) w->resize(size);
    QRect frame = w->frameGeometry();
    if (!screen.contains(frame)) {
        // Move the frame fully onto the screen (it fits: it was just shrunk).
        const int x = std::clamp(frame.left(), screen.left(), std::max(screen.left(), screen.right() - frame.width() + 1));
        const int y = std::clamp(frame.top(), screen.top(), std::max(screen.top(), screen.bottom() - frame.height() + 1));
        w->move(x, y);
    }
}

namespace {

// QScrollArea's own size hint is capped at a few dozen lines of text; this one asks for all
// of its content (plus the scroll bar), so a dialog is as tall as its content where the
// screen allows and only shorter, scrolling, where it does not.
class FittingScrollArea : public QScrollArea {
public:
    using QScrollArea::QScrollArea;
    QSize sizeHint() const override {
        QSize s = widget() ? widget()->sizeHint() : QScrollArea::sizeHint();
        s.rwidth() += verticalScrollBar()->sizeHint().width();
        return s;
    }
};

}  // namespace

QScrollArea* scrolling(QWidget* content, QWidget* parent) {
    auto* area = new FittingScrollArea(parent);
    area->setWidget(content);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    area->setMinimumWidth(content->minimumSizeHint().width() + area->verticalScrollBar()->sizeHint().width());
    return area;
}

}  // namespace precis::ui
