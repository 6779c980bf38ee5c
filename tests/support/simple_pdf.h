#pragma once
// Real PDFs written by hand (Helvetica text lines, a correct xref table), so a test can make
// PDFs without a GUI application object or a PDF library; also with an outline (bookmarks),
// which QPdfWriter cannot write.
#include <filesystem>
#include <string>
#include <vector>

namespace precis::test {

// One bookmark of a PDF's outline.
struct SimplePdfOutlineItem {
    std::string title;
    // 0-based page it points to. -1: no destination at all; a page the file does not have:
    // written as a bare page number (the form meant for other files), past the last page.
    int page = -1;
    std::vector<SimplePdfOutlineItem> children;
};

// One page; an empty line leaves a blank line (a paragraph break once read).
void write_simple_pdf(const std::filesystem::path& file, const std::vector<std::string>& lines);

// A page per entry of `pages`, and the outline when it is not empty.
void write_simple_pdf_pages(const std::filesystem::path& file, const std::vector<std::vector<std::string>>& pages,
                            const std::vector<SimplePdfOutlineItem>& outline = {});

}  // namespace precis::test
