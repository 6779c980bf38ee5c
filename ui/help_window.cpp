#include "ui/help_window.h"
#include "ui/screen_fit.h"

#include <QDialogButtonBox>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

// Outside any namespace, as Q_INIT_RESOURCE requires. The .qrc is compiled into the static
// precis_ui library, whose resource object a linker drops unless something refers to it.
static void load_precis_resources() { Q_INIT_RESOURCE(precis); }

namespace precis::ui {

namespace {
const char* const kGuide = "qrc:/help/user-guide.html";
}

HelpWindow::HelpWindow(QWidget* parent) : QDialog(parent), browser_(new QTextBrowser(this)) {
    setWindowTitle(tr("Precis user guide"));
    setObjectName(QStringLiteral("help_window"));
    load_precis_resources();
    // Links inside the guide move within it; a link to a website opens the user's browser.
    browser_->setOpenLinks(true);
    browser_->setOpenExternalLinks(true);
    browser_->setSource(QUrl(QString::fromLatin1(kGuide)));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* contents = buttons->addButton(tr("Contents"), QDialogButtonBox::ActionRole);
    connect(contents, &QPushButton::clicked, browser_, &QTextBrowser::home);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(browser_, 1);
    layout->addWidget(buttons);
    resize(fit_size(QSize(760, 680), available_screen(this)));
}

HelpWindow* HelpWindow::show_for(QWidget* parent) {
    auto* window = parent->findChild<HelpWindow*>(QString(), Qt::FindDirectChildrenOnly);
    if (!window) window = new HelpWindow(parent);
    window->show();
    window->raise();
    window->activateWindow();
    return window;
}

}  // namespace precis::ui
