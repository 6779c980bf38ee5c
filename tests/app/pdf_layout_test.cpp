// Text reconstruction from positioned PDF lines (no Poppler): header/footer detection,
// paragraph breaks from vertical gaps, font size and indentation, hyphen joining.
#include <gtest/gtest.h>

#include "app/ingest/pdf_layout.h"

using namespace precis;

namespace {

// A page builder: lines at x=72, 12 pt high, 14 pt apart unless a gap is asked for.
struct PageBuilder {
    PdfPageLines page;
    double y = 72;
    PageBuilder& line(const QString& text, double width = 400, double x = 72, double height = 12) {
        page.lines.push_back({text, QRectF(x, y, width, height)});
        y += height + 2;
        return *this;
    }
    PageBuilder& gap(double points = 14) {
        y += points;
        return *this;
    }
    PageBuilder& at(double new_y) {
        y = new_y;
        return *this;
    }
};

}  // namespace

TEST(PdfLayout, JoinWrappedLinesHandlesHyphens) {
    EXPECT_EQ(join_wrapped_lines("infor-", "mation"), "information");
    EXPECT_EQ(join_wrapped_lines("see the well-known", "result"), "see the well-known result");
    EXPECT_EQ(join_wrapped_lines("the Franco-", "German border"), "the Franco- German border");  // capital: a real hyphen
    EXPECT_EQ(join_wrapped_lines("in 1990-", "1995"), "in 1990- 1995");
    EXPECT_EQ(join_wrapped_lines(QStringLiteral("infor\u00AD"), "mation"), "information");  // soft hyphen
    EXPECT_EQ(join_wrapped_lines("a", "b"), "a b");
}

TEST(PdfLayout, GapFontSizeAndIndentStartNewParagraphs) {
    PageBuilder p;
    p.line("Introduction", 100, 72, 18);                   // heading: larger font
    p.line("Lines of the first paragraph wrap").line("onto a second line without a gap.", 200);
    p.gap();
    p.line("After a gap comes the second paragraph").line("which also wraps here.", 150);
    p.line("An indented line starts a third", 360, 100).line("paragraph in this layout.", 160);
    const PdfText out = assemble_pdf_text({p.page});
    EXPECT_EQ(out.text,
              "Introduction\n\n"
              "Lines of the first paragraph wrap onto a second line without a gap.\n\n"
              "After a gap comes the second paragraph which also wraps here.\n\n"
              "An indented line starts a third paragraph in this layout.");
}

TEST(PdfLayout, RunningHeadersWithChangingNumbersAreRemovedOnMostPages) {
    const QStringList bodies = {"Alpha opens.", "Bravo follows.", "Charlie stays.", "Delta leaves.", "Echo ends."};
    QVector<PdfPageLines> pages;
    for (int i = 1; i <= 5; ++i) {
        PageBuilder p;
        if (i != 1) p.line(QStringLiteral("Chapter 2 - Results  %1").arg(i + 10), 300).gap(20);  // not on the title page
        p.line(bodies[i - 1], 200);
        p.at(780).line(QStringLiteral("- %1 -").arg(i), 30, 290);
        pages.push_back(p.page);
    }
    const PdfText out = assemble_pdf_text(pages);
    EXPECT_EQ(out.text, bodies.join("\n\n"));
    EXPECT_EQ(out.header_footer_lines_removed, 9);
    ASSERT_EQ(out.page_offsets.size(), 5);
    for (int i = 0; i < 5; ++i) EXPECT_TRUE(out.text.mid(out.page_offsets[i]).startsWith(bodies[i])) << i;
}

TEST(PdfLayout, LinesRepeatedOnFewPagesStay) {
    QVector<PdfPageLines> pages;
    for (int i = 1; i <= 6; ++i) {
        PageBuilder p;
        p.line(i <= 2 ? QStringLiteral("Summary") : QStringLiteral("Section %1 text.").arg(QChar('A' + i)), 200);
        pages.push_back(p.page);
    }
    const PdfText out = assemble_pdf_text(pages);
    EXPECT_EQ(out.header_footer_lines_removed, 0);
    EXPECT_TRUE(out.text.startsWith("Summary\n\nSummary\n\n"));
}

TEST(PdfLayout, EmptyPagesAreListedAndGetAnOffset) {
    PageBuilder a, c;
    a.line("First.", 100);
    c.line("Third.", 100);
    const PdfText out = assemble_pdf_text({a.page, PdfPageLines{}, c.page});
    EXPECT_EQ(out.text, "First.\n\nThird.");
    EXPECT_EQ(out.pages_without_text, QVector<int>{2});
    EXPECT_EQ(out.page_offsets, (QVector<int>{0, 6, 8}));
}

TEST(PdfLayout, LigaturesAreExpanded) {
    PageBuilder p;
    p.line(QStringLiteral("an e\uFB03cient \uFB01eld"));
    EXPECT_EQ(assemble_pdf_text({p.page}).text, "an efficient field");
}
