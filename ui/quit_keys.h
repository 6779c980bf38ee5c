#pragma once
// The keys that quit Precis: the platform's Quit binding and Ctrl+Q (some platform themes
// bind Quit to nothing), for the main window and for its dialogs that run long work (the
// batch dialog), so Ctrl+Q behaves the same wherever the focus is.
#include <QKeySequence>
#include <QList>

namespace precis::ui {

inline QList<QKeySequence> quit_keys() {
    QList<QKeySequence> keys = QKeySequence::keyBindings(QKeySequence::Quit);
    if (!keys.contains(QKeySequence(Qt::CTRL | Qt::Key_Q))) keys << QKeySequence(Qt::CTRL | Qt::Key_Q);
    return keys;
}

}  // namespace precis::ui
