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

TEST(PdfLayout, LineSpacingIsMeasuredByEachLinesOwnHeight) {
    // Page 11 of the shared-mime-info specification: two body lines (8.9 pt boxes, 13 pt
    // apart) on a page of smaller table rows (6.9 pt, 11.7 pt apart). Measured by the rows,
    // the 13 pt between the body lines looked like a paragraph gap.
    PdfPageLines page;
    page.lines.push_back(
        {"The mime.cache files contain the same information as the globs2, magic, subclasses, aliases",
         QRectF(119.6, 336.3, 403.3, 8.9)});
    page.lines.push_back({"and XMLnamespaces files, in a binary, mmappable format:", QRectF(119.6, 349.3, 236.1, 8.9)});
    double y = 372.0;
    for (int i = 0; i < 12; ++i, y += 11.7)
        page.lines.push_back({QStringLiteral("CARD32 OFFSET_%1").arg(i), QRectF(141.1, y, 60, 6.9)});
    y += 20;
    page.lines.push_back(
        {"Lists are sorted. The list of aliases is sorted by alias, the list of", QRectF(119.6, y, 397.6, 8.9)});
    page.lines.push_back({"literal globs is sorted by the literal.", QRectF(119.6, y + 12.9, 170, 8.9)});
    const QString text = assemble_pdf_text({page}).text;
    EXPECT_TRUE(text.startsWith("The mime.cache files contain the same information as the globs2, magic, subclasses, "
                                "aliases and XMLnamespaces files, in a binary, mmappable format:\n\n"))
        << text.toStdString();
    EXPECT_TRUE(text.endsWith("\n\nLists are sorted. The list of aliases is sorted by alias, the list of literal globs "
                              "is sorted by the literal."))
        << text.toStdString();
    EXPECT_TRUE(text.contains("CARD32 OFFSET_0 CARD32 OFFSET_1")) << text.toStdString();  // the rows stay together
}

TEST(PdfLayout, ALineThatEndsWithRoomToSpareBeforeACapitalEndsItsParagraph) {
    // libtasn1's manual: "END" closes a code example; the next line opens a paragraph (the
    // line spacing alone does not tell them apart).
    PageBuilder p;
    p.line("END", 20, 124);
    p.line("The notation to access the Group type of the Example definition above is", 417, 105);
    p.line("Example.Group (as a string). Such strings are used in the functions", 432, 90);
    p.line("described below.", 80, 90);
    EXPECT_EQ(assemble_pdf_text({p.page}).text,
              "END\n\nThe notation to access the Group type of the Example definition above is Example.Group (as a "
              "string). Such strings are used in the functions described below.");
}

TEST(PdfLayout, ShortLinesThatGoOnStayInTheirParagraph) {
    PageBuilder p;
    p.line("The list of aliases is sorted by alias, the list of", 250);  // goes on in lowercase
    p.line("literal globs is sorted by the literal, and the list of icons by the", 400);
    p.line("MIME type it names,", 100);  // a comma: the clause goes on
    p.line("Which keeps lookups quick. The header names the version of the format", 400);
    p.line("ASN1_ELEMENT_NOT_FOUND_IN_THE_STRUCTURE is returned when the name is unknown.", 400);  // had no room
    p.line("\u2022", 5);  // a bullet on a line of its own
    p.line("Applications may extend the database.", 200);
    EXPECT_EQ(assemble_pdf_text({p.page}).text,
              "The list of aliases is sorted by alias, the list of literal globs is sorted by the literal, and the "
              "list of icons by the MIME type it names, Which keeps lookups quick. The header names the version of "
              "the format ASN1_ELEMENT_NOT_FOUND_IN_THE_STRUCTURE is returned when the name is unknown. \u2022 "
              "Applications may extend the database.");
}
