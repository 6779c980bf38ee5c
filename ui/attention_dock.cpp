#include "ui/attention_dock.h"

#include <QMainWindow>
#include <QResizeEvent>
#include <QScrollArea>
#include <QTimer>

#include <algorithm>

namespace precis::ui {

AttentionDock::AttentionDock(const QString& title, QWidget* parent) : QDockWidget(title, parent) {
    // Closable and movable between the side areas, never floating: a floating panel lies
    // over the window's panes.
    setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable);
    setAllowedAreas(Qt::LeftDockWidgetArea | Qt::RightDockWidgetArea);
    if (parent) parent->installEventFilter(this);  // follow the main window's width
}

bool AttentionDock::eventFilter(QObject* watched, QEvent* event) {
    // A window widened past kAttentionDockMinWindowWidth gives the panel its full width back
    // (left as it was, the panes would take all of the new room).
    if (watched == parentWidget() && event->type() == QEvent::Resize && isVisible() && !isFloating()) {
        const auto* resize = static_cast<QResizeEvent*>(event);
        if (room_to_dock(resize->size().width()) && !room_to_dock(resize->oldSize().width()))
            QTimer::singleShot(0, this, [this] { take_room(); });  // once the main window has laid out
    }
    return QDockWidget::eventFilter(watched, event);
}

int AttentionDock::dock_width(int window_width) {
    if (room_to_dock(window_width)) return kAttentionDockWidth;
    // What the panes leave (the main window keeps their minimum widths).
    return std::clamp(window_width / 3, kAttentionDockMinWidth, kAttentionDockWidth);
}

void AttentionDock::set_panel(QWidget* panel) {
    auto* area = new QScrollArea(this);
    area->setObjectName(QStringLiteral("attention_scroll"));
    area->setFrameShape(QFrame::NoFrame);
    area->setWidgetResizable(true);
    area->setWidget(panel);
    setWidget(area);
    setMinimumWidth(kAttentionDockMinWidth);
}

void AttentionDock::setVisible(bool visible) {
    const bool opening = visible && !isVisible();
    if (visible && isFloating()) setFloating(false);
    QDockWidget::setVisible(visible);
    if (opening) take_room();
}

void AttentionDock::take_room() {
    auto* main = qobject_cast<QMainWindow*>(parentWidget());
    if (!main) return;
    main->resizeDocks({this}, {dock_width(main->width())}, Qt::Horizontal);
}

}  // namespace precis::ui
