// Screenshots of the outline pane (not a correctness test: outline_pane_test proves the
// behaviour). Runs only with PRECIS_SHOTS_DIR set: a real Gutenberg book from the corpus
// (../shared/corpus/gutenberg.jsonl.xz, read with xz) as a text file and as a long PDF, each
// with a summary in one section per chapter, a chapter chosen in the outline, the window
// grabbed at the client size a 1024x700 screen leaves and at 1600x1000.
#include <QJsonDocument>
#include <QProcess>
#include <QSplitter>
#include <QStandardPaths>
#include <QTabWidget>

#include <fstream>

#include "app/worker/engine_thread.h"
#include "tests/ui/outline_test_support.h"
#include "ui/document_view.h"
#include "ui/library_panel.h"
#include "ui/main_window.h"
#include "ui/outline_model.h"
#include "ui/outline_view.h"
#include "ui/pdf_pages_view.h"
#include "ui/screen_fit.h"
#include "ui/summary_panel.h"

namespace precis::test {
namespace {

const QString kBook = QStringLiteral("Sir Arthur Conan Doyle___The White Company");

QString gutenberg_text(const QString& id) {
    const QString xz = QStandardPaths::findExecutable(QStringLiteral("xz"));
    const QString corpus = QString::fromStdString((corpus_dir() / "gutenberg.jsonl.xz").string());
    if (xz.isEmpty() || !QFile::exists(corpus)) return {};
    QProcess p;
    p.start(xz, {QStringLiteral("-dc"), corpus});
    if (!p.waitForFinished(120000)) return {};
    for (const QByteArray& line : p.readAllStandardOutput().split('\n')) {
        if (!line.contains(id.toUtf8())) continue;
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o.value("id").toString() == id) return o.value("text").toString();
    }
    return {};
}

// The first sentences of a section's text: a stand-in for its summary that reads like one.
QString opening_sentences(const QString& text, const OutlineSection& s) {
    QString body = text.mid(s.start, std::min(3000, s.end - s.start));
    body = body.mid(body.indexOf('\n') + 1).simplified();  // after the heading
    int end = 0;
    for (int n = 0; n < 3 && end >= 0; ++n) end = int(body.indexOf(QStringLiteral(". "), end + 1));
    return (end > 0 ? body.left(end + 1) : body.left(400));
}

// The book's lines for a PDF: Latin letters only (the simple PDF's Helvetica), wrapped at 88.
std::vector<std::vector<std::string>> book_pages(const QString& text) {
    std::vector<std::string> lines;
    for (const QString& paragraph : text.split(QStringLiteral("\n\n"))) {
        QString rest = paragraph.simplified();
        for (QChar& c : rest)
            if (c.unicode() > 126) c = c == QChar(0x2019) || c == QChar(0x2018) ? QChar('\'') : c == QChar(0x201C) || c == QChar(0x201D) ? QChar('"') : QChar('-');
        while (!rest.isEmpty()) {
            int cut = rest.size() <= 88 ? int(rest.size()) : int(rest.lastIndexOf(' ', 88));
            if (cut <= 0) cut = std::min<int>(88, int(rest.size()));
            lines.push_back(rest.left(cut).toStdString());
            rest = rest.mid(cut).trimmed();
        }
        lines.push_back("");
    }
    std::vector<std::vector<std::string>> pages(1);
    for (const std::string& l : lines) {
        if (pages.back().size() >= 50 || (l.rfind("CHAPTER ", 0) == 0 && pages.back().size() > 20)) pages.emplace_back();
        if (!(l.empty() && pages.back().empty())) pages.back().push_back(l);
    }
    return pages;
}

class OutlineShots : public ::testing::Test {
protected:
    void SetUp() override {
        out_ = qEnvironmentVariable("PRECIS_SHOTS_DIR");
        if (out_.isEmpty()) GTEST_SKIP() << "set PRECIS_SHOTS_DIR to take screenshots";
        if (!fixture_model_available()) GTEST_SKIP() << "fixture test model not found";
        book_ = gutenberg_text(kBook);
        if (book_.isEmpty()) GTEST_SKIP() << "the Gutenberg corpus (or xz) is not here";
        QDir().mkpath(out_);
        use_fixture_model_settings();
        QSettings().remove("window/geometry");
        dir_ = scratch_dir("outline-shots");
        ui::MainWindowOptions o;
        o.library_path = QString::fromStdString((dir_ / "library.sqlite").string());
        window_ = std::make_unique<ui::MainWindow>(o);
        window_->show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(window_.get()));
        ASSERT_TRUE(wait_until([&] { return window_->model_info().has_value() && !window_->engine()->busy(); }));
    }

    qint64 add(const IngestedDocument& doc) {
        DocumentOutline sections = chapter_sections(doc.text, doc.page_offsets);
        for (OutlineSection& s : sections) s.summary = opening_sentences(doc.text, s);
        const QString whole = QStringLiteral(
            "Alleyne Edricson leaves the abbey of Beaulieu and falls in with Hordle John and the archer Samkin "
            "Aylward, who are on their way to join the White Company under Sir Nigel Loring. They sail for "
            "France, fight in Gascony and Spain, and come home changed men.");
        const qint64 id = add_sectioned_summary(window_->library(), doc, sections, whole);
        window_->library_panel()->refresh();
        return id;
    }

    void choose(int row) {
        ui::OutlineView* outline = window_->summary_panel()->outline_view();
        const QModelIndex index = outline->outline_model()->index(row);
        outline->scrollTo(index);
        QTest::mouseClick(outline->viewport(), Qt::LeftButton, {}, outline->visualRect(index).center());
        outline->setFocus();  // the focus frame shows in the shot
    }

    void shot(const QString& name, const QSize& screen) {
        window_->resize(ui::fit_size(QSize(5000, 5000), QRect(QPoint(0, 0), screen)));
        QTest::qWait(300);
        QApplication::processEvents();
        if (window_->document_view()->tabs()->currentIndex() == 1)
            wait_until([&] { return window_->document_view()->pages_view()->visible_pages_rendered(); }, 20000);
        const QString file = QStringLiteral("%1/%2-%3x%4.png").arg(out_, name).arg(screen.width()).arg(screen.height());
        ASSERT_TRUE(window_->grab().save(file)) << file.toStdString();
    }

    QString out_, book_;
    std::filesystem::path dir_;
    std::unique_ptr<ui::MainWindow> window_;
};

TEST_F(OutlineShots, GutenbergBookWithAChapterChosen) {
    const auto path = write_text_file(dir_ / "the-white-company.txt", book_.toStdString());
    const qint64 doc = add(ingest_file(QString::fromStdString(path.string())));
    window_->show_document(doc);
    for (const QSize screen : {QSize(1024, 700), QSize(1600, 1000)}) {
        window_->resize(ui::fit_size(QSize(5000, 5000), QRect(QPoint(0, 0), screen)));
        QApplication::processEvents();
        choose(7);  // CHAPTER VII.
        shot(QStringLiteral("gutenberg-outline"), screen);
    }
    // The summary column dragged wider: the outline beside the text.
    auto* columns = qobject_cast<QSplitter*>(window_->summary_panel()->parentWidget());
    ASSERT_NE(columns, nullptr);
    columns->setSizes({260, 600, 720});
    choose(7);
    shot(QStringLiteral("gutenberg-outline-beside"), QSize(1600, 1000));
}

TEST_F(OutlineShots, LongPdfWithAChapterChosen) {
    const std::filesystem::path file = dir_ / "the-white-company.pdf";
    write_simple_pdf_pages(file, book_pages(book_));
    IngestOptions o;
    o.pdf_in_process = true;
    const qint64 doc = add(ingest_file(QString::fromStdString(file.string()), o));
    window_->show_document(doc);
    window_->document_view()->tabs()->setCurrentIndex(1);
    for (const QSize screen : {QSize(1024, 700), QSize(1600, 1000)}) {
        window_->resize(ui::fit_size(QSize(5000, 5000), QRect(QPoint(0, 0), screen)));
        QApplication::processEvents();
        choose(12);  // CHAPTER XII.
        shot(QStringLiteral("pdf-outline"), screen);
    }
}

}  // namespace
}  // namespace precis::test

int main(int argc, char** argv) { return precis::test::run_ui_tests(argc, argv); }
