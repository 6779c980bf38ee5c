// A keyboard user can see where the focus is: a pane with show_keyboard_focus draws its border
// in the highlight colour while focused and a different, quiet colour otherwise (the issue:
// focus was invisible in the document and summary panes).
#include <QDir>
#include <QPainter>
#include <QPdfWriter>
#include <QTabBar>
#include <QTabWidget>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QTableView>
#include <QVBoxLayout>

#include "app/worker/engine_thread.h"
#include "tests/ui/ui_test_support.h"
#include "ui/document_view.h"
#include "ui/focus_frame.h"
#include "ui/library_panel.h"
#include "ui/main_window.h"

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
    save_shot_if_asked(pane, "focus-frame.png");

    EXPECT_NE(focused, quiet);
    EXPECT_EQ(focused, pane->palette().color(QPalette::Highlight)) << focused.name().toStdString();
}


// In the window (issue 42): the library list showed only a faint dotted cell, and the
// document's Text tab a faint cue; both draw the frame the summary pane draws.
class FocusFrameInTheWindow : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
        use_fixture_model_settings();
        dir_ = scratch_dir("focus-frame-window");
        ui::MainWindowOptions o;
        o.library_path = QString::fromStdString((dir_ / "library.sqlite").string());
        window_ = std::make_unique<ui::MainWindow>(o);
        window_->resize(1024, 700);
        window_->show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(window_.get()));
        window_->activateWindow();
        ASSERT_TRUE(QTest::qWaitForWindowActive(window_.get()));
        ASSERT_TRUE(wait_until([&] { return window_->model_info().has_value() && !window_->engine()->busy(); }));
        for (const std::string& text : {river_paragraphs(), std::string("Bread needs flour, water, salt and time.\n")}) {
            const auto path = write_text_file(dir_ / (text.substr(0, 5) + ".txt"), text);
            window_->open_file(QString::fromStdString(path.string()));
            ASSERT_TRUE(wait_until([&] { return window_->current_document() != 0 && !window_->engine()->busy(); }));
        }
    }
    void TearDown() override { window_.reset(); }

    // The pane's border colour while `pane` has the focus and while `elsewhere` has it.
    std::pair<QColor, QColor> focused_and_quiet(QWidget* pane, QWidget* elsewhere) {
        elsewhere->setFocus(Qt::OtherFocusReason);
        EXPECT_TRUE(wait_until([&] { return elsewhere->hasFocus(); }, 2000));
        const QColor quiet = border_colour(pane);
        pane->setFocus(Qt::TabFocusReason);
        EXPECT_TRUE(wait_until([&] { return pane->hasFocus(); }, 2000));
        return {border_colour(pane), quiet};
    }
    void save_at_both_sizes(const QString& name) {
        const QString out = qEnvironmentVariable("PRECIS_SHOTS_DIR");
        if (out.isEmpty()) return;
        QDir().mkpath(out);
        for (const QSize size : {QSize(1024, 700), QSize(1600, 1000)}) {
            window_->resize(size);
            for (int i = 0; i < 5; ++i) QApplication::processEvents();
            window_->grab().save(QStringLiteral("%1/%2-%3x%4.png").arg(out, name).arg(size.width()).arg(size.height()));
        }
        window_->resize(1024, 700);
    }

    std::filesystem::path dir_;
    std::unique_ptr<ui::MainWindow> window_;
};

TEST_F(FocusFrameInTheWindow, TheLibraryListDrawsTheFrameWhenFocused) {
    QTableView* list = window_->library_panel()->table();
    const auto [focused, quiet] = focused_and_quiet(list, window_->library_panel()->search_box());
    EXPECT_NE(focused, quiet);
    EXPECT_EQ(focused, list->palette().color(QPalette::Highlight)) << focused.name().toStdString();
    save_at_both_sizes(QStringLiteral("focus-library"));
}

TEST_F(FocusFrameInTheWindow, TheDocumentTextDrawsTheFrameWhenFocused) {
    QPlainTextEdit* text = window_->document_view()->text_view();
    const auto [focused, quiet] = focused_and_quiet(text, window_->library_panel()->search_box());
    EXPECT_NE(focused, quiet);
    EXPECT_EQ(focused, text->palette().color(QPalette::Highlight)) << focused.name().toStdString();
    save_at_both_sizes(QStringLiteral("focus-document-text"));
}

// The lone Text tab is no stop of the Tab key (it took the focus with nothing to choose and
// showed it as a thin box around "Text"): Tab goes from the library list to the text.
TEST_F(FocusFrameInTheWindow, TabGoesFromTheLibraryToTheTextNotToALoneTab) {
    QWidget* start = window_->library_panel()->search_box();
    start->setFocus(Qt::TabFocusReason);
    ASSERT_TRUE(wait_until([&] { return start->hasFocus(); }, 2000));
    QStringList visited;
    for (int i = 0; i < 12; ++i) {
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        QApplication::processEvents();
        visited << QString::fromLatin1(QApplication::focusWidget()->metaObject()->className());
        if (i == 0) EXPECT_EQ(QApplication::focusWidget(), window_->library_panel()->table());
        if (i == 1) EXPECT_EQ(QApplication::focusWidget(), window_->document_view()->text_view());
    }
    EXPECT_FALSE(visited.contains(QStringLiteral("QTabBar"))) << visited.join(u' ').toStdString();
}

// With a PDF there is a choice (Text, Pages): the tabs are a stop of the Tab key again.
TEST_F(FocusFrameInTheWindow, APdfsTextAndPagesTabsAreAStop) {
    const QString pdf = QString::fromStdString((dir_ / "report.pdf").string());
    {
        QPdfWriter writer(pdf);
        QPainter painter(&writer);
        painter.drawText(painter.viewport().adjusted(200, 200, -200, -200), Qt::TextWordWrap,
                         QStringLiteral("Rivers shape their valleys slowly, grain by grain, season after season."));
    }
    window_->open_file(pdf);
    QTabWidget* tabs = window_->document_view()->tabs();
    ASSERT_TRUE(wait_until([&] { return tabs->isTabVisible(1) && !window_->engine()->busy(); }));
    EXPECT_EQ(tabs->tabBar()->focusPolicy(), Qt::TabFocus);
    // A text document again: the lone Text tab is no stop.
    window_->open_file(QString::fromStdString(write_text_file(dir_ / "notes.txt", "Notes on silt.\n").string()));
    ASSERT_TRUE(wait_until([&] { return !tabs->isTabVisible(1) && !window_->engine()->busy(); }));
    EXPECT_EQ(tabs->tabBar()->focusPolicy(), Qt::NoFocus);
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
