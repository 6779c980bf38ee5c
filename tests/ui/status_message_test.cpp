// Status-bar messages are readable (issue 42: "Summa…", "Exported the summary to…", "The
// model read the first 4096…" even 1600 pixels wide). The message has a label of its own that
// takes the width the run status and model label leave and fits the text to it again whenever
// that width changes; too long for one line, it wraps to a second, a path in it gives up its
// middle before the sentence gives up its end, and the whole text is the tooltip.
// With PRECIS_SHOTS_DIR set, the window is saved at 1024x700 and 1600x1000 for review.
#include <QDir>
#include <QFontMetrics>
#include <QStatusBar>

#include "app/worker/engine_thread.h"
#include "tests/ui/ui_test_support.h"
#include "ui/main_window.h"
#include "ui/run_status.h"
#include "ui/status_message.h"
#include "ui/summary_panel.h"

namespace precis::test {
namespace {

const QString kTruncated = QStringLiteral(
    "The model read the first 4096 of 101588 tokens; the rest was not summarized (Settings: Long documents).");
const QString kExported = QStringLiteral(
    "Exported the summary to /home/someone/Documents/Reports/2024/quarterly-reviews/"
    "the-quiet-work-of-rivers-summary-with-a-long-name.md.");

int widest_line(const QString& text, const QFontMetrics& m) {
    int widest = 0;
    for (const QString& line : text.split(u'\n')) widest = std::max(widest, m.horizontalAdvance(line));
    return widest;
}

TEST(FitStatusText, TextThatFitsIsLeftWhole) {
    const QFontMetrics m(QApplication::font());
    EXPECT_EQ(ui::fit_status_text(kTruncated, m, m.horizontalAdvance(kTruncated)), kTruncated);
}

TEST(FitStatusText, ALongSentenceWrapsToTwoLinesBetweenWords) {
    const QFontMetrics m(QApplication::font());
    const int width = m.horizontalAdvance(kTruncated) * 2 / 3;
    const QString fitted = ui::fit_status_text(kTruncated, m, width);
    ASSERT_EQ(fitted.count(u'\n'), 1) << fitted.toStdString();
    EXPECT_EQ(QString(fitted).replace(u'\n', u' '), kTruncated);  // nothing cut
    EXPECT_LE(widest_line(fitted, m), width);
}

TEST(FitStatusText, APathGivesUpItsMiddleBeforeTheSentenceItsEnd) {
    const QFontMetrics m(QApplication::font());
    const int width = m.horizontalAdvance(kExported) / 3;
    const QString fitted = ui::fit_status_text(kExported, m, width);
    EXPECT_LE(fitted.count(u'\n'), 1) << fitted.toStdString();
    EXPECT_LE(widest_line(fitted, m), width) << fitted.toStdString();
    EXPECT_TRUE(QString(fitted).replace(u'\n', u' ').startsWith(QStringLiteral("Exported the summary to /home")))
        << fitted.toStdString();
    EXPECT_TRUE(fitted.endsWith(QStringLiteral("long-name.md."))) << fitted.toStdString();  // the file's name stays
    EXPECT_TRUE(fitted.contains(QStringLiteral("…"))) << fitted.toStdString();
}

TEST(FitStatusText, TooLongForTwoLinesTheLastLineEndsAfterAWholeWord) {
    const QFontMetrics m(QApplication::font());
    const int width = m.horizontalAdvance(kTruncated) / 4;
    const QString fitted = ui::fit_status_text(kTruncated, m, width);
    ASSERT_EQ(fitted.count(u'\n'), 1) << fitted.toStdString();
    EXPECT_LE(widest_line(fitted, m), width) << fitted.toStdString();
    ASSERT_TRUE(fitted.endsWith(QStringLiteral("…"))) << fitted.toStdString();
    const QString head = QString(fitted.chopped(1)).replace(u'\n', u' ');
    EXPECT_TRUE(kTruncated.startsWith(head)) << fitted.toStdString();
    EXPECT_TRUE(kTruncated.at(head.size()) == u' ' || kTruncated.at(head.size()) == u';') << fitted.toStdString();
}

class StatusMessageWindow : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
        use_fixture_model_settings();
        dir_ = scratch_dir("status-message");
        ui::MainWindowOptions o;
        o.library_path = QString::fromStdString((dir_ / "library.sqlite").string());
        window_ = std::make_unique<ui::MainWindow>(o);
        window_->show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(window_.get()));
        ASSERT_TRUE(wait_until([&] { return window_->model_info().has_value() && !window_->engine()->busy(); }));
    }
    void TearDown() override { window_.reset(); }

    void resize_to(int width, int height) {
        window_->resize(width, height);
        settle();
    }
    void settle() {
        for (int i = 0; i < 5; ++i) QApplication::processEvents();
    }
    // What the SummaryPanel's Copy / Export / Delete say goes through the window's show_status.
    void show_message(const QString& message) {
        emit window_->summary_panel()->status_message(message);
        settle();
    }
    void save(const QString& name) {
        const QString out = qEnvironmentVariable("PRECIS_SHOTS_DIR");
        if (out.isEmpty()) return;
        QDir().mkpath(out);
        settle();
        window_->grab().save(out + u'/' + name);
    }

    std::filesystem::path dir_;
    std::unique_ptr<ui::MainWindow> window_;
};

TEST_F(StatusMessageWindow, TheLongDocumentNoteIsShownWholeAt1600) {
    resize_to(1600, 1000);
    show_message(kTruncated);
    ui::StatusMessage* label = window_->status_message();
    EXPECT_EQ(window_->statusBar()->currentMessage(), kTruncated);
    EXPECT_EQ(label->text(), kTruncated);  // one line, nothing cut
    EXPECT_TRUE(label->isVisible());
    EXPECT_GE(label->contentsRect().width(), label->fontMetrics().horizontalAdvance(kTruncated));
    EXPECT_EQ(label->toolTip(), kTruncated);
    save(QStringLiteral("status-long-document-1600x1000.png"));
}

TEST_F(StatusMessageWindow, At1024TheNoteWrapsAndTheTooltipHoldsItWhole) {
    resize_to(1024, 700);
    show_message(kTruncated);
    ui::StatusMessage* label = window_->status_message();
    EXPECT_EQ(label->toolTip(), kTruncated);
    EXPECT_TRUE(label->shown_whole()) << label->text().toStdString();  // on two lines at most, not cut
    EXPECT_LE(label->text().count(u'\n'), 1);
    EXPECT_LE(widest_line(label->text(), label->fontMetrics()), label->contentsRect().width());
    // The bar grew for the second line: both are inside the label.
    EXPECT_GE(label->height(), (label->text().count(u'\n') + 1) * label->fontMetrics().lineSpacing());
    save(QStringLiteral("status-long-document-1024x700.png"));
}

TEST_F(StatusMessageWindow, AnExportPathKeepsItsFileNameAndTheMessageItsEnd) {
    for (const QSize size : {QSize(1024, 700), QSize(1600, 1000)}) {
        resize_to(size.width(), size.height());
        show_message(kExported);
        ui::StatusMessage* label = window_->status_message();
        EXPECT_EQ(label->toolTip(), kExported);
        EXPECT_TRUE(label->text().endsWith(QStringLiteral("long-name.md."))) << label->text().toStdString();
        EXPECT_LE(widest_line(label->text(), label->fontMetrics()), label->contentsRect().width());
        if (size.width() == 1600) EXPECT_EQ(label->text(), kExported);
        save(QStringLiteral("status-export-%1x%2.png").arg(size.width()).arg(size.height()));
    }
}

// The cause of "Summa…": a message given while a run's stage, progress bar and Cancel took the
// width was cut to what was left then, and stayed cut after the run ended and gave it back.
TEST_F(StatusMessageWindow, AMessageGivenDuringARunGetsTheWidthBackWhenTheRunEnds) {
    resize_to(1600, 1000);
    ui::RunStatus* run = window_->run_status();
    EXPECT_FALSE(run->isVisible());  // idle: no empty stage label holding 260 pixels
    run->start(QStringLiteral("Summarizing a-report-with-a-rather-long-file-name-2024-quarterly-review.pdf"));
    run->set_stage(QStringLiteral("window 3 of 12: generating, 120 of 142 tokens"), 120, 142);
    settle();
    EXPECT_TRUE(run->isVisible());
    show_message(kTruncated);
    EXPECT_EQ(window_->status_message()->text(), kTruncated);  // the stage gives way at 1600
    save(QStringLiteral("status-during-run-1600x1000.png"));
    resize_to(1024, 700);  // the stage and the message share the narrow bar; neither vanishes
    EXPECT_GE(window_->status_message()->width(), ui::StatusMessage::kNarrowest);
    EXPECT_GE(run->stage_label()->width(), 140);
    EXPECT_EQ(window_->status_message()->toolTip(), kTruncated);
    save(QStringLiteral("status-during-run-1024x700.png"));
    resize_to(1600, 1000);
    run->finish();
    settle();
    ui::StatusMessage* label = window_->status_message();
    EXPECT_FALSE(run->isVisible());
    EXPECT_EQ(label->text(), kTruncated);
    save(QStringLiteral("status-after-run-1600x1000.png"));
}

TEST_F(StatusMessageWindow, TheMessageLeavesWithItsTimeout) {
    emit window_->summary_panel()->status_message(QStringLiteral("Summary copied to the clipboard."));
    settle();
    EXPECT_EQ(window_->status_message()->text(), QStringLiteral("Summary copied to the clipboard."));
    window_->statusBar()->clearMessage();  // what the timeout does
    settle();
    EXPECT_TRUE(window_->status_message()->text().isEmpty());
    EXPECT_TRUE(window_->status_message()->toolTip().isEmpty());
    EXPECT_TRUE(window_->statusBar()->toolTip().isEmpty());
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
