// Renders a plain-text sample (title on the first line, paragraphs separated by blank
// lines) to a multi-page A5 PDF with page numbers, so the PDF path of Precis can be tried
// without shipping a binary file: precis_make_sample_pdf IN.txt OUT.pdf
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QTextStream>

#include <cstdio>

int main(int argc, char** argv) {
    QGuiApplication app(argc, argv);  // fonts for QPainter
    if (argc != 3) {
        std::fprintf(stderr, "usage: precis_make_sample_pdf IN.txt OUT.pdf\n");
        return 2;
    }
    QFile in(QString::fromLocal8Bit(argv[1]));
    if (!in.open(QIODevice::ReadOnly | QIODevice::Text)) {
        std::fprintf(stderr, "precis_make_sample_pdf: cannot read %s\n", argv[1]);
        return 1;
    }
    const QString text = QString::fromUtf8(in.readAll());
    QStringList paragraphs = text.split(QStringLiteral("\n\n"), Qt::SkipEmptyParts);
    const QString title = paragraphs.isEmpty() ? QString() : paragraphs.takeFirst().trimmed();

    const QString out_path = QString::fromLocal8Bit(argv[2]);
    QDir().mkpath(QFileInfo(out_path).absolutePath());
    QPdfWriter pdf(out_path);
    pdf.setPageSize(QPageSize(QPageSize::A5));
    pdf.setResolution(144);
    pdf.setTitle(title);
    pdf.setCreator(QStringLiteral("precis_make_sample_pdf"));
    QPainter p(&pdf);
    const QRect page = p.viewport();
    const int margin = 100;
    const QRect body(margin, margin, page.width() - 2 * margin, page.height() - 2 * margin - 40);
    QFont body_font(QStringLiteral("Serif"), 10);
    QFont title_font(QStringLiteral("Serif"), 15, QFont::Bold);
    int y = body.top();
    int page_number = 1;
    const auto footer = [&] {
        p.setFont(QFont(QStringLiteral("Serif"), 8));
        p.drawText(QRect(0, page.height() - margin, page.width(), 40), Qt::AlignHCenter, QString::number(page_number));
    };
    const auto new_page = [&] {
        footer();
        pdf.newPage();
        ++page_number;
        y = body.top();
    };
    p.setFont(title_font);
    const QRect t = p.boundingRect(QRect(body.left(), y, body.width(), body.height()), Qt::TextWordWrap, title);
    p.drawText(t, Qt::TextWordWrap, title);
    y = t.bottom() + 40;
    p.setFont(body_font);
    const int paragraph_gap = p.fontMetrics().height() / 2;
    for (const QString& raw : paragraphs) {
        const QString para = raw.simplified();
        // Whole paragraphs move to the next page when they do not fit (simple, and keeps words intact).
        QRect r = p.boundingRect(QRect(body.left(), y, body.width(), 100000), Qt::TextWordWrap, para);
        if (r.bottom() > body.bottom() && y > body.top()) {
            new_page();
            p.setFont(body_font);
            r = p.boundingRect(QRect(body.left(), y, body.width(), 100000), Qt::TextWordWrap, para);
        }
        p.drawText(r, Qt::TextWordWrap, para);
        y = r.bottom() + paragraph_gap;
    }
    footer();
    p.end();
    std::printf("wrote %s (%d pages)\n", argv[2], page_number);
    return 0;
}
