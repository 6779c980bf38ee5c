#pragma once
// Keeping windows and dialogs inside the screen they open on. A laptop at 1024x700 must be
// able to reach every pane, button and status line: a window asks for its comfortable size
// and gets at most what the screen has (less room for the title bar), a restored geometry
// from a bigger monitor is pulled back in, and tall dialogs scroll instead of clipping.
#include <QRect>
#include <QSize>

class QScrollArea;
class QWidget;

namespace precis::ui {

// Room a window's frame takes beyond its client area (title bar, borders), which
// availableGeometry() does not subtract.
constexpr int kFrameWidth = 16, kFrameHeight = 48;

// `wanted`, shrunk to fit `available` with room for the frame.
QSize fit_size(const QSize& wanted, const QRect& available);

// The available geometry of the screen `w` is on (its parent's, before it is shown), or the
// primary screen's.
QRect available_screen(const QWidget* w);

// Resizes `w` to `wanted` fitted to its screen and centres it there (a first opening).
void place_within_screen(QWidget* w, const QSize& wanted);

// Shrinks and moves `w` so that all of it is on its screen (a restored geometry).
void keep_within_screen(QWidget* w);

// A scroll area around `content` that shows all of it when there is room and scrolls when
// the screen is shorter than the content: for the bodies of tall dialogs.
QScrollArea* scrolling(QWidget* content, QWidget* parent);

}  // namespace precis::ui
