// The Pages view renders on demand: opening a long PDF renders only the pages in view
// (and one either side), scrolling renders what comes into view, the cache of rendered
// pages stays under its byte bound, zoom / fit width / go-to-page work from the keyboard.
// Also measures opening a 500-page PDF: time to the first page and peak memory.
#include <QElapsedTimer>
#include <QFile>
#include <QPainter>
#include <QPdfWriter>
#include <QScrollBar>
#include <QSpinBox>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "tests/support/sanitizers.h"
#include "tests/ui/ui_test_support.h"
#include "ui/pdf_page_canvas.h"
#include "ui/pdf_pages_view.h"

namespace precis::test {
namespace {

using ui::PdfPageCanvas;
using ui::PdfPagesView;

QString make_pdf(const std::filesystem::path& dir, int pages) {
    std::filesystem::create_directories(dir);
    const QString path = QString::fromStdString((dir / ("pages-" + std::to_string(pages) + ".pdf")).string());
    if (QFile::exists(path)) return path;
    QPdfWriter writer(path);
    writer.setPageSize(QPageSize(QPageSize::A4));
    writer.setResolution(144);
    QPainter painter(&writer);
    painter.setFont(QFont(QStringLiteral("DejaVu Sans"), 11));
    for (int i = 0; i < pages; ++i) {
        if (i > 0) writer.newPage();
        const QRect body = painter.viewport().adjusted(120, 120, -120, -120);
        painter.drawText(body, Qt::TextWordWrap,
                         QStringLiteral("Page %1 of the long report.\n\nRivers shape their valleys slowly, grain by grain, "
                                        "season after season. Floods spread fine silt over the plain.")
                             .arg(i + 1));
    }
    return path;
}

// Peak resident memory of this process since the last reset, in MiB.
double peak_rss_mib() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
    return -1;
}
void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

class PdfPagesViewTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = scratch_dir("pdf-pages-view");
        view_ = std::make_unique<PdfPagesView>();
        view_->resize(800, 900);
        view_->show();
        view_->activateWindow();
        ASSERT_TRUE(QTest::qWaitForWindowActive(view_.get()));
    }
    PdfPageCanvas* canvas() const { return view_->canvas(); }
    std::filesystem::path dir_;
    std::unique_ptr<PdfPagesView> view_;
};

TEST_F(PdfPagesViewTest, OpeningALongPdfRendersOnlyThePagesInView) {
    view_->load(make_pdf(dir_, 200));
    ASSERT_EQ(canvas()->page_count(), 200);
    ASSERT_TRUE(wait_until([&] { return view_->visible_pages_rendered(); }, 20000));
    QTest::qWait(300);  // nothing more arrives later
    std::cout << "[ pages   ] rendered after opening 200 pages: " << view_->rendered_pages() << "\n";
    EXPECT_LE(view_->rendered_pages(), 4);
    EXPECT_EQ(view_->page_box()->value(), 1);
    EXPECT_EQ(view_->page_box()->maximum(), 200);

    // Go to page 150: only the pages around it render.
    view_->page_box()->setValue(150);
    EXPECT_EQ(canvas()->current_page(), 149);
    ASSERT_TRUE(wait_until([&] { return view_->visible_pages_rendered(); }, 20000));
    EXPECT_LE(view_->rendered_pages(), 8);

    // Scroll through the whole document: the cache stays under its bound.
    for (int page = 0; page < 200; page += 7) {
        canvas()->scroll_to_page(page);
        ASSERT_TRUE(wait_until([&] { return view_->visible_pages_rendered(); }, 20000));
        EXPECT_LE(canvas()->cached_bytes(), PdfPageCanvas::kCacheBytes);
    }
    std::cout << "[ pages   ] rendered after visiting every 7th page: " << view_->rendered_pages()
              << ", cache " << canvas()->cached_bytes() / (1 << 20) << " MiB\n";
    EXPECT_LT(view_->rendered_pages(), 200);
}

TEST_F(PdfPagesViewTest, ZoomFitWidthAndGoToPageFromTheKeyboard) {
    view_->load(make_pdf(dir_, 20));
    ASSERT_TRUE(wait_until([&] { return view_->visible_pages_rendered(); }, 20000));
    // Fit width by default: the page fills the pane's width, no horizontal scrolling.
    EXPECT_TRUE(canvas()->fitting_width());
    EXPECT_EQ(canvas()->horizontalScrollBar()->maximum(), 0);
    const double fit = canvas()->zoom();
    canvas()->setFocus();
    QTest::keyClick(canvas(), Qt::Key_Equal, Qt::ControlModifier);
    EXPECT_NEAR(canvas()->zoom(), fit * 1.25, 1e-6);
    EXPECT_FALSE(canvas()->fitting_width());
    EXPECT_GT(canvas()->horizontalScrollBar()->maximum(), 0);  // wider than the pane now
    QTest::keyClick(canvas(), Qt::Key_Minus, Qt::ControlModifier);
    QTest::keyClick(canvas(), Qt::Key_Minus, Qt::ControlModifier);
    EXPECT_NEAR(canvas()->zoom(), fit / 1.25, 1e-6);
    QTest::keyClick(canvas(), Qt::Key_0, Qt::ControlModifier);
    EXPECT_TRUE(canvas()->fitting_width());
    EXPECT_NEAR(canvas()->zoom(), fit, 1e-6);

    // Ctrl+G, a number, Enter: that page.
    QTest::keyClick(canvas(), Qt::Key_G, Qt::ControlModifier);
    ASSERT_TRUE(view_->page_box()->hasFocus());
    QTest::keyClicks(view_->page_box(), "12");
    QTest::keyClick(view_->page_box(), Qt::Key_Return);
    EXPECT_EQ(canvas()->current_page(), 11);
    ASSERT_TRUE(wait_until([&] { return view_->visible_pages_rendered(); }, 20000));
    view_->resize(1024, 700);
    view_->canvas()->set_zoom(fit * 1.6);
    ASSERT_TRUE(wait_until([&] { return view_->visible_pages_rendered(); }, 20000));
    save_shot_if_asked(view_.get(), "pdf-zoomed.png");
}

TEST_F(PdfPagesViewTest, MeasureOpeningA500PagePdf) {
    const QString pdf = make_pdf(dir_, 500);
    QApplication::processEvents();
    reset_peak_rss();
    const double before = peak_rss_mib();
    QElapsedTimer timer;
    timer.start();
    view_->load(pdf);
    const qint64 load_ms = timer.elapsed();
    ASSERT_TRUE(wait_until([&] { return view_->rendered_pages() >= 1; }, 20000));
    const qint64 first_page_ms = timer.elapsed();
    ASSERT_TRUE(wait_until([&] { return view_->visible_pages_rendered(); }, 20000));
    const qint64 view_ms = timer.elapsed();
    // Scroll to the end and back, as a reader skimming would.
    for (int page = 0; page < 500; page += 25) {
        canvas()->scroll_to_page(page);
        ASSERT_TRUE(wait_until([&] { return view_->visible_pages_rendered(); }, 20000));
    }
    const double peak = peak_rss_mib();
    std::printf("[ measure ] 500-page PDF: load() %lld ms, first page %lld ms, view filled %lld ms; "
                "peak RSS %.0f MiB (%.0f MiB before opening); %d pages rendered after skimming 20 places\n",
                (long long)load_ms, (long long)first_page_ms, (long long)view_ms, peak, before, view_->rendered_pages());
    EXPECT_LT(first_page_ms, 2000);
    if (!kBuiltWithAddressSanitizer) EXPECT_LT(peak, 300);  // see tests/support/sanitizers.h
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
