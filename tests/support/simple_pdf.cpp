#include "tests/support/simple_pdf.h"

#include <cstdio>
#include <fstream>

namespace precis::test {

namespace {

std::string pdf_string(const std::string& text) {
    std::string s = "(";
    for (char c : text) {
        if (c == '(' || c == ')' || c == '\\') s += '\\';
        s += c;
    }
    return s + ")";
}

std::string ref(int object) { return std::to_string(object) + " 0 R"; }

// Where the outline items of one level went: the first's and the last's object numbers, and
// how many items (all levels below included) were written.
struct Written {
    int first = 0, last = 0, count = 0;
};

// Appends `items`, siblings under the object `parent`, and their children to `objects`
// (object n is objects[n - 1]). The siblings' numbers are taken first, so each can name its
// neighbours; their children follow.
Written add_outline_items(const std::vector<SimplePdfOutlineItem>& items, int parent,
                          const std::vector<int>& page_objects, std::vector<std::string>& objects) {
    Written out;
    if (items.empty()) return out;
    const int first = int(objects.size()) + 1;
    objects.resize(objects.size() + items.size());
    for (size_t i = 0; i < items.size(); ++i) {
        const SimplePdfOutlineItem& item = items[i];
        const int self = first + int(i);
        const Written kids = add_outline_items(item.children, self, page_objects, objects);
        std::string o = "<< /Title " + pdf_string(item.title) + " /Parent " + ref(parent);
        if (i > 0) o += " /Prev " + ref(self - 1);
        if (i + 1 < items.size()) o += " /Next " + ref(self + 1);
        if (kids.count > 0)
            o += " /First " + ref(kids.first) + " /Last " + ref(kids.last) + " /Count " + std::to_string(kids.count);
        if (item.page >= 0 && size_t(item.page) < page_objects.size())
            o += " /Dest [" + ref(page_objects[size_t(item.page)]) + " /Fit]";
        else if (item.page >= 0)
            o += " /Dest [" + std::to_string(item.page) + " /Fit]";
        objects[size_t(self - 1)] = o + " >>";
        out.count += 1 + kids.count;
    }
    out.first = first;
    out.last = first + int(items.size()) - 1;
    return out;
}

}  // namespace

void write_simple_pdf(const std::filesystem::path& file, const std::vector<std::string>& lines) {
    write_simple_pdf_pages(file, {lines});
}

void write_simple_pdf_pages(const std::filesystem::path& file, const std::vector<std::vector<std::string>>& pages,
                            const std::vector<SimplePdfOutlineItem>& outline) {
    // 1 catalog, 2 page tree, 3 font, then each page and its contents, then the outline.
    std::vector<std::string> objects(3);
    std::vector<int> page_objects;
    std::string kids;
    for (const std::vector<std::string>& lines : pages) {
        std::string content = "BT /F1 11 Tf 72 720 Td 14 TL\n";
        for (const std::string& line : lines) content += pdf_string(line) + " Tj T*\n";
        content += "ET\n";
        const int page = int(objects.size()) + 1;
        objects.push_back("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
                          "/Contents " + ref(page + 1) + " >>");
        objects.push_back("<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "endstream");
        page_objects.push_back(page);
        kids += (kids.empty() ? "" : " ") + ref(page);
    }
    std::string catalog = "<< /Type /Catalog /Pages 2 0 R";
    if (!outline.empty()) {
        const int root = int(objects.size()) + 1;
        objects.emplace_back();
        const Written top = add_outline_items(outline, root, page_objects, objects);
        objects[size_t(root - 1)] = "<< /Type /Outlines /First " + ref(top.first) + " /Last " + ref(top.last) +
                                    " /Count " + std::to_string(top.count) + " >>";
        catalog += " /Outlines " + ref(root) + " /PageMode /UseOutlines";
    }
    objects[0] = catalog + " >>";
    objects[1] = "<< /Type /Pages /Kids [" + kids + "] /Count " + std::to_string(pages.size()) + " >>";
    objects[2] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>";

    std::string pdf = "%PDF-1.4\n";
    std::vector<size_t> offsets;
    for (size_t i = 0; i < objects.size(); ++i) {
        offsets.push_back(pdf.size());
        pdf += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
    }
    const size_t xref = pdf.size();
    pdf += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
    for (size_t off : offsets) {
        char entry[32];
        std::snprintf(entry, sizeof entry, "%010zu 00000 n \n", off);
        pdf += entry;
    }
    pdf += "trailer\n<< /Size " + std::to_string(objects.size() + 1) + " /Root 1 0 R >>\nstartxref\n" +
           std::to_string(xref) + "\n%%EOF\n";
    std::ofstream(file, std::ios::binary) << pdf;
}

}  // namespace precis::test
