#pragma once
// A real one-page PDF written by hand (Helvetica text lines, a correct xref table), so a
// test can make PDFs without a GUI application object or a PDF library.
#include <filesystem>
#include <string>
#include <vector>

namespace precis::test {

void write_simple_pdf(const std::filesystem::path& file, const std::vector<std::string>& lines);

}  // namespace precis::test
