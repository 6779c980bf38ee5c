// Issue 31, item 10: clicking a source passage in the Pages view jumped to the top of its
// page, so at fit width (or 101 %) the sentence itself was below the view; and a sentence
// whose opening words were also the page's title was highlighted on the title. Here a real
// PDF (title at the top, the sentence low on the page) is shown in the Pages view: revealing
// the passage scrolls its own word boxes into the viewport, outlines them, and the amber
// highlight is drawn on the sentence's lines, not on the title's.
#include <QPainter>
#include <QPdfWriter>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTabWidget>

#include "app/library/library.h"
#include "tests/ui/ui_test_support.h"
#include "ui/document_view.h"
#include "ui/pdf_page_canvas.h"
#include "ui/pdf_pages_view.h"

namespace precis::test {
namespace {

using ui::PdfPageCanvas;
using ui::PdfPagesView;

const QString kTitle = QStringLiteral("Rivers shape their valleys");
const QString kSentence = QStringLiteral("Rivers shape their valleys slowly, grain by grain, season after season.");

QStringList filler_lines() {
    QStringList lines;
    for (int i = 1; i <= 34; ++i) lines << QStringLiteral("Filler line %1 keeps this page long and plain.").arg(i);
    return lines;
}

// One A4 page: the title, many plain lines, then the sentence near the foot of the page.
QString make_pdf(const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    const QString path = QString::fromStdString((dir / "title-and-sentence.pdf").string());
    QPdfWriter writer(path);
    writer.setPageSize(QPageSize(QPageSize::A4));
    writer.setResolution(72);
    QPainter painter(&writer);
    painter.setFont(QFont(QStringLiteral("DejaVu Sans"), 16, QFont::Bold));
    painter.drawText(QPointF(60, 70), kTitle);
    painter.setFont(QFont(QStringLiteral("DejaVu Sans"), 11));
    double y = 110;
    for (const QString& line : filler_lines()) {
        painter.drawText(QPointF(60, y), line);
        y += 18;
    }
    painter.drawText(QPointF(60, y + 10), kSentence);
    return path;
}

// What ingestion makes of the page: the title, the lines, the sentence.
QString page_text() { return kTitle + "\n\n" + filler_lines().join(' ') + "\n\n" + kSentence + "\n"; }

SourcePassage sentence_passage() {
    const QString text = page_text();
    SourcePassage p;
    p.begin = int(text.lastIndexOf(kSentence));
    p.end = p.begin + int(kSentence.size());
    p.weight = 0.4;
    p.page = 0;
    return p;
}

// Pixels of `image` inside `box` that the amber highlight tinted (white paper multiplied
// by amber: red high, blue clearly lower).
int amber_pixels(const QImage& image, const QRect& box) {
    int n = 0;
    for (int y = std::max(0, box.top()); y <= std::min(image.height() - 1, box.bottom()); ++y)
        for (int x = std::max(0, box.left()); x <= std::min(image.width() - 1, box.right()); ++x) {
            const QColor c = image.pixelColor(x, y);
            if (c.red() > 200 && c.blue() < c.red() - 60) ++n;
        }
    return n;
}

class PdfPassageReveal : public ::testing::Test {
protected:
    void SetUp() override {
        view_ = std::make_unique<PdfPagesView>();
        view_->resize(760, 460);
        view_->show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(view_.get()));
        pdf_ = make_pdf(scratch_dir("pdf-passage-reveal"));
        view_->load(pdf_);
        ASSERT_EQ(canvas()->page_count(), 1);
        view_->set_highlights({sentence_passage()}, page_text());
        ASSERT_TRUE(wait_until([&] { return view_->visible_pages_rendered(); }, 20000));
    }
    PdfPageCanvas* canvas() const { return view_->canvas(); }

    // Every box of the passage lies inside the viewport.
    bool boxes_in_view() const {
        const QVector<QRect> boxes = canvas()->passage_boxes_in_view(0);
        if (boxes.isEmpty()) return false;
        for (const QRect& b : boxes)
            if (!canvas()->viewport()->rect().contains(b)) return false;
        return true;
    }

    std::unique_ptr<PdfPagesView> view_;
    QString pdf_;
};

TEST_F(PdfPassageReveal, ClickingAPassageAtFitWidthScrollsItsSentenceIntoView) {
    ASSERT_TRUE(canvas()->fitting_width());
    ASSERT_FALSE(boxes_in_view()) << "the test needs the sentence below the first screenful";
    view_->reveal_passage(sentence_passage());
    EXPECT_GT(canvas()->verticalScrollBar()->value(), 0) << "not the top of the page";
    EXPECT_TRUE(boxes_in_view());
    EXPECT_EQ(canvas()->revealed_passage(), 0);
}

TEST_F(PdfPassageReveal, ClickingAPassageAt101PercentScrollsItsSentenceIntoView) {
    canvas()->set_zoom(1.01);
    canvas()->verticalScrollBar()->setValue(0);
    ASSERT_FALSE(boxes_in_view());
    view_->reveal_passage(sentence_passage());
    EXPECT_TRUE(boxes_in_view());
}

TEST_F(PdfPassageReveal, ASentenceThatAlsoMatchesTheTitleIsHighlightedAtItsOwnBoxes) {
    view_->reveal_passage(sentence_passage());
    ASSERT_TRUE(wait_until([&] { return view_->visible_pages_rendered(); }, 20000));
    const QVector<QRect> boxes = canvas()->passage_boxes_in_view(0);
    ASSERT_EQ(boxes.size(), 1);  // one printed line: the sentence's
    QImage shot = canvas()->viewport()->grab().toImage();
    EXPECT_GT(amber_pixels(shot, boxes.first()), boxes.first().width() * boxes.first().height() / 4);

    // The title, back at the top of the page, stays plain.
    canvas()->verticalScrollBar()->setValue(0);
    ASSERT_TRUE(wait_until([&] { return view_->visible_pages_rendered(); }, 20000));
    shot = canvas()->viewport()->grab().toImage();
    const int sentence_top = canvas()->passage_boxes_in_view(0).first().top();
    ASSERT_GT(sentence_top, 120) << "the sentence must lie below the title";
    const QRect title_band(0, 0, shot.width(), 110);
    EXPECT_EQ(amber_pixels(shot, title_band), 0);
}

TEST_F(PdfPassageReveal, APassageChosenOnTheTextTabIsShownWhenThePagesOpen) {
    view_.reset();
    ui::DocumentView document;
    document.resize(760, 520);
    document.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&document));
    DocumentRecord d;
    d.id = 1;
    d.path = pdf_;
    d.title = kTitle;
    d.text = page_text();
    d.pages = 1;
    document.show_document(d);
    document.set_passages({sentence_passage()});
    document.reveal(sentence_passage());  // the Text tab is showing
    document.tabs()->setCurrentIndex(1);
    PdfPageCanvas* pages = document.pages_view()->canvas();
    ASSERT_TRUE(wait_until([&] { return document.pages_view()->visible_pages_rendered(); }, 20000));
    const QVector<QRect> boxes = pages->passage_boxes_in_view(0);
    ASSERT_FALSE(boxes.isEmpty());
    EXPECT_TRUE(pages->viewport()->rect().contains(boxes.first()));
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
