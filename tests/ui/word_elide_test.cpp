// Status-bar messages are cut between words, never inside one ("The classifier read t…").
#include <QFont>
#include <QFontMetrics>

#include "tests/ui/ui_test_support.h"
#include "ui/word_elide.h"

namespace precis::test {
namespace {

TEST(WordElide, ALongMessageIsCutAfterAWholeWord) {
    const QFontMetrics m(QApplication::font());
    const QString text = QStringLiteral("The classifier read the first 1024 tokens of report.pdf; the rest was not read");
    for (int width = m.horizontalAdvance(QStringLiteral("The classifier…")); width < m.horizontalAdvance(text);
         width += 7) {
        const QString cut = ui::elide_at_word(text, m, width);
        ASSERT_TRUE(cut.endsWith(QStringLiteral("…"))) << cut.toStdString();
        EXPECT_LE(m.horizontalAdvance(cut), width);
        const QString head = cut.chopped(1);
        // What is kept is whole words of the message, and no trailing punctuation.
        EXPECT_TRUE(text.startsWith(head)) << cut.toStdString();
        EXPECT_TRUE(text.at(head.size()) == u' ' || text.at(head.size()) == u';') << cut.toStdString();
        EXPECT_FALSE(head.endsWith(u';'));
    }
}

TEST(WordElide, TextThatFitsIsLeftWhole) {
    const QFontMetrics m(QApplication::font());
    EXPECT_EQ(ui::elide_at_word(QStringLiteral("Saved."), m, 500), QStringLiteral("Saved."));
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
