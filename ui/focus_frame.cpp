#include "ui/focus_frame.h"

#include <QAbstractScrollArea>
#include <QString>

namespace precis::ui {

void show_keyboard_focus(QAbstractScrollArea* area) {
    // Selected by the widget's own class, so the rule reaches neither its viewport's
    // children nor other widgets of the pane.
    const QString type = QString::fromLatin1(area->metaObject()->className()).replace(QStringLiteral("::"), QStringLiteral("--"));
    area->setStyleSheet(QStringLiteral("%1 { border: 2px solid palette(midlight); }"
                                       "%1:focus { border: 2px solid palette(highlight); }")
                            .arg(type));
}

}  // namespace precis::ui
