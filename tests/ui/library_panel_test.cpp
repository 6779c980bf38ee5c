// The library panel: a search shows, under each hit's title, a snippet of the match with
// the matched words in bold (as `precis library search` prints it); files batch jobs
// could not summarize are listed, with their reasons, behind a "Failed files" toggle.
#include <QComboBox>
#include <QCryptographicHash>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QToolButton>

#include "app/ingest/ingest.h"
#include "app/library/library.h"
#include "tests/ui/ui_test_support.h"
#include "ui/failed_files_view.h"
#include "ui/library_model.h"
#include "ui/library_panel.h"

namespace precis::test {
namespace {

// PRECIS_SHOTS_DIR set: saves the widget there for review (tests/ui/screenshots_test.cpp).
IngestedDocument make_doc(const QString& title, const QString& text) {
    IngestedDocument d;
    d.path = QStringLiteral("/docs/%1.txt").arg(title);
    d.title = title;
    d.text = text;
    d.encoding = QStringLiteral("UTF-8");
    d.content_hash = QCryptographicHash::hash(text.toUtf8(), QCryptographicHash::Sha256).toHex();
    return d;
}

class LibraryPanelTest : public ::testing::Test {
protected:
    void SetUp() override {
        library_ = std::make_unique<Library>(QString::fromStdString((scratch_dir("library-panel") / "lib.sqlite").string()));
    }
    std::unique_ptr<Library> library_;
};

TEST_F(LibraryPanelTest, SearchShowsASnippetOfTheMatchUnderEachHit) {
    const qint64 rivers = library_->add_or_get_document(make_doc("Rivers", QString::fromStdString(river_paragraphs())));
    library_->add_or_get_document(make_doc("Bread", "Flour, water, salt and time make bread. Knead until smooth."));
    ui::LibraryPanel panel(*library_);
    panel.resize(420, 360);
    panel.show();
    const int plain_height = panel.table()->rowHeight(0);

    panel.search_box()->setText("silt");
    ASSERT_TRUE(wait_until([&] { return panel.table()->model()->rowCount() == 1; }, 5000));
    const QModelIndex hit = panel.table()->model()->index(0, ui::LibraryModel::TitleColumn);
    EXPECT_EQ(hit.data(ui::LibraryModel::DocumentIdRole).toLongLong(), rivers);
    const QString snippet = hit.data(ui::LibraryModel::SnippetRole).toString();
    EXPECT_TRUE(snippet.contains("<b>silt</b>")) << snippet.toStdString();
    // The row grows a second line for the snippet; other columns carry none.
    EXPECT_GT(panel.table()->rowHeight(0), plain_height);
    EXPECT_TRUE(panel.table()->model()->index(0, ui::LibraryModel::PagesColumn).data(ui::LibraryModel::SnippetRole)
                    .toString()
                    .isEmpty());
    save_shot_if_asked(&panel, "library-search-snippet.png");

    panel.search_box()->clear();
    ASSERT_TRUE(wait_until([&] { return panel.table()->model()->rowCount() == 2; }, 5000));
    EXPECT_TRUE(panel.table()->model()->index(0, 0).data(ui::LibraryModel::SnippetRole).toString().isEmpty());
    EXPECT_EQ(panel.table()->rowHeight(0), plain_height);
}

TEST_F(LibraryPanelTest, FailedBatchFilesAreListedWithTheirReasons) {
    ui::LibraryPanel panel(*library_);
    panel.show();
    EXPECT_FALSE(panel.failed_toggle()->isVisible());  // nothing failed: no toggle

    const BatchJobStart job = library_->start_or_resume_job("/inbox", {"/inbox/a.txt", "/inbox/b.pdf", "/inbox/c.txt"});
    library_->mark_item_failed(job.job_id, "/inbox/a.txt", "File \"/inbox/a.txt\" is empty.");
    library_->mark_item_failed(job.job_id, "/inbox/b.pdf", "\"/inbox/b.pdf\" is not a PDF.");
    panel.refresh();
    ASSERT_TRUE(panel.failed_toggle()->isVisible());
    EXPECT_EQ(panel.failed_toggle()->text(), "Failed files (2)");
    EXPECT_FALSE(panel.failed_files()->isVisible());

    panel.failed_toggle()->click();
    EXPECT_TRUE(panel.failed_files()->isVisible());
    EXPECT_FALSE(panel.table()->isVisible());
    ASSERT_EQ(panel.failed_files()->count(), 2);
    QStringList texts;
    for (int i = 0; i < 2; ++i) {
        texts << panel.failed_files()->item(i)->text();
        EXPECT_TRUE(panel.failed_files()->item(i)->toolTip().contains("Retry files that failed before"));
        EXPECT_TRUE(panel.failed_files()->item(i)->toolTip().contains("/inbox"));
    }
    EXPECT_TRUE(texts.join('\n').contains("a.txt — File \"/inbox/a.txt\" is empty.")) << texts.join('\n').toStdString();
    EXPECT_TRUE(texts.join('\n').contains("b.pdf — \"/inbox/b.pdf\" is not a PDF."));
    EXPECT_EQ(panel.count_label()->text(), "2 file(s) batch runs could not summarize");
    panel.resize(420, 300);
    save_shot_if_asked(&panel, "library-failed-files.png");

    panel.failed_toggle()->click();
    EXPECT_TRUE(panel.table()->isVisible());
    EXPECT_EQ(panel.count_label()->text(), "0 document(s)");
}

// Issue 31, item 14: the label filter offered every label any classifier had scored, then
// listed nothing and said nothing. It offers the labels documents have now (their newest
// classification predicted them), with counts; a filter that leaves nothing says so, with a
// way back to every document.
TEST_F(LibraryPanelTest, LabelFilterOffersOnlyLabelsDocumentsHaveAndSaysWhenNothingMatches) {
    const qint64 rivers = library_->add_or_get_document(make_doc("Rivers", QString::fromStdString(river_paragraphs())));
    const qint64 bread = library_->add_or_get_document(make_doc("Bread", "Flour, water, salt and time make bread."));
    const auto label = [](qint64 doc, const QString& l, double score, bool predicted, const QString& when) {
        ClassificationRecord r;
        r.document_id = doc;
        r.model_name = "nli";
        r.label = l;
        r.score = score;
        r.parameters.insert("predicted", predicted);
        r.created_at = QDateTime::fromString(when, Qt::ISODate);
        return r;
    };
    // Rivers: "geography" given, "cooking" only scored. Bread: first "geography", then
    // re-classified as "cooking" (the newest run is what counts).
    library_->add_classifications({label(rivers, "geography", 0.9, true, "2026-01-01T10:00:00Z"),
                                   label(rivers, "cooking", 0.1, false, "2026-01-01T10:00:00Z")});
    library_->add_classifications({label(bread, "geography", 0.6, true, "2026-01-01T10:00:00Z")});
    QTest::qWait(20);  // the library stamps each run itself (milliseconds): the next one is newer
    library_->add_classifications({label(bread, "cooking", 0.8, true, "2026-01-02T10:00:00Z"),
                                   label(bread, "legal", 0.05, false, "2026-01-02T10:00:00Z")});
    ASSERT_TRUE(library_->labels().contains("legal"));  // scored once, given to nobody

    ui::LibraryPanel panel(*library_);
    panel.resize(420, 360);
    panel.show();
    QComboBox* filter = panel.label_filter();
    ASSERT_TRUE(filter->isVisible());
    QStringList offered;
    for (int i = 1; i < filter->count(); ++i) offered << filter->itemText(i);
    EXPECT_EQ(offered, (QStringList{"cooking (1)", "geography (1)"}));
    EXPECT_LT(filter->findData("legal"), 0);
    EXPECT_FALSE(panel.empty_message()->isVisible());

    filter->setCurrentIndex(filter->findData("cooking"));
    EXPECT_EQ(panel.table()->model()->rowCount(), 1);
    EXPECT_FALSE(panel.empty_message()->isVisible());

    // A search that the label leaves nothing of: a message instead of an empty list.
    panel.search_box()->setText("silt");
    ASSERT_TRUE(wait_until([&] { return panel.empty_message()->isVisible(); }, 5000));
    EXPECT_EQ(panel.table()->model()->rowCount(), 0);
    EXPECT_FALSE(panel.table()->isVisible());
    EXPECT_TRUE(panel.empty_message()->text().contains("No document labelled “cooking” matches “silt”."))
        << panel.empty_message()->text().toStdString();
    EXPECT_EQ(panel.count_label()->text(), "0 of 2 documents");
    save_shot_if_asked(&panel, "library-label-filter-empty.png");

    // Its link shows every document again.
    emit panel.empty_message()->linkActivated("clear");
    EXPECT_FALSE(panel.empty_message()->isVisible());
    EXPECT_TRUE(panel.table()->isVisible());
    EXPECT_EQ(panel.table()->model()->rowCount(), 2);
    EXPECT_TRUE(panel.search_box()->text().isEmpty());
    EXPECT_EQ(filter->currentIndex(), 0);
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
