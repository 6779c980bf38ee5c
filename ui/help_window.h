#pragma once
// Help > User Guide (F1): the user guide shipped with Precis (resources/help/user-guide.html,
// compiled into the program and installed beside it), shown in an in-app browser so it
// works without a web browser or network; links to other sites open in the system browser.
#include <QDialog>

class QTextBrowser;

namespace precis::ui {

class HelpWindow : public QDialog {
    Q_OBJECT
public:
    explicit HelpWindow(QWidget* parent = nullptr);

    // The one guide window of `parent`, created on first use, raised on later ones.
    static HelpWindow* show_for(QWidget* parent);

    QTextBrowser* browser() const { return browser_; }

private:
    QTextBrowser* browser_;
};

}  // namespace precis::ui
