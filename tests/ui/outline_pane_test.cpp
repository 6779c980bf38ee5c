// The outline pane of a summary made section by section: the main window lists "Whole
// document" and each section (title, and pages or position), chosen by click or keys; a
// section shows its own summary under a caption and scrolls the document (the text to the
// section's start, the PDF pages to its first page); "Whole document" brings the document's
// summary back; a summary made in one pass has no pane; the window still fits 1024x700.
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSpinBox>
#include <QTabWidget>
#include <QTextBrowser>

#include "app/worker/engine_thread.h"
#include "tests/ui/outline_test_support.h"
#include "ui/document_view.h"
#include "ui/library_panel.h"
#include "ui/main_window.h"
#include "ui/outline_model.h"
#include "ui/outline_view.h"
#include "ui/pdf_page_canvas.h"
#include "ui/pdf_pages_view.h"
#include "ui/screen_fit.h"
#include "ui/summary_panel.h"

namespace precis::test {
namespace {

const QString kWhole = QStringLiteral("The whole book: a river, a mill and a town over many years.");

class OutlinePaneTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
        use_fixture_model_settings();
        QSettings().remove("window/geometry");
        dir_ = scratch_dir("outline-pane");
        ui::MainWindowOptions o;
        o.library_path = QString::fromStdString((dir_ / "library.sqlite").string());
        window_ = std::make_unique<ui::MainWindow>(o);
        window_->resize(1024 - ui::kFrameWidth, 700 - ui::kFrameHeight);
        window_->show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(window_.get()));
        ASSERT_TRUE(wait_until([&] { return window_->model_info().has_value() && !window_->engine()->busy(); }));
    }
    void TearDown() override { window_.reset(); }

    // A text book of six chapters with a summary in six sections, shown in the window.
    qint64 show_text_book() {
        const auto path = write_text_file(dir_ / "river-book.txt", chapter_book(6));
        text_doc_ = ingest_file(QString::fromStdString(path.string()));
        sections_ = chapter_sections(text_doc_.text);
        EXPECT_EQ(sections_.size(), 6);
        return show(add_sectioned_summary(window_->library(), text_doc_, sections_, kWhole));
    }
    qint64 show(qint64 doc) {
        window_->library_panel()->refresh();
        window_->show_document(doc);
        QApplication::processEvents();
        return doc;
    }

    ui::SummaryPanel* panel() const { return window_->summary_panel(); }
    ui::OutlineView* outline() const { return panel()->outline_view(); }
    ui::OutlineModel* model() const { return outline()->outline_model(); }
    QPlainTextEdit* text_view() const { return window_->document_view()->text_view(); }
    void click_row(int row) {
        const QModelIndex index = model()->index(row);
        outline()->scrollTo(index);
        QTest::mouseClick(outline()->viewport(), Qt::LeftButton, {}, outline()->visualRect(index).center());
        QApplication::processEvents();
    }
    // Whether document position `offset` is on screen in the text view.
    bool offset_in_view(int offset) const {
        QTextCursor c(text_view()->document());
        c.setPosition(offset);
        return text_view()->viewport()->rect().contains(text_view()->cursorRect(c).center());
    }

    std::filesystem::path dir_;
    std::unique_ptr<ui::MainWindow> window_;
    IngestedDocument text_doc_;
    DocumentOutline sections_;
};

TEST_F(OutlinePaneTest, ListsTheWholeDocumentThenEverySectionWithItsPosition) {
    show_text_book();
    ASSERT_TRUE(outline()->isVisible());
    ASSERT_EQ(model()->rowCount(), 7);
    EXPECT_EQ(model()->index(0).data().toString(), "Whole document");
    EXPECT_EQ(model()->index(0).data(ui::OutlineModel::LocationRole).toString(), "6 sections");
    for (int i = 0; i < 6; ++i) {
        EXPECT_EQ(model()->index(i + 1).data().toString(), sections_[i].title);
        EXPECT_TRUE(sections_[i].title.startsWith(QStringLiteral("CHAPTER %1.").arg(i + 1)));
    }
    // A text file's sections say how far into the text they start.
    EXPECT_EQ(model()->index(1).data(ui::OutlineModel::LocationRole).toString(), "0 %");
    const int share = int(qint64(sections_[3].start) * 100 / text_doc_.text.size());
    EXPECT_EQ(model()->index(4).data(ui::OutlineModel::LocationRole).toString(), QStringLiteral("%1 %").arg(share));
    EXPECT_GT(share, 40);
    // "Whole document" is chosen: the document's own summary, no caption.
    EXPECT_EQ(outline()->currentIndex().row(), 0);
    EXPECT_EQ(outline()->current_section(), -1);
    EXPECT_EQ(panel()->summary_text(), kWhole);
    EXPECT_FALSE(panel()->section_caption()->isVisible());
    EXPECT_TRUE(outline()->selectionModel()->isRowSelected(0));
    save_shot_if_asked(panel(), "outline-whole-document.png");
    // The details line says the whole document was read, in sections.
    const QString details = panel()->details()->text();
    EXPECT_TRUE(details.contains(QStringLiteral("read all %1 tokens in 6 sections").arg(text_doc_.text.size() / 4)))
        << details.toStdString();
}

TEST_F(OutlinePaneTest, ClickingASectionShowsItsSummaryAndScrollsTheTextToItsStart) {
    show_text_book();
    ASSERT_FALSE(offset_in_view(sections_[2].start)) << "the test needs chapter 3 below the first screenful";
    click_row(3);  // the third section, under "Whole document"
    EXPECT_EQ(outline()->current_section(), 2);
    EXPECT_EQ(panel()->summary_text(), sections_[2].summary);
    EXPECT_TRUE(panel()->section_caption()->isVisible());
    EXPECT_EQ(panel()->section_caption()->full_text(),
              QStringLiteral("Section 3 of 6: CHAPTER 3. THE FLOOD YEAR (at %1 %)")
                  .arg(qint64(sections_[2].start) * 100 / text_doc_.text.size()));
    EXPECT_TRUE(offset_in_view(sections_[2].start));
    // At the top of the view: the heading first, then the chapter.
    QTextCursor c(text_view()->document());
    c.setPosition(sections_[2].start);
    EXPECT_LT(text_view()->cursorRect(c).top(), text_view()->viewport()->height() / 4);

    // Scrolled away and clicked again: back at the start.
    text_view()->verticalScrollBar()->setValue(0);
    ASSERT_FALSE(offset_in_view(sections_[2].start));
    click_row(3);
    EXPECT_TRUE(offset_in_view(sections_[2].start));

    // "Whole document" brings the document's summary back.
    click_row(0);
    EXPECT_EQ(panel()->summary_text(), kWhole);
    EXPECT_FALSE(panel()->section_caption()->isVisible());
}

TEST_F(OutlinePaneTest, ArrowKeysWalkTheSections) {
    show_text_book();
    outline()->setFocus();
    ASSERT_TRUE(wait_until([&] { return outline()->hasFocus(); }, 2000));
    QTest::keyClick(outline(), Qt::Key_Down);
    EXPECT_EQ(outline()->current_section(), 0);
    EXPECT_EQ(panel()->summary_text(), sections_[0].summary);
    QTest::keyClick(outline(), Qt::Key_End);
    EXPECT_EQ(outline()->current_section(), 5);
    EXPECT_EQ(panel()->summary_text(), sections_[5].summary);
    EXPECT_TRUE(panel()->section_caption()->full_text().startsWith("Section 6 of 6: CHAPTER 6."));
    EXPECT_TRUE(offset_in_view(sections_[5].start));
    QTest::keyClick(outline(), Qt::Key_Up);
    EXPECT_EQ(outline()->current_section(), 4);
    EXPECT_TRUE(offset_in_view(sections_[4].start));
    QTest::keyClick(outline(), Qt::Key_Home);
    EXPECT_EQ(outline()->current_section(), -1);
    EXPECT_EQ(panel()->summary_text(), kWhole);
    // Tab from the document text reaches the outline before the summary text.
    text_view()->setFocus();
    QTest::keyClick(text_view(), Qt::Key_Tab);
    EXPECT_EQ(QApplication::focusWidget(), outline());
    QTest::keyClick(outline(), Qt::Key_Tab);
    EXPECT_EQ(QApplication::focusWidget(), panel()->text_view());
}

TEST_F(OutlinePaneTest, TheFocusedOutlineDrawsTheFocusFrame) {
    show_text_book();
    window_->activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(window_.get()));
    const auto border = [&] {
        QApplication::processEvents();
        const QImage image = outline()->grab().toImage();
        return image.pixelColor(0, image.height() / 2);
    };
    panel()->text_view()->setFocus();
    ASSERT_TRUE(wait_until([&] { return panel()->text_view()->hasFocus(); }, 2000));
    const QColor quiet = border();
    outline()->setFocus();
    ASSERT_TRUE(wait_until([&] { return outline()->hasFocus(); }, 2000));
    const QColor focused = border();
    EXPECT_NE(focused, quiet);
    EXPECT_EQ(focused, outline()->palette().color(QPalette::Highlight)) << focused.name().toStdString();
}

TEST_F(OutlinePaneTest, APdfSectionBringsItsFirstPageIntoView) {
    const IngestedDocument pdf = chapter_pdf(dir_ / "river-book.pdf", 12, 3);
    ASSERT_EQ(pdf.pages, 12);
    const DocumentOutline sections = chapter_sections(pdf.text, pdf.page_offsets);
    ASSERT_EQ(sections.size(), 4);
    EXPECT_EQ(sections[2].first_page, 6);
    EXPECT_EQ(sections[2].last_page, 8);
    show(add_sectioned_summary(window_->library(), pdf, sections, kWhole));
    ASSERT_EQ(model()->rowCount(), 5);
    EXPECT_EQ(model()->index(3).data(ui::OutlineModel::LocationRole).toString(), "pages 7-9");

    ui::DocumentView* document = window_->document_view();
    document->tabs()->setCurrentIndex(1);
    ui::PdfPageCanvas* pages = document->pages_view()->canvas();
    ASSERT_TRUE(wait_until([&] { return document->pages_view()->visible_pages_rendered(); }, 20000));
    ASSERT_EQ(pages->current_page(), 0);
    click_row(3);
    EXPECT_EQ(panel()->section_caption()->full_text(), "Section 3 of 4: CHAPTER 3. PAGES OF THE RIVER BOOK (pages 7-9)");
    EXPECT_EQ(panel()->summary_text(), sections[2].summary);
    EXPECT_EQ(pages->current_page(), 6);
    EXPECT_EQ(document->pages_view()->page_box()->value(), 7);

    // Chosen while the text shows: the text scrolls, and the pages open at the section.
    document->tabs()->setCurrentIndex(0);
    click_row(4);
    EXPECT_TRUE(offset_in_view(sections[3].start));
    document->tabs()->setCurrentIndex(1);
    QApplication::processEvents();
    EXPECT_EQ(pages->current_page(), 9);
}

TEST_F(OutlinePaneTest, ASummaryMadeInOnePassHasNoOutline) {
    const auto path = write_text_file(dir_ / "rivers.txt", river_paragraphs());
    const IngestedDocument doc = ingest_file(QString::fromStdString(path.string()));
    show(add_sectioned_summary(window_->library(), doc, {}, kWhole));
    EXPECT_FALSE(outline()->isVisible());
    EXPECT_EQ(model()->rowCount(), 0);
    EXPECT_FALSE(panel()->section_caption()->isVisible());
    EXPECT_EQ(panel()->summary_text(), kWhole);
    EXPECT_TRUE(panel()->details()->text().contains(QStringLiteral("read %1 of %1 tokens").arg(doc.text.size() / 4)))
        << panel()->details()->text().toStdString();

    // The same document summarized again in sections, then the older summary chosen in the
    // history: the pane comes, then goes.
    SummaryRecord sectioned = window_->library().summaries_for(window_->current_document()).first();
    sectioned.sections = chapter_sections(QStringLiteral("CHAPTER 1. ONE\n\n") + doc.text);
    ASSERT_EQ(sectioned.sections.size(), 1);
    window_->library().add_summary(sectioned);
    window_->show_document(window_->current_document());
    QApplication::processEvents();
    EXPECT_TRUE(outline()->isVisible());
    EXPECT_EQ(model()->index(0).data(ui::OutlineModel::LocationRole).toString(), "1 section");
    panel()->history()->setCurrentRow(1);
    QApplication::processEvents();
    EXPECT_FALSE(outline()->isVisible());
}

TEST_F(OutlinePaneTest, WithTheOutlineTheWindowFits1024x700AndThePanesDoNotOverlap) {
    show_text_book();
    click_row(3);
    const QSize client = ui::fit_size(QSize(5000, 5000), QRect(0, 0, 1024, 700));
    const QSize min = window_->minimumSizeHint();
    EXPECT_LE(min.width(), client.width());
    EXPECT_LE(min.height(), client.height());

    const auto in_window = [&](QWidget* w) { return QRect(w->mapTo(window_.get(), QPoint(0, 0)), w->size()); };
    for (const QSize size : {client, QSize(1600 - ui::kFrameWidth, 1000 - ui::kFrameHeight)}) {
        window_->resize(size);
        QApplication::processEvents();
        const QRect list = in_window(outline());
        const QRect caption = in_window(panel()->section_caption());
        const QRect text = in_window(panel()->text_view());
        EXPECT_FALSE(list.intersects(text)) << size.width();
        EXPECT_FALSE(list.intersects(caption)) << size.width();
        EXPECT_FALSE(caption.intersects(text)) << size.width();
        EXPECT_GE(outline()->height(), outline()->height_for_rows(3)) << size.width();
        EXPECT_GE(panel()->text_view()->height(), 80) << size.width();
        EXPECT_GE(outline()->width(), 160) << size.width();
        // The caption's lines fit, and name the section, where it is and its title's start.
        const ui::SectionCaption* c = panel()->section_caption();
        for (const QString& line : c->text().split(u'\n'))
            EXPECT_LE(c->fontMetrics().horizontalAdvance(line), c->contentsRect().width()) << line.toStdString();
        EXPECT_GE(c->height(), c->sizeHint().height());
        for (const QString part : {"Section 3 of 6", " %)", "CHAPTER 3."})
            EXPECT_TRUE(c->text().contains(part)) << c->text().toStdString();
        EXPECT_TRUE(window_->rect().contains(in_window(panel())));
    }
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
