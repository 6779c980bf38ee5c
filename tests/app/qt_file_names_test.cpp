// File names that are not UTF-8 come back exactly from what Qt's dialogs and drops hand
// the window (Qt's own decoding turned their odd bytes into U+FFFD).
#include <gtest/gtest.h>

#include <QFile>
#include <QSettings>
#include <QUrl>
#include <filesystem>
#include <fstream>

#include "app/file_names.h"
#include "app/qt_file_names.h"
#include "tests/support/fixtures.h"

using namespace precis;

namespace {

// Creates `name` (bytes) inside `dir` and returns its full path as bytes. (A scratch folder
// rather than QTemporaryDir: Qt could not delete names that are not UTF-8.)
std::string touch(const std::filesystem::path& dir, const std::string& name) {
    const std::string path = dir.string() + "/" + name;
    std::ofstream(path) << "text\n";
    return path;
}

// What QFileDialog returns for a file: Qt's lossy decoding of its bytes.
QString as_dialog_shows(const std::string& path) { return QFile::decodeName(QByteArray::fromStdString(path)); }

}  // namespace

TEST(QtFileNames, DialogChoiceOfANonUtf8NameGivesItsExactBytes) {
    const auto dir = test::scratch_dir("qt-file-names");
    const std::string latin1 = touch(dir, "caf\xE9 notes.txt");
    ASSERT_NE(as_dialog_shows(latin1), path_from_native(latin1));  // Qt did lose the byte
    EXPECT_EQ(path_to_native(path_from_dialog(as_dialog_shows(latin1))).toStdString(), latin1);
}

TEST(QtFileNames, DialogChoiceInsideANonUtf8FolderGivesItsExactBytes) {
    const auto dir = test::scratch_dir("qt-file-names");
    ASSERT_TRUE(std::filesystem::create_directory(dir.string() + "/r\xE9sum\xE9s"));
    const std::string nested = touch(dir, "r\xE9sum\xE9s/\xFF.md");
    EXPECT_EQ(path_to_native(path_from_dialog(as_dialog_shows(nested))).toStdString(), nested);
}

TEST(QtFileNames, DialogChoiceThatExistsOrIsAmbiguousIsLeftAsGiven) {
    const auto dir = test::scratch_dir("qt-file-names");
    const std::string utf8 = touch(dir, "caf\xC3\xA9.txt");
    EXPECT_EQ(path_from_dialog(as_dialog_shows(utf8)), QString::fromStdString(utf8));
    // Two names Qt shows alike: picking one of them could open the wrong document.
    touch(dir, "a\xFE.txt");
    const std::string second = touch(dir, "a\xFF.txt");
    EXPECT_EQ(path_from_dialog(as_dialog_shows(second)), as_dialog_shows(second));
    EXPECT_EQ(path_from_dialog(QStringLiteral("relative.txt")), QStringLiteral("relative.txt"));
}

TEST(QtFileNames, PathSettingKeepsANonUtf8NameThroughTheSettingsFile) {
    const auto dir = test::scratch_dir("qt-file-names");
    const std::string latin1 = dir.string() + "/mod\xE8le";
    const QString ini = QString::fromStdString(dir.string() + "/settings.ini");
    {
        QSettings q(ini, QSettings::IniFormat);
        q.setValue("model/dir", path_setting_value(path_from_native(latin1)));
    }
    QSettings q(ini, QSettings::IniFormat);
    EXPECT_EQ(path_to_native(path_from_setting(q.value("model/dir"))).toStdString(), latin1);
}

TEST(QtFileNames, PathSettingOfAUtf8NameIsPlainTextAsBefore) {
    const QString utf8 = QString::fromUtf8("/models/mod\xC3\xA8le");
    EXPECT_EQ(path_setting_value(utf8).typeId(), QMetaType::QString);
    EXPECT_EQ(path_from_setting(path_setting_value(utf8)), utf8);
    EXPECT_EQ(path_from_setting(QVariant(QStringLiteral("/models/a"))), QStringLiteral("/models/a"));  // written by hand
}

TEST(QtFileNames, DroppedUrlGivesTheFileNamesExactBytes) {
    // File managers put the name's bytes percent-encoded into the URL.
    const QUrl latin1 = QUrl::fromEncoded("file:///home/a/caf%E9%20notes.txt");
    EXPECT_EQ(path_to_native(path_from_local_url(latin1)).toStdString(), "/home/a/caf\xE9 notes.txt");
    const QUrl utf8 = QUrl::fromEncoded("file:///home/a/caf%C3%A9.txt");
    EXPECT_EQ(path_from_local_url(utf8), QString::fromUtf8("/home/a/caf\xC3\xA9.txt"));
    EXPECT_TRUE(path_from_local_url(QUrl(QStringLiteral("https://example.org/a.pdf"))).isEmpty());
}
