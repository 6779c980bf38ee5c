// Screenshots of the attention panel for review (not a correctness test): runs only when
// PRECIS_SHOTS_DIR names a folder, and writes PNGs there. The document is the bundled
// sample essay (resources/samples/the-quiet-work-of-rivers.txt); the model is the fixture
// bart-tiny-realvocab read as LSG with 4,096 positions (random weights, real vocabulary), so
// the sparse path runs on the whole essay and hovering shows real words.
#include <QDir>
#include <QDockWidget>
#include <QPainter>
#include <QSignalSpy>
#include <QTabWidget>

#include "app/library/library.h"
#include "app/worker/engine_thread.h"
#include "tests/ui/ui_test_support.h"
#include "ui/attention_panel.h"
#include "ui/main_window.h"

namespace precis::test {
namespace {

using ui::PatternChoice;

class AttentionScreenshots : public ::testing::Test {
protected:
    void SetUp() override {
        out_ = qEnvironmentVariable("PRECIS_SHOTS_DIR");
        if (out_.isEmpty()) GTEST_SKIP() << "set PRECIS_SHOTS_DIR to take screenshots";
        if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
        QDir().mkpath(out_);
        QSettings q;
        q.clear();
        EngineSettings s = fixture_model_settings();
        s.attention = "lsg";
        s.max_positions = 4096;
        save_engine_settings(q, s);
        dir_ = scratch_dir("attention-screenshots");
        ui::MainWindowOptions o;
        o.library_path = QString::fromStdString((dir_ / "library.sqlite").string());
        window_ = std::make_unique<ui::MainWindow>(o);
    }

    void open_sample(QSize size) {
        window_->resize(size);
        window_->show();
        ASSERT_TRUE(wait_until([&] { return window_->model_info().has_value() && !window_->engine()->busy(); }));
        window_->open_file(QString::fromStdString((samples_dir() / "the-quiet-work-of-rivers.txt").string()));
        ASSERT_TRUE(wait_until([&] { return window_->current_document() != 0 && !window_->engine()->busy(); }));
        window_->attention_dock()->show();
        QApplication::processEvents();
    }

    void run(PatternChoice choice, int layer, int head) {
        ui::AttentionPanel* panel = window_->attention_panel();
        panel->select_pattern(int(choice));
        panel->set_layer_and_head(layer, head);
        QSignalSpy captured(window_->engine()->worker(), &EngineWorker::attention_captured);
        panel->request_run();
        ASSERT_TRUE(wait_until([&] { return captured.count() == 1 && !window_->engine()->busy(); }));
        QApplication::processEvents();
    }

    void save(QWidget* w, const QString& name) {
        QApplication::processEvents();
        ASSERT_TRUE(w->grab().save(out_ + "/" + name)) << name.toStdString();
    }

    // The screen as the user sees it: the main window and, on top, the floating panel.
    void save_screen(QSize screen, const QString& name) {
        QApplication::processEvents();
        QImage image(screen, QImage::Format_RGB32);
        image.fill(QColor(60, 60, 60));
        QPainter p(&image);
        p.drawPixmap(window_->geometry().topLeft(), window_->grab());
        QDockWidget* dock = window_->attention_dock();
        if (dock->isFloating()) p.drawPixmap(dock->geometry().topLeft(), dock->grab());
        p.end();
        ASSERT_TRUE(image.save(out_ + "/" + name)) << name.toStdString();
    }

    QString out_;
    std::filesystem::path dir_;
    std::unique_ptr<ui::MainWindow> window_;
};

TEST_F(AttentionScreenshots, NormOnTheSampleAt1024x700) {
    window_->move(0, 0);
    open_sample({1024, 700});
    run(PatternChoice::Norm, 1, 0);
    save(window_.get(), "main-window-1024x700.png");
    save(window_->attention_dock(), "attention-norm-1024x700.png");
    save_screen({1024, 700}, "screen-1024x700-attention-norm.png");
}

TEST_F(AttentionScreenshots, NormOnTheSampleAt1600x1000) {
    window_->move(0, 0);
    open_sample({1600, 1000});
    run(PatternChoice::Norm, 1, 0);
    save(window_.get(), "main-window-1600x1000-attention-norm.png");
    save(window_->attention_panel(), "attention-norm-1600x1000.png");
    window_->attention_panel()->tabs()->setCurrentIndex(1);
    save(window_->attention_panel(), "attention-weights-1600x1000.png");
}

TEST_F(AttentionScreenshots, EverySparsityTypeOnTheSample) {
    open_sample({1600, 1000});
    const char* names[] = {"none", "norm", "pooling", "stride", "block_stride", "bos_pooling", "lsh", "fovea"};
    for (int c = 0; c < ui::kPatternChoices; ++c) {
        run(PatternChoice(c), 1, 1);
        save(window_->attention_panel(), QStringLiteral("attention-pattern-%1.png").arg(names[c]));
    }
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
