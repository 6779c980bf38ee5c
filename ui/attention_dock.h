#pragma once
// The dock that holds the attention panel. It always docks (issue 42: floated over a narrow
// window it covered the summary it explains): in the main window's right-hand dock area, in
// space of its own that the three panes give up, so it never lies over the document or the
// summary. It cannot be floated. Beside a wide window it takes kAttentionDockWidth; a window
// narrower than kAttentionDockMinWindowWidth gives it a third of its width (dock_width), and
// the panel scrolls in the dock where that is less than it needs. Docked rather than a tab:
// the panel is read next to the document and summary it explains, which a tab would hide.
#include <QDockWidget>

namespace precis::ui {

inline constexpr int kAttentionDockMinWindowWidth = 1400;
inline constexpr int kAttentionDockWidth = 560;
inline constexpr int kAttentionDockMinWidth = 350;

class AttentionDock : public QDockWidget {
    Q_OBJECT
public:
    AttentionDock(const QString& title, QWidget* parent);

    // Whether a main window this wide has room for the panel at its full width.
    static bool room_to_dock(int window_width) { return window_width >= kAttentionDockMinWindowWidth; }
    // The panel's width beside a main window this wide.
    static int dock_width(int window_width);

    // Holds `panel` in a scroll area: beside a 1024 px window the dock is narrower than the
    // panel's own minimum, and the panel scrolls rather than widening the window.
    void set_panel(QWidget* panel);

    // Docks (a floating state restored from an older version included) and gives the panel
    // its width each time it is shown.
    void setVisible(bool visible) override;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void take_room();
};

}  // namespace precis::ui
