// Writes the seed corpora of the app's fuzz targets at build time from the shared test
// fixtures' texts: `precis_fuzz_app_seeds FIXTURES OUT` fills OUT/<target>/. Text files in
// every encoding the decoder tells apart, PDFs drawn with QPdfWriter, and a library file
// written through precis::Library, so each target starts from inputs it fully accepts.
#include <QBuffer>
#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QJsonObject>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QStringConverter>
#include <QStringList>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "app/ingest/ingest.h"
#include "app/library/library.h"

namespace {

// The non-empty texts of the tokenizer fixture cases: English, accents, CJK, emoji, odd spacing.
QStringList fixture_texts(const QString& fixtures) {
    QFile file(fixtures + QStringLiteral("/tokenizer/bart/cases.jsonl"));
    if (!file.open(QIODevice::ReadOnly)) throw std::runtime_error("cannot read " + file.fileName().toStdString());
    QStringList texts;
    for (const QByteArray& line : file.readAll().split('\n')) {
        if (line.trimmed().isEmpty()) continue;
        const std::string text = nlohmann::json::parse(line.toStdString()).at("text").get<std::string>();
        if (!QString::fromStdString(text).trimmed().isEmpty()) texts << QString::fromStdString(text);
    }
    if (texts.isEmpty()) throw std::runtime_error("no texts in " + file.fileName().toStdString());
    return texts;
}

void write_seed(const QString& dir, const QString& name, const QByteArray& bytes) {
    QDir().mkpath(dir);
    QFile out(dir + QLatin1Char('/') + name);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate) || out.write(bytes) != bytes.size())
        throw std::runtime_error("cannot write " + out.fileName().toStdString());
}

QByteArray encode(const QString& text, QStringConverter::Encoding encoding, bool bom) {
    QStringEncoder encoder(encoding, bom ? QStringConverter::Flag::WriteBom : QStringConverter::Flag::Default);
    return encoder.encode(text);
}

// Latin-1 and Windows-1252 only where the text fits them; unmappable characters dropped.
QByteArray single_byte(const QString& text, bool cp1252) {
    QByteArray out;
    for (QChar c : text) {
        if (c.unicode() < 0x80 || (c.unicode() >= 0xA0 && c.unicode() <= 0xFF)) out += char(c.unicode());
        else if (cp1252 && c == QChar(0x201C)) out += '\x93';
        else if (cp1252 && c == QChar(0x201D)) out += '\x94';
        else if (cp1252 && c == QChar(0x2014)) out += '\x97';
    }
    return out;
}

void text_decoding_seeds(const QStringList& texts, const QString& out) {
    const QString markdown = QStringLiteral("# Fixture cases\r\n\r\n") + texts.join(QStringLiteral("\r\n\r\n")) + "\r\n";
    const QString plain = texts.join(QLatin1Char('\n'));
    write_seed(out, QStringLiteral("utf8.md"), encode(markdown, QStringConverter::Utf8, false));
    write_seed(out, QStringLiteral("utf8-bom.txt"), encode(plain, QStringConverter::Utf8, true));
    write_seed(out, QStringLiteral("utf16le-bom.txt"), encode(plain, QStringConverter::Utf16LE, true));
    write_seed(out, QStringLiteral("utf16be-bom.md"), encode(markdown, QStringConverter::Utf16BE, true));
    const QString western = QStringLiteral("Caf\u00e9 na\u00efve \u201cquoted\u201d \u2014 r\u00e9sum\u00e9\n") + plain;
    write_seed(out, QStringLiteral("latin1.txt"), single_byte(western, false));
    write_seed(out, QStringLiteral("cp1252.txt"), single_byte(western, true));
}

// Pages of fixture text with a running header and a page number, so the layout code's
// header/footer and unwrapping paths all have something to work on.
QByteArray draw_pdf(const QStringList& texts, int pages, const QString& title) {
    QByteArray bytes;
    {
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QPdfWriter writer(&buffer);
        writer.setPageSize(QPageSize(QPageSize::A5));
        writer.setResolution(72);
        writer.setTitle(title);
        QPainter painter(&writer);
        for (int page = 0; page < pages; ++page) {
            if (page > 0) writer.newPage();
            painter.drawText(40, 30, QStringLiteral("Precis fixture report"));
            int y = 80;
            for (int i = page; i < texts.size() && y < 500; i += pages, y += 16)
                painter.drawText(40, y, texts[i].simplified().left(70));
            painter.drawText(180, 560, QString::number(page + 1));
        }
    }
    return bytes;
}

void pdf_seeds(const QStringList& texts, const QString& out) {
    write_seed(out, QStringLiteral("one-page.pdf"), draw_pdf(texts, 1, QStringLiteral("One page")));
    write_seed(out, QStringLiteral("three-pages.pdf"), draw_pdf(texts, 3, QStringLiteral("Three pages")));
}

// A library holding one of everything the reader code walks over.
void library_seeds(const QStringList& texts, const QString& out) {
    QDir().mkpath(out);
    const QString path = out + QStringLiteral("/library.sqlite");
    QFile::remove(path);
    {
        precis::Library lib(path);
        precis::IngestedDocument doc;
        doc.path = QStringLiteral("/fixtures/cases.md");
        doc.title = QStringLiteral("Fixture cases");
        doc.text = texts.join(QStringLiteral("\n\n"));
        doc.encoding = QStringLiteral("UTF-8");
        doc.notes << QStringLiteral("seed document");
        doc.content_hash = QByteArray(64, 'a');
        const qint64 id = lib.add_or_get_document(doc);

        precis::SummaryRecord summary;
        summary.document_id = id;
        summary.model_name = QStringLiteral("bart-tiny");
        summary.parameters = QJsonObject{{QStringLiteral("beams"), 2}};
        summary.summary = texts.first();
        summary.summary_ids = {0, 31414, 232, 2};
        summary.passages = QVector<precis::SourcePassage>{{0, 10, 0.75, -1}};
        const qint64 summary_id = lib.add_summary(summary);

        precis::ClassificationRecord label;
        label.document_id = id;
        label.model_name = QStringLiteral("bart-tiny-cls");
        label.label = QStringLiteral("report");
        label.score = 0.9;
        lib.add_classification(label);

        precis::ModelRecord model;
        model.name = QStringLiteral("bart-tiny");
        model.path = QStringLiteral("/fixtures/models/bart-tiny");
        model.architecture = QStringLiteral("bart");
        model.attention = QStringLiteral("full");
        lib.register_model(model);

        const auto job = lib.start_or_resume_job(QStringLiteral("/fixtures"),
                                                 {QStringLiteral("/fixtures/a.txt"), QStringLiteral("/fixtures/b.pdf")});
        lib.mark_item_done(job.job_id, QStringLiteral("/fixtures/a.txt"), summary_id);
        lib.mark_item_failed(job.job_id, QStringLiteral("/fixtures/b.pdf"), QStringLiteral("damaged"));
    }
    // Closing the last connection folded the write-ahead log into the file: it is one seed.
    for (const char* stale : {"-wal", "-shm"}) QFile::remove(path + QLatin1String(stale));
}

}  // namespace

int main(int argc, char** argv) {
    QGuiApplication app(argc, argv);  // QPdfWriter lays out text with the platform's fonts
    if (argc != 3) {
        std::cerr << "usage: precis_fuzz_app_seeds FIXTURES OUT\n";
        return 2;
    }
    const QString fixtures = QString::fromLocal8Bit(argv[1]), out = QString::fromLocal8Bit(argv[2]);
    try {
        const QStringList texts = fixture_texts(fixtures);
        text_decoding_seeds(texts, out + QStringLiteral("/text_decoding_fuzz"));
        pdf_seeds(texts, out + QStringLiteral("/pdf_ingest_fuzz"));
        library_seeds(texts, out + QStringLiteral("/library_file_fuzz"));
    } catch (const std::exception& e) {
        std::cerr << "precis_fuzz_app_seeds: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
