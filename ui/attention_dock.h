#pragma once
// The dock that holds the attention panel. Docked beside the main window's three panes it
// takes about 560 px; a window narrower than kAttentionDockMinWindowWidth would then squeeze
// the library, the document and the summary below use. There the panel opens as a floating
// window of its own instead (beside the main window when the screen has room, over the
// document otherwise): the panes keep their width, and it can still be docked by hand.
// Floating rather than a tab: the panel is read next to the document and summary it
// explains, which a tab would hide; rather than collapsing the library: the library is how
// the user switches documents while comparing their patterns.
#include <QDockWidget>

namespace precis::ui {

inline constexpr int kAttentionDockMinWindowWidth = 1400;

class AttentionDock : public QDockWidget {
    Q_OBJECT
public:
    AttentionDock(const QString& title, QWidget* parent);

    // Whether a main window this wide has room for the panel docked.
    static bool room_to_dock(int window_width) { return window_width >= kAttentionDockMinWindowWidth; }

    // Floats first when the window is narrow, so the panel is never docked even briefly
    // (docking would widen a narrow main window to fit it).
    void setVisible(bool visible) override;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void float_if_cramped();
    bool placing_ = false;
};

}  // namespace precis::ui
