#pragma once
// Plain text files wrapped by hand at a fixed width (Project Gutenberg's 70 characters, mail,
// READMEs) end every line with a line break. A view narrower than that width wraps each line
// again and shows a long line and a stub, over and over; a wider one shows a ragged column.
// For display, the breaks inside such paragraphs become spaces, so the view wraps the text
// to its own width. Breaks that carry meaning stay: blank lines, the breaks of a paragraph
// with a line that ends early (verse, an address, a heading above its text), breaks before a
// list item, and every break of a text that is not wrapped at one width.
#include <QString>

namespace precis::text {

// The width (in characters) `text` is hard-wrapped at, or 0 when it is not: most of its
// non-blank lines end close to one right margin.
int hard_wrap_width(const QString& text);

// `text` with each line break inside a hard-wrapped paragraph replaced by a space. The
// result has the same length, so offsets into `text` (passages, sections) hold in it too.
QString join_hard_wrapped_lines(const QString& text);

}  // namespace precis::text
