// A keyboard user can see where the focus is: a pane with show_keyboard_focus draws its border
// in the highlight colour while focused and a different, quiet colour otherwise (the issue:
// focus was invisible in the document and summary panes).
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QVBoxLayout>

#include "tests/ui/ui_test_support.h"
#include "ui/focus_frame.h"

namespace precis::test {
namespace {

QColor border_colour(QWidget* w) {
    QApplication::processEvents();
    const QImage image = w->grab().toImage();
    return image.pixelColor(0, image.height() / 2);  // on the left border, halfway down
}

TEST(FocusFrame, AFocusedPaneDrawsItsBorderInTheHighlightColour) {
    QWidget window;
    auto* layout = new QVBoxLayout(&window);
    auto* pane = new QPlainTextEdit(&window);
    auto* other = new QLineEdit(&window);
    layout->addWidget(pane);
    layout->addWidget(other);
    ui::show_keyboard_focus(pane);
    window.resize(300, 200);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    window.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&window));

    other->setFocus();
    ASSERT_TRUE(wait_until([&] { return other->hasFocus(); }, 2000));
    const QColor quiet = border_colour(pane);
    pane->setFocus();
    ASSERT_TRUE(wait_until([&] { return pane->hasFocus(); }, 2000));
    const QColor focused = border_colour(pane);
    pane->grab().save(QStringLiteral("/tmp/precis-focus-frame.png"));

    EXPECT_NE(focused, quiet);
    EXPECT_EQ(focused, pane->palette().color(QPalette::Highlight)) << focused.name().toStdString();
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
