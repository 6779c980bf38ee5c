#include "ui/attention_dock.h"

#include <QEvent>
#include <QScreen>

namespace precis::ui {

AttentionDock::AttentionDock(const QString& title, QWidget* parent) : QDockWidget(title, parent) {
    if (parent) parent->installEventFilter(this);  // follow the main window's width
}

void AttentionDock::setVisible(bool visible) {
    if (visible && !isVisible()) float_if_cramped();
    QDockWidget::setVisible(visible);
}

bool AttentionDock::eventFilter(QObject* watched, QEvent* event) {
    if (watched == parentWidget() && event->type() == QEvent::Resize && isVisible()) float_if_cramped();
    return QDockWidget::eventFilter(watched, event);
}

void AttentionDock::float_if_cramped() {
    QWidget* main = parentWidget();
    if (placing_ || !main || isFloating() || room_to_dock(main->width())) return;
    placing_ = true;
    setFloating(true);
    const QSize size(std::min(640, std::max(480, main->width() * 3 / 5)), std::max(560, main->height()));
    resize(size);
    // Beside the main window when the screen has room, else over its right-hand side.
    const QRect frame = main->frameGeometry();
    const QRect screen = main->screen() ? main->screen()->availableGeometry() : QRect(QPoint(0, 0), QSize(4096, 4096));
    QPoint at(frame.right() + 1, frame.top());
    if (at.x() + size.width() > screen.right()) at.setX(std::max(screen.left(), frame.right() - size.width()));
    move(at);
    placing_ = false;
}

}  // namespace precis::ui
