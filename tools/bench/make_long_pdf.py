#!/usr/bin/env python3
"""Writes a long PDF of real prose for the long-document benchmark: the Gutenberg books of
../shared/corpus laid out as pages of Helvetica lines (a hand-written PDF with a correct
xref table; no PDF library needed), with a bookmark per book.

usage: make_long_pdf.py CORPUS.jsonl.xz PAGES OUT.pdf
"""
import json
import lzma
import sys
import textwrap

LINES_PER_PAGE = 52
WIDTH = 90  # characters per line


def pdf_escape(s):
    return s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def pages_of_books(corpus, pages_wanted):
    """Pages of lines, and (title, first page) per book, until pages_wanted pages."""
    pages, outline, page = [], [], []
    with lzma.open(corpus, "rt", encoding="utf-8") as f:
        for line in f:
            book = json.loads(line)
            outline.append((book["title"], len(pages)))
            for para in book["text"].split("\n\n"):
                words = " ".join(para.split())
                if not words:
                    continue
                for l in textwrap.wrap(words, WIDTH) + [""]:
                    page.append(l.encode("latin-1", "replace").decode("latin-1"))
                    if len(page) == LINES_PER_PAGE:
                        pages.append(page)
                        page = []
                        if len(pages) == pages_wanted:
                            return pages, outline
    if page:
        pages.append(page)
    return pages, outline


def write_pdf(path, pages, outline):
    objs = {}
    n_pages = len(pages)
    # 1 catalog, 2 pages tree, 3 font, 4 outlines root, then per page: page + content, then outline items.
    first_page = 5
    page_ids = [first_page + 2 * i for i in range(n_pages)]
    first_item = first_page + 2 * n_pages
    item_ids = [first_item + i for i in range(len(outline))]
    objs[1] = b"<< /Type /Catalog /Pages 2 0 R /Outlines 4 0 R /PageMode /UseOutlines >>"
    kids = " ".join(f"{p} 0 R" for p in page_ids)
    objs[2] = f"<< /Type /Pages /Kids [{kids}] /Count {n_pages} >>".encode()
    objs[3] = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
    if outline:
        objs[4] = f"<< /Type /Outlines /First {item_ids[0]} 0 R /Last {item_ids[-1]} 0 R /Count {len(outline)} >>".encode()
    else:
        objs[4] = b"<< /Type /Outlines /Count 0 >>"
    for i, lines in enumerate(pages):
        body = ["BT /F1 10 Tf 50 800 Td 14 TL"]
        for l in lines:
            body.append(f"({pdf_escape(l)}) '")
        body.append("ET")
        stream = "\n".join(body).encode("latin-1")
        objs[page_ids[i]] = (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
                             f"/Resources << /Font << /F1 3 0 R >> >> /Contents {page_ids[i] + 1} 0 R >>").encode()
        objs[page_ids[i] + 1] = f"<< /Length {len(stream)} >>\nstream\n".encode() + stream + b"\nendstream"
    for k, (title, page) in enumerate(outline):
        links = ""
        if k > 0:
            links += f" /Prev {item_ids[k - 1]} 0 R"
        if k + 1 < len(outline):
            links += f" /Next {item_ids[k + 1]} 0 R"
        t = pdf_escape(title.encode("latin-1", "replace").decode("latin-1"))
        objs[item_ids[k]] = (f"<< /Title ({t}) /Parent 4 0 R /Dest [{page_ids[min(page, n_pages - 1)]} 0 R /XYZ 0 842 0]"
                             f"{links} >>").encode("latin-1")
    out = bytearray(b"%PDF-1.4\n")
    offsets = {}
    for i in sorted(objs):
        offsets[i] = len(out)
        out += f"{i} 0 obj\n".encode() + objs[i] + b"\nendobj\n"
    xref = len(out)
    count = max(objs) + 1
    out += f"xref\n0 {count}\n0000000000 65535 f \n".encode()
    for i in range(1, count):
        out += f"{offsets[i]:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {count} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    with open(path, "wb") as f:
        f.write(out)


def main():
    corpus, pages_wanted, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    pages, outline = pages_of_books(corpus, pages_wanted)
    outline = [(t, p) for t, p in outline if p < len(pages)]
    write_pdf(out, pages, outline)
    print(f"{out}: {len(pages)} pages, {len(outline)} bookmarks")


if __name__ == "__main__":
    main()
