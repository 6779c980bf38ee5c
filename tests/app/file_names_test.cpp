// File names are bytes: every byte string survives the trip through a QString and back,
// valid UTF-8 stays readable text, and what is shown to people escapes the rest.
#include <gtest/gtest.h>

#include <QDir>

#include "app/file_names.h"

using namespace precis;

namespace {

std::string native(const QString& s) { return path_to_native(s).toStdString(); }

}  // namespace

TEST(FileNames, EveryInvalidByteRoundTripsExactly) {
    for (int b = 0x80; b <= 0xFF; ++b) {
        const std::string name = std::string("/tmp/a") + char(b) + "z.txt";
        EXPECT_EQ(native(path_from_native(name)), name) << "byte " << b;
    }
    for (const std::string& name : {std::string("\xC0\x80.txt"),          // overlong NUL
                                   std::string("\xED\xA0\x80.txt"),       // an encoded surrogate
                                   std::string("\xE2\x82.txt"),           // truncated sequence
                                   std::string("\xF4\x90\x80\x80.txt"),   // beyond U+10FFFF
                                   std::string("caf\xE9 \xFF\xFE.md")}) {
        EXPECT_EQ(native(path_from_native(name)), name);
    }
}

TEST(FileNames, ValidUtf8IsTextAndTwoDifferentBadBytesStayDifferent) {
    const std::string utf8 = "/docs/caf\xC3\xA9 \xF0\x9F\x93\x9A \xE6\x97\xA5.txt";
    EXPECT_EQ(path_from_native(utf8), QString::fromUtf8(utf8.c_str()));
    EXPECT_EQ(native(path_from_native(utf8)), utf8);
    EXPECT_NE(path_from_native(std::string("a\xFE")), path_from_native(std::string("a\xFF")));
}

TEST(FileNames, DisplayEscapesBadBytesAndControlCharactersOnly) {
    EXPECT_EQ(path_for_display(path_from_native(std::string("/d/caf\xE9\n.txt"))), QString("/d/caf\\xe9\\x0a.txt"));
    EXPECT_EQ(path_for_display(QString::fromUtf8("/d/caf\xC3\xA9.txt")), QString::fromUtf8("/d/caf\xC3\xA9.txt"));
    EXPECT_EQ(display_utf8(path_from_native(std::string("x\xFF"))), "x\\xff");
}

TEST(FileNames, AbsoluteCleanPathKeepsBytesAndDropsDotsAndTrailingSlashes) {
    EXPECT_EQ(native(absolute_clean_path(path_from_native(std::string("/a/./b/../c\xFF/")))), "/a/c\xFF");
    EXPECT_EQ(absolute_clean_path("rel.txt"), QDir::current().absoluteFilePath("rel.txt"));
    EXPECT_EQ(absolute_clean_path("/"), QString("/"));
}
