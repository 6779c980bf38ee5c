// File > Open's chooser (Qt's own, as on a bare X server): the detail view, sized for the
// screen, with every column whole where there is room, and documents only unless asked.
#include <QFileDialog>
#include <QHeaderView>
#include <QTreeView>

#include "tests/ui/ui_test_support.h"
#include "ui/open_documents_dialog.h"
#include "ui/screen_fit.h"

namespace precis::test {
namespace {

TEST(OpenDocumentsDialog, OpensInTheDetailViewWithNamesAndColumnsWhole) {
    const auto dir = scratch_dir("open-documents-dialog");
    write_text_file(dir / "a-report-with-a-long-descriptive-file-name-2026-annual.txt", "Some text.");
    write_text_file(dir / "notes.md", "# Notes");
    write_text_file(dir / "ignored.bin", "not a document");
    const auto dialog = ui::make_open_documents_dialog(nullptr, QString::fromStdString(dir.string()));
    EXPECT_EQ(dialog->fileMode(), QFileDialog::ExistingFiles);
    EXPECT_EQ(dialog->viewMode(), QFileDialog::Detail);
    EXPECT_TRUE(dialog->nameFilters().first().contains("*.pdf"));
    dialog->show();
    auto* details = dialog->findChild<QTreeView*>(QStringLiteral("treeView"));
    ASSERT_NE(details, nullptr) << "Qt's own dialog (the offscreen platform has no native one)";
    ASSERT_TRUE(wait_until([&] { return details->model()->rowCount(details->rootIndex()) == 2; }, 10000))
        << "the two documents, not the .bin file";
    // As wide as the screen allows, up to 960 pixels (Qt's default left the names cut); on a
    // screen with that room (this offscreen one is 800 pixels wide) every column is whole.
    EXPECT_EQ(dialog->width(), ui::fit_size(QSize(960, 600), ui::available_screen(dialog.get())).width());
    dialog->resize(960, 600);
    QApplication::processEvents();
    const QAbstractItemView* view = details;
    for (int c = 0; c < details->header()->count(); ++c) {
        if (details->isColumnHidden(c)) continue;
        EXPECT_GE(details->columnWidth(c), view->sizeHintForColumn(c)) << "column " << c << " is cut";
    }
    save_shot_if_asked(dialog.get(), "open-documents.png");
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
