// Windows and dialogs fit a 1024x700 screen (issue: at 1024x700 the window opened at
// 1320x820 and Settings was taller than the screen, so OK could not be clicked): the sizes
// asked for are cut to the screen, a window placed off the screen is pulled back, and the
// main window, Settings and the batch dialog can all be made that small (their tall parts
// scroll). Offscreen: the geometry is checked against a 1024x700 rectangle and against the
// test platform's own screen.
#include <QGuiApplication>
#include <QPixmap>
#include <QScreen>

#include "app/worker/model_cache.h"
#include "tests/ui/ui_test_support.h"
#include "ui/batch_dialog.h"
#include "ui/main_window.h"
#include "ui/screen_fit.h"
#include "ui/settings_dialog.h"

namespace precis::test {
namespace {

// PRECIS_SHOTS_DIR set (under Xvfb with -screen 0 1024x700x24 and QT_QPA_PLATFORM=xcb):
// the whole screen, for looking at what a person on that screen sees.
void save_screen_if_asked(const QString& name) {
    const QString dir = qEnvironmentVariable("PRECIS_SHOTS_DIR");
    if (dir.isEmpty()) return;
    QTest::qWait(300);  // let the window manager (if any) and the first paint settle
    const QPixmap shot = QGuiApplication::primaryScreen()->grabWindow(0);
    EXPECT_TRUE(shot.save(dir + "/" + name)) << name.toStdString();
}

const QRect kSmallScreen(0, 0, 1024, 700);
const QSize kSmallClient = ui::fit_size(QSize(5000, 5000), kSmallScreen);  // room left by the frame

TEST(ScreenFit, SizesAreCutToTheScreenLeavingRoomForTheFrame) {
    EXPECT_EQ(ui::fit_size(QSize(1320, 820), kSmallScreen), QSize(1024 - ui::kFrameWidth, 700 - ui::kFrameHeight));
    EXPECT_EQ(ui::fit_size(QSize(720, 600), kSmallScreen), QSize(720, 600));
    EXPECT_EQ(ui::fit_size(QSize(760, 680), kSmallScreen), QSize(760, 700 - ui::kFrameHeight));
}

TEST(ScreenFit, AWindowRestoredOffTheScreenIsPulledBackWhole) {
    QWidget w;
    w.resize(5000, 3000);
    w.move(4000, 2000);
    w.show();
    ui::keep_within_screen(&w);
    const QRect screen = ui::available_screen(&w);
    EXPECT_TRUE(screen.contains(w.frameGeometry())) << "frame " << w.frameGeometry().width() << "x"
                                                    << w.frameGeometry().height() << " on a screen of "
                                                    << screen.width() << "x" << screen.height();
}

class SmallScreen : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
        use_fixture_model_settings();
        QSettings().remove("window/geometry");  // a first opening
        dir_ = scratch_dir("screen-fit");
        ui::MainWindowOptions o;
        o.library_path = QString::fromStdString((dir_ / "library.sqlite").string());
        window_ = std::make_unique<ui::MainWindow>(o);
    }
    std::filesystem::path dir_;
    std::unique_ptr<ui::MainWindow> window_;
};

TEST_F(SmallScreen, TheMainWindowOpensWithinItsScreenAndCanBe1024x700) {
    window_->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(window_.get()));
    save_screen_if_asked("first-run-screen.png");
    const QRect screen = ui::available_screen(window_.get());
    EXPECT_LE(window_->width(), screen.width());
    EXPECT_LE(window_->height(), screen.height());
    const QSize min = window_->minimumSizeHint();
    EXPECT_LE(min.width(), kSmallClient.width());
    EXPECT_LE(min.height(), kSmallClient.height());
}

TEST_F(SmallScreen, SettingsScrollsInsteadOfOutgrowingA700PixelScreen) {
    ui::SettingsDialog dialog(window_->settings(), window_->engine(), window_.get());
    const QSize min = dialog.minimumSizeHint();
    EXPECT_LE(min.width(), kSmallClient.width());
    EXPECT_LE(min.height(), kSmallClient.height()) << "OK and Cancel would be off a 700-pixel screen";
    window_->show();
    dialog.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&dialog));
    save_screen_if_asked("settings-screen.png");
    const QRect screen = ui::available_screen(&dialog);
    EXPECT_LE(dialog.height(), screen.height());
}

TEST_F(SmallScreen, TheBatchDialogFitsToo) {
    ui::BatchDialog dialog(QString::fromStdString((dir_ / "library.sqlite").string()), std::make_shared<ModelCache>(),
                           fixture_model_settings(), window_.get());
    const QSize min = dialog.minimumSizeHint();
    EXPECT_LE(min.width(), kSmallClient.width());
    EXPECT_LE(min.height(), kSmallClient.height());
    EXPECT_LE(dialog.height(), ui::available_screen(&dialog).height());
    window_->show();
    dialog.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&dialog));
    save_screen_if_asked("batch-dialog-screen.png");
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
