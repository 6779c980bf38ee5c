// Screenshots of the application for review (not a correctness test): runs only when
// PRECIS_SHOTS_DIR names a folder, and writes PNGs there. Uses the fixture test model read
// as LSG with 4,096 positions, so the sample essay is read in full and the LSG sparse path,
// the heat map and the highlighting all have real data to show.
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QListWidget>
#include <QSignalSpy>
#include <QTabWidget>

#include "app/library/library.h"
#include "app/worker/engine_thread.h"
#include "tests/ui/ui_test_support.h"
#include "ui/attention_panel.h"
#include "ui/batch_dialog.h"
#include "ui/document_view.h"
#include "ui/main_window.h"
#include "ui/pdf_page_canvas.h"
#include "ui/pdf_pages_view.h"
#include "ui/run_queue_panel.h"
#include "ui/settings_dialog.h"
#include "ui/summary_panel.h"

namespace precis::test {
namespace {

EngineSettings lsg_settings() {
    EngineSettings s = fixture_model_settings();
    s.attention = "lsg";
    s.max_positions = 4096;
    return s;
}

class Screenshots : public ::testing::Test {
protected:
    void SetUp() override {
        out_ = qEnvironmentVariable("PRECIS_SHOTS_DIR");
        if (out_.isEmpty()) GTEST_SKIP() << "set PRECIS_SHOTS_DIR to take screenshots";
        if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
        QDir().mkpath(out_);
        QSettings q;
        q.clear();
        save_engine_settings(q, lsg_settings());
        dir_ = scratch_dir("screenshots");
        ui::MainWindowOptions o;
        o.library_path = QString::fromStdString((dir_ / "library.sqlite").string());
        window_ = std::make_unique<ui::MainWindow>(o);
        window_->resize(1400, 900);
        window_->show();
        ASSERT_TRUE(wait_until([&] { return window_->model_info().has_value() && !window_->engine()->busy(); }));
    }

    void save(QWidget* w, const QString& name) {
        QApplication::processEvents();
        ASSERT_TRUE(w->grab().save(out_ + "/" + name)) << name.toStdString();
    }

    qint64 open_sample_and_summarize() {
        const QString essay = QString::fromStdString((samples_dir() / "the-quiet-work-of-rivers.txt").string());
        window_->open_file(essay);
        EXPECT_TRUE(wait_until([&] { return window_->current_document() != 0 && !window_->engine()->busy(); }));
        const qint64 doc = window_->current_document();
        window_->summarize_current();
        EXPECT_TRUE(wait_until([&] { return !window_->library().summaries_for(doc).isEmpty() && !window_->engine()->busy(); }));
        QApplication::processEvents();
        return doc;
    }

    QString out_;
    std::filesystem::path dir_;
    std::unique_ptr<ui::MainWindow> window_;
};

TEST_F(Screenshots, MainWindowWithSummaryAndHighlights) {
    open_sample_and_summarize();
    // Show the heaviest passage, as a user clicking it in the list would.
    const auto& passages = window_->document_view()->passages();
    ASSERT_FALSE(passages.isEmpty());
    window_->document_view()->reveal(passages.first());
    save(window_.get(), "main-window.png");
    window_->resize(1024, 700);
    save(window_.get(), "main-window-1024x700.png");
}

TEST_F(Screenshots, PdfPagesWithHighlights) {
    const QString pdf = QString::fromStdString((binary_dir() / "samples" / "the-quiet-work-of-rivers.pdf").string());
    if (!QFile::exists(pdf)) GTEST_SKIP() << "build the precis_sample_pdf target first";
    window_->open_file(pdf);
    ASSERT_TRUE(wait_until([&] { return window_->current_document() != 0 && !window_->engine()->busy(); }));
    const qint64 doc = window_->current_document();
    window_->summarize_current();
    ASSERT_TRUE(wait_until([&] { return !window_->library().summaries_for(doc).isEmpty() && !window_->engine()->busy(); }));
    ui::DocumentView* view = window_->document_view();
    view->tabs()->setCurrentIndex(1);
    ASSERT_TRUE(wait_until([&] { return view->pages_view()->visible_pages_rendered(); }));
    const auto& passages = view->passages();
    ASSERT_FALSE(passages.isEmpty());
    view->reveal(passages.first());
    save(window_.get(), "main-window-pdf.png");
}

TEST_F(Screenshots, AttentionPanel) {
    open_sample_and_summarize();
    window_->attention_dock()->show();
    window_->attention_dock()->setMinimumWidth(560);
    ui::AttentionPanel* panel = window_->attention_panel();
    panel->tabs()->setCurrentIndex(0);
    save(window_.get(), "main-window-attention-pattern.png");
    save(panel, "attention-pattern-lsg-norm.png");
    panel->select_pattern(3);  // stride
    save(panel, "attention-pattern-lsg-stride.png");
    panel->select_pattern(ui::AttentionPanel::kFoveaChoice);
    save(panel, "attention-pattern-fovea.png");

    panel->tabs()->setCurrentIndex(1);
    QSignalSpy captured(window_->engine()->worker(), &EngineWorker::attention_captured);
    emit panel->capture_requested(1, 0);
    ASSERT_TRUE(wait_until([&] { return captured.count() == 1; }));
    save(panel, "attention-weights.png");
}

TEST_F(Screenshots, SettingsDialog) {
    ui::SettingsDialog dialog(window_->settings(), window_->engine(), window_.get());
    dialog.show();
    save(&dialog, "settings-dialog.png");
}

TEST_F(Screenshots, SettingsDialogGpuPrecision) {
    // Automatic device: the GPU precision can be chosen, under it what this machine has.
    EngineSettings s = window_->settings();
    s.device = "auto";
    s.dtype = "auto";
    ui::SettingsDialog dialog(s, window_->engine(), window_.get());
    dialog.show();
    save(&dialog, "settings-dialog-gpu-precision.png");
}

TEST_F(Screenshots, MainWindowOnALongCudaDeviceAt1024x700) {
    // The status bar shows the backend's device string as given; one of the longest GPU
    // names must not widen the window past a 1024-pixel screen.
    ModelInfo info = *window_->model_info();
    info.device = "cuda:0 NVIDIA GeForce RTX 4090 Laptop GPU (bf16)";
    emit window_->engine()->worker()->model_ready(info);
    window_->resize(1024, 700);
    save(window_.get(), "main-window-cuda-device-1024x700.png");
    EXPECT_LE(window_->minimumSizeHint().width(), 1024);
}

TEST_F(Screenshots, SettingsDialogImportingAModel) {
    // An LSG model with a large extra file, so the copy is still running for the picture.
    const std::filesystem::path src = padded_fixture_model("lsg-norm", dir_ / "lsg-big", uintmax_t(1) << 30);
    ui::SettingsDialog dialog(window_->settings(), window_->engine(), window_.get());
    dialog.show();
    QSignalSpy progress(window_->engine()->worker(), &EngineWorker::progress);
    dialog.start_import(QString::fromStdString(src.string()));
    ASSERT_TRUE(wait_until([&] { return progress.count() >= 8 || !dialog.importing(); }));
    save(&dialog, "settings-dialog-importing.png");
    dialog.reject();  // cancels the import
    ASSERT_TRUE(wait_until([&] { return !window_->engine()->busy(); }));
}

TEST_F(Screenshots, BatchDialogMidRun) {
    const std::filesystem::path inbox = dir_ / "inbox";
    std::filesystem::create_directories(inbox);
    const auto essay = samples_dir() / "the-quiet-work-of-rivers.txt";
    for (int i = 1; i <= 6; ++i)
        std::filesystem::copy_file(essay, inbox / ("essay-part-" + std::to_string(i) + ".txt"));
    write_text_file(inbox / "notes-empty.txt", "\n");
    write_text_file(inbox / "scan.pdf", "not really a PDF");
    ui::BatchDialog* dialog = window_->open_batch_dialog();
    dialog->set_folder(QString::fromStdString(inbox.string()));
    bool saved = false;
    int finished_files = 0;
    // Grab while the run is still going: after the fourth file is logged.
    QObject::connect(dialog->log()->model(), &QAbstractItemModel::rowsInserted, dialog, [&] {
        if (++finished_files == 4 && dialog->running()) {
            dialog->grab().save(out_ + "/batch-dialog-running.png");
            saved = true;
        }
    });
    QSignalSpy finished(dialog, &ui::BatchDialog::finished_batch);
    dialog->start();
    ASSERT_TRUE(wait_until([&] { return finished.count() == 1; }));
    EXPECT_TRUE(saved);
    save(dialog, "batch-dialog-finished.png");
}


// The window a user sees mid-run at both sizes the issue names: a zoomed PDF open, one
// summary running and two waiting in the queue panel, the progress line naming the document.
TEST_F(Screenshots, QueueAndZoomedPdfAtBothWindowSizes) {
    const QString pdf = QString::fromStdString((binary_dir() / "samples" / "the-quiet-work-of-rivers.pdf").string());
    if (!QFile::exists(pdf)) GTEST_SKIP() << "build the precis_sample_pdf target first";
    QVector<qint64> docs;
    for (const std::string name : {"alpha-notes.txt", "bravo-notes.txt"}) {
        // Different texts: the library stores the same content once.
        const auto path = write_text_file(dir_ / name, river_paragraphs() + "Notes kept in " + name + ".\n");
        window_->open_file(QString::fromStdString(path.string()));
        ASSERT_TRUE(wait_until([&] { return window_->current_document() != 0 && !window_->engine()->busy() &&
                                            !docs.contains(window_->current_document()); }));
        docs << window_->current_document();
    }
    window_->open_file(pdf);
    ASSERT_TRUE(wait_until([&] { return !docs.contains(window_->current_document()) && !window_->engine()->busy(); }));
    const qint64 pdf_doc = window_->current_document();
    for (const QSize size : {QSize(1024, 700), QSize(1600, 1000)}) {
        window_->resize(size);
        ui::DocumentView* view = window_->document_view();
        view->tabs()->setCurrentIndex(1);
        ASSERT_TRUE(wait_until([&] { return view->pages_view()->visible_pages_rendered(); }));
        view->pages_view()->canvas()->set_zoom(view->pages_view()->canvas()->zoom() * 1.6);
        // No event loop turns between these calls: the first run cannot end before the others queue.
        window_->summarize_current();
        window_->show_document(docs[0]);
        window_->summarize_current();
        window_->show_document(docs[1]);
        window_->summarize_current();
        window_->show_document(pdf_doc);
        view->tabs()->setCurrentIndex(1);
        ASSERT_EQ(window_->run_queue()->entries().size(), 3);
        ASSERT_TRUE(wait_until([&] { return view->pages_view()->visible_pages_rendered(); }));
        save(window_.get(), QString("main-window-queue-pdf-%1x%2.png").arg(size.width()).arg(size.height()));
        ASSERT_TRUE(wait_until([&] { return !window_->engine()->busy(); }, 120000));
        window_->run_queue()->clear_finished();
    }
}
}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
