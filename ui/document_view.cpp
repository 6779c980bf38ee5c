#include "ui/document_view.h"

#include <QFileInfo>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTextBlock>
#include <QVBoxLayout>

#include <algorithm>

#include "app/text/content_terms.h"
#include "app/text/hard_wraps.h"
#include "ui/focus_frame.h"
#include "ui/pdf_pages_view.h"

namespace precis::ui {

namespace {

// The Text / Pages tabs are a stop of the Tab key only when there is a choice (a PDF's
// pages); a lone Text tab took the focus with nothing to do and showed it faintly, a thin
// box around "Text" (issue 42), where the text itself shows the pane's focus frame.
void update_tab_focus(QTabWidget* tabs) {
    int shown = 0;
    for (int i = 0; i < tabs->count(); ++i) shown += tabs->isTabVisible(i) ? 1 : 0;
    tabs->tabBar()->setFocusPolicy(shown > 1 ? Qt::TabFocus : Qt::NoFocus);
}

}  // namespace

QColor passage_colour(double weight, double heaviest) {
    const double t = heaviest > 0 ? std::clamp(weight / heaviest, 0.0, 1.0) : 1.0;
    // Amber on the page, from a pale wash to a clear marker colour; readable under dark text.
    return QColor::fromHsvF(0.12, 0.25 + 0.55 * t, 1.0);
}

DocumentView::DocumentView(QWidget* parent)
    : QWidget(parent), header_(new QLabel(this)), tabs_(new QTabWidget(this)), text_(new QPlainTextEdit(this)),
      pages_(new PdfPagesView(this)) {
    header_->setWordWrap(true);
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    text_->setReadOnly(true);
    text_->setTabChangesFocus(true);
    show_keyboard_focus(text_);
    text_->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    text_->setPlaceholderText(tr("Open a document (Ctrl+O) or drop a PDF, text or Markdown file here."));
    QFont f = text_->font();
    f.setPointSizeF(f.pointSizeF() * 1.05);
    text_->setFont(f);
    tabs_->addTab(text_, tr("Text"));
    tabs_->addTab(pages_, tr("Pages"));
    tabs_->setTabVisible(1, false);
    tabs_->setDocumentMode(true);
    update_tab_focus(tabs_);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(header_);
    layout->addWidget(tabs_, 1);
    // A passage chosen while the text was showing is where the pages open too.
    connect(tabs_, &QTabWidget::currentChanged, this, [this](int tab) {
        if (tab == 1 && revealed_ && revealed_->page >= 0) pages_->reveal_passage(*revealed_);
    });
    clear();
}

void DocumentView::clear() {
    document_id_ = 0;
    passages_.clear();
    revealed_.reset();
    header_->setText(tr("<i>No document open</i>"));
    text_->clear();
    text_->setExtraSelections({});
    pages_->clear();
    tabs_->setTabVisible(1, false);
    update_tab_focus(tabs_);
}

void DocumentView::show_document(const DocumentRecord& d, const QString& pdf_password) {
    document_id_ = d.id;
    passages_.clear();
    revealed_.reset();
    QString header = QStringLiteral("<b>%1</b><br><small>%2").arg(d.title.toHtmlEscaped(), d.path.toHtmlEscaped());
    header += d.pages > 0 ? tr(" · %n page(s)", nullptr, d.pages) : QStringLiteral(" · %1").arg(d.encoding.toHtmlEscaped());
    // Counted as the summary's details count the document (a reader's words: "flood-plain" is one).
    header += tr(" · %n word(s)", nullptr, text::count_words(d.text));
    for (const QString& note : d.notes) header += QStringLiteral("<br>⚠ %1").arg(note.toHtmlEscaped());
    header += QStringLiteral("</small>");
    header_->setText(header);
    // Hand-wrapped text (Gutenberg's 70 columns) reflows to the view's width; same offsets.
    text_->setPlainText(text::join_hard_wrapped_lines(d.text));
    text_->setExtraSelections({});
    const bool pdf = d.pages > 0 && QFileInfo(d.path).suffix().compare("pdf", Qt::CaseInsensitive) == 0;
    tabs_->setTabVisible(1, pdf);
    update_tab_focus(tabs_);
    if (pdf)
        pages_->load(d.path, pdf_password);
    else
        pages_->clear();
    tabs_->setCurrentIndex(0);
}

void DocumentView::set_passages(const QVector<SourcePassage>& passages) {
    passages_ = passages;
    revealed_.reset();
    double heaviest = 0;
    for (const SourcePassage& p : passages) heaviest = std::max(heaviest, p.weight);
    QList<QTextEdit::ExtraSelection> selections;
    const int length = text_->document()->characterCount();
    for (const SourcePassage& p : passages) {
        if (p.begin >= length) continue;
        QTextEdit::ExtraSelection sel;
        sel.cursor = QTextCursor(text_->document());
        sel.cursor.setPosition(p.begin);
        sel.cursor.setPosition(std::min(p.end, length - 1), QTextCursor::KeepAnchor);
        sel.format.setBackground(passage_colour(p.weight, heaviest));
        sel.format.setForeground(QColor(0x20, 0x20, 0x20));
        sel.format.setToolTip(tr("%1% of the summary's attention").arg(p.weight * 100, 0, 'f', 1));
        selections << sel;
    }
    text_->setExtraSelections(selections);
    pages_->set_highlights(passages, text_->toPlainText());
}

void DocumentView::reveal(const SourcePassage& p) {
    QTextCursor c(text_->document());
    c.setPosition(std::min(p.begin, text_->document()->characterCount() - 1));
    text_->setTextCursor(c);
    text_->centerCursor();
    revealed_ = p;
    if (tabs_->currentIndex() == 1 && p.page >= 0) pages_->reveal_passage(p);
}

void DocumentView::reveal_start(int offset, int page) {
    const int at = std::clamp(offset, 0, std::max(0, text_->document()->characterCount() - 1));
    // From the end back up to the start, so the start comes to the top of the view (the
    // heading, then what follows it) rather than to its middle.
    text_->moveCursor(QTextCursor::End);
    QTextCursor c(text_->document());
    c.setPosition(at);
    text_->setTextCursor(c);
    // The pages take the same path as a passage: one that is not highlighted shows its page.
    SourcePassage start;
    start.begin = start.end = at;
    start.page = page;
    revealed_ = start;
    if (tabs_->currentIndex() == 1 && page >= 0) pages_->reveal_passage(start);
}

}  // namespace precis::ui
