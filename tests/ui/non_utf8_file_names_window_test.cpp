// A document whose file name is not UTF-8, dropped on the window from a file manager:
// it opens, the library stores its name's exact bytes, and the library list shows the
// odd byte escaped (\xe9) instead of a replacement character. A model folder so named is
// remembered in the settings and loads after a restart.
#include <QDropEvent>
#include <QMessageBox>
#include <QMimeData>
#include <QTableView>
#include <QUrl>
#include <fstream>

#include "app/file_names.h"
#include "app/library/library.h"
#include "app/worker/engine_thread.h"
#include "tests/ui/ui_test_support.h"
#include "ui/library_panel.h"
#include "ui/main_window.h"

namespace precis::test {
namespace {

TEST(NonUtf8FileNamesWindow, DroppedFileOpensIsStoredExactlyAndIsListedEscaped) {
    if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
    use_fixture_model_settings();
    const auto dir = scratch_dir("non-utf8-drop");
    ui::MainWindowOptions options;
    options.library_path = QString::fromStdString((dir / "library.sqlite").string());
    ui::MainWindow window(options);
    window.show();

    const std::string name = "caf\xE9-rivers.txt";  // Latin-1, as an old archive would name it
    std::ofstream(dir / name, std::ios::binary) << river_paragraphs();
    // File managers put the name's bytes percent-encoded in the dropped URL.
    QMimeData mime;
    mime.setUrls({QUrl::fromEncoded(QByteArray::fromStdString("file://" + dir.string() + "/caf%E9-rivers.txt"))});
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);

    ASSERT_TRUE(wait_until([&] { return window.model_info().has_value(); }));
    // Straight to the window's handler: QApplication would route a synthetic drop by the
    // cursor position to whichever child lies there.
    static_cast<QObject&>(window).event(&drop);
    const bool opened = wait_until([&] { return window.current_document() != 0 && !window.engine()->busy(); });
    QMessageBox* box = window.findChild<QMessageBox*>();
    ASSERT_TRUE(opened) << (box ? box->text().toStdString() : std::string("(no message)"));
    const auto doc = window.library().document(window.current_document());
    ASSERT_TRUE(doc.has_value());
    EXPECT_EQ(path_to_native(doc->path).toStdString(), (dir / name).string());

    window.library_panel()->refresh();
    const QAbstractItemModel* rows = window.library_panel()->table()->model();
    ASSERT_EQ(rows->rowCount(), 1);
    EXPECT_EQ(rows->index(0, 0).data().toString(), QStringLiteral("caf\\xe9-rivers"));
}

TEST(NonUtf8FileNamesWindow, ModelFolderWithANonUtf8NameIsRememberedAndLoads) {
    if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
    const auto dir = scratch_dir("non-utf8-model");
    const std::string link = (dir / "mod\xE8le").string();
    std::filesystem::create_directory_symlink(fixture_test_model().dir, link);
    {
        EngineSettings s = fixture_model_settings();
        s.model_dir = path_from_native(link);  // what the folder picker now hands the settings
        QSettings q;
        q.clear();
        save_engine_settings(q, s);
    }
    // A new window reads the settings as a restarted application would.
    ui::MainWindowOptions options;
    options.library_path = QString::fromStdString((dir / "library.sqlite").string());
    ui::MainWindow window(options);
    window.show();
    EXPECT_EQ(path_to_native(window.settings().model_dir).toStdString(), link);
    const bool loaded = wait_until([&] { return window.model_info().has_value(); });
    QMessageBox* box = window.findChild<QMessageBox*>();
    EXPECT_TRUE(loaded) << (box ? box->text().toStdString() : std::string("(no message)"));
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
