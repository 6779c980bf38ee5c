// Hard-wrapped plain text is shown with its paragraphs' line breaks joined (so a narrow view
// does not show a long line and a stub over and over), and every break that means something
// is kept.
#include <gtest/gtest.h>

#include <QStringList>

#include "app/text/hard_wraps.h"

namespace precis::text {
namespace {

// Prose wrapped at 70 columns, as Project Gutenberg wraps it.
QString wrapped_prose() {
    return QStringLiteral(
        "It has been the aim of the editor in preparing this little book to get\n"
        "together sufficient material to afford a student in one of our high\n"
        "schools or colleges adequate and typical specimens of the vigorous and\n"
        "versatile genius of Alexander Pope.\n"
        "\n"
        "The first edition of 'The Rape of the Lock' has been given as an\n"
        "appendix in order that the student may have the opportunity of comparing\n"
        "the two forms of this poem, and of realizing the admirable art with\n"
        "which Pope blended old and new in the version that is now the only one\n"
        "known to the average reader.\n"
        "\n");
}

QString verse() {
    return QStringLiteral(
        "What dire offence from amorous causes springs,\n"
        "What mighty contests rise from trivial things,\n"
        "I sing--This verse to Caryl, Muse! is due:\n"
        "This, even Belinda may vouchsafe to view:\n"
        "\n");
}

TEST(HardWraps, ProseWrappedAtSeventyColumnsIsJoinedIntoParagraphs) {
    const QString text = wrapped_prose() + wrapped_prose();
    EXPECT_GE(hard_wrap_width(text), 68);
    EXPECT_LE(hard_wrap_width(text), 74);
    const QString joined = join_hard_wrapped_lines(text);
    ASSERT_EQ(joined.size(), text.size());  // offsets into the text hold in the view
    const QStringList paragraphs = joined.split(QStringLiteral("\n\n"), Qt::SkipEmptyParts);
    ASSERT_EQ(paragraphs.size(), 4);
    for (const QString& p : paragraphs) EXPECT_FALSE(p.trimmed().contains('\n')) << p.toStdString();
    EXPECT_TRUE(joined.startsWith(QStringLiteral("It has been the aim of the editor in preparing this little book to get together")));
}

TEST(HardWraps, VerseAndListsInWrappedProseKeepTheirLines) {
    const QString list = QStringLiteral(
        "The main features of the edition, listed here for the reader's use, are\n"
        "these, each of them explained in the notes at the end of the volume:\n"
        "1. The text of the Globe Edition prepared by Professor A. W. Ward, with\n"
        "the spelling of the time kept throughout.\n"
        "2. Notes on every page.\n"
        "\n");
    const QString text = wrapped_prose() + verse() + list + wrapped_prose();
    const QString joined = join_hard_wrapped_lines(text);
    ASSERT_EQ(joined.size(), text.size());
    EXPECT_TRUE(joined.contains(verse())) << "verse lines stay lines";
    EXPECT_TRUE(joined.contains(QStringLiteral("are these, each of them explained in the notes at the end of the volume:\n1. The text")));
    EXPECT_TRUE(joined.contains(QStringLiteral("Ward, with the spelling of the time kept throughout.\n2. Notes")));
}

TEST(HardWraps, TextThatIsNotWrappedAtOneWidthIsLeftAlone) {
    // A paragraph per line (a word processor's export), verse alone, and a short note.
    QString long_lines;
    for (int i = 0; i < 10; ++i)
        long_lines += QStringLiteral("This paragraph is a single line, as word processors save them, and it goes on "
                                     "well past any margin a person would wrap at by hand: a view wraps it where its "
                                     "own width ends, and a break at its end is the paragraph's end.\n");
    EXPECT_EQ(hard_wrap_width(long_lines), 0);
    EXPECT_EQ(join_hard_wrapped_lines(long_lines), long_lines);
    const QString poem = verse() + verse() + verse();
    EXPECT_EQ(join_hard_wrapped_lines(poem), poem);
    EXPECT_EQ(join_hard_wrapped_lines(QStringLiteral("A short note.\nSigned, me.\n")), QStringLiteral("A short note.\nSigned, me.\n"));
}

TEST(HardWraps, WindowsLineEndingsAreJoinedWithoutChangingTheLength) {
    QString text = wrapped_prose() + wrapped_prose();
    text.replace(QStringLiteral("\n"), QStringLiteral("\r\n"));
    const QString joined = join_hard_wrapped_lines(text);
    ASSERT_EQ(joined.size(), text.size());
    EXPECT_TRUE(joined.startsWith(QStringLiteral("It has been the aim of the editor in preparing this little book to get  together")));
    EXPECT_TRUE(joined.contains(QStringLiteral("Pope.\r\n\r\nThe first")));
}

}  // namespace
}  // namespace precis::text
