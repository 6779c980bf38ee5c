#include "ui/summary_panel.h"

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QStandardPaths>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>

#include "app/file_names.h"
#include "ui/classification_view.h"
#include "ui/focus_frame.h"
#include "ui/outline_model.h"
#include "ui/outline_view.h"

namespace precis::ui {

QString describe_parameters(const QJsonObject& p) {
    QStringList parts;
    if (p.value("method").toString() == QLatin1String("extractive")) {
        parts << QStringLiteral("%1 of %2 sentences").arg(p.value("sentences").toInt()).arg(p.value("document_sentences").toInt());
        parts << QStringLiteral("%1 of %2 words").arg(p.value("words").toInt()).arg(p.value("document_words").toInt());
        parts << QStringLiteral("length: %1").arg(p.value("budget").toString());
        return parts.join(QStringLiteral(" · "));
    }
    const QString attention = p.value("attention").toString();
    if (attention == "lsg")
        parts << QStringLiteral("LSG %1, block %2, sparse block %3, factor %4, %5 global")
                     .arg(p.value("sparsity_type").toString())
                     .arg(p.value("block_size").toInt())
                     .arg(p.value("sparse_block_size").toInt())
                     .arg(p.value("sparsity_factor").toInt())
                     .arg(p.value("num_global_tokens").toInt());
    else if (attention == "fovea")
        parts << QStringLiteral("Fovea, block %1, wing %2").arg(p.value("fovea_block_size").toInt()).arg(p.value("fovea_wing").toInt());
    else if (!attention.isEmpty())
        parts << QStringLiteral("full attention");
    const int beams = p.value("num_beams").toInt(1);
    parts << (beams > 1 ? QStringLiteral("%1 beams").arg(beams) : QStringLiteral("greedy"));
    parts << QStringLiteral("length penalty %1").arg(p.value("length_penalty").toDouble());
    parts << QStringLiteral("length %1–%2").arg(p.value("min_length").toInt()).arg(p.value("max_length").toInt());
    if (const int n = p.value("no_repeat_ngram_size").toInt(); n > 0) parts << QStringLiteral("no repeated %1-grams").arg(n);
    return parts.join(QStringLiteral(" · "));
}

SummaryPanel::SummaryPanel(Library& library, QWidget* parent)
    : QWidget(parent),
      library_(library),
      classification_(new ClassificationView(library, this)),
      text_(new QTextBrowser(this)),
      outline_(new OutlineView(this)),
      section_caption_(new SectionCaption(this)),
      details_(new QLabel(this)),
      passage_list_(new QListWidget(this)),
      trace_(new QPushButton(tr("Find source passages"), this)),
      history_(new QListWidget(this)),
      copy_(new QPushButton(tr("Copy"), this)),
      export_(new QPushButton(tr("Export…"), this)),
      delete_(new QPushButton(tr("Delete"), this)) {
    text_->setPlaceholderText(tr("No summary yet. Press Ctrl+Enter to summarize the open document."));
    text_->setOpenLinks(false);
    text_->setTabChangesFocus(true);
    for (QAbstractScrollArea* area : {static_cast<QAbstractScrollArea*>(text_), static_cast<QAbstractScrollArea*>(passage_list_),
                                      static_cast<QAbstractScrollArea*>(history_)})
        show_keyboard_focus(area);
    QFont f = text_->font();
    f.setPointSizeF(f.pointSizeF() * 1.15);
    text_->setFont(f);
    details_->setWordWrap(true);
    details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    details_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    trace_->setToolTip(tr("Run the encoder again to find which passages this summary drew on"));
    // One line a passage (its share and its opening words; the whole excerpt on hover, the
    // whole sentence in the document on a click), and room for four: wrapped excerpts of
    // three or four lines left one and a half showing at 1024x700.
    passage_list_->setWordWrap(false);
    passage_list_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    passage_list_->setTextElideMode(Qt::ElideRight);
    passage_list_->setUniformItemSizes(true);
    passage_list_->setMinimumHeight(4 * (passage_list_->fontMetrics().lineSpacing() + 4) + 2 * passage_list_->frameWidth());
    history_->setToolTip(tr("Every summary of this document, newest first"));
    // Each entry is exactly two lines (when and by what; the settings, elided), and the
    // list is as tall as its entries up to three whole ones (fit_history): wrapped entries
    // of uneven height left one and a half showing, and empty rows took the passages' room.
    history_->setWordWrap(false);
    history_->setTextElideMode(Qt::ElideRight);
    history_->setUniformItemSizes(true);
    history_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    fit_history();
    copy_->setToolTip(tr("Copy the summary to the clipboard"));
    export_->setToolTip(tr("Save the summary with its parameters as Markdown or JSON"));
    delete_->setToolTip(tr("Delete this summary from the library"));

    section_caption_->hide();  // over a section's summary, so it is not taken for the whole one's
    auto* reading = new QWidget(this);
    auto* rl = new QVBoxLayout(reading);
    rl->setContentsMargins(0, 0, 0, 0);
    rl->setSpacing(2);
    rl->addWidget(section_caption_);
    rl->addWidget(text_, 1);
    reading_split_ = new OutlineSplitter(outline_, reading, this);

    auto* passages_box = new QGroupBox(tr("Source passages"), this);
    passages_box_ = passages_box;
    auto* pl = new QVBoxLayout(passages_box);
    pl->addWidget(passage_list_);
    pl->addWidget(trace_);
    auto* history_box = new QGroupBox(tr("History"), this);
    auto* hl = new QVBoxLayout(history_box);
    hl->addWidget(history_);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(copy_);
    buttons->addWidget(export_);
    buttons->addStretch();
    buttons->addWidget(delete_);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(classification_);
    layout->addWidget(reading_split_, 3);
    layout->addWidget(details_);
    layout->addWidget(passages_box, 2);
    layout->addWidget(history_box);
    layout->addLayout(buttons);

    connect(history_, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row >= 0) show_summary(history_->item(row)->data(Qt::UserRole).toLongLong());
    });
    connect(outline_, &OutlineView::section_selected, this, &SummaryPanel::show_section);
    connect(passage_list_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        const auto& list = passages_.value(summary_id());
        const int i = item->data(Qt::UserRole).toInt();
        if (i >= 0 && i < list.size()) emit passage_activated(list[i]);
    });
    connect(passage_list_, &QListWidget::itemClicked, passage_list_, &QListWidget::itemActivated);
    connect(trace_, &QPushButton::clicked, this, [this] {
        if (current_) emit trace_requested(current_->id);
    });
    connect(copy_, &QPushButton::clicked, this, &SummaryPanel::copy_to_clipboard);
    connect(export_, &QPushButton::clicked, this, &SummaryPanel::export_summary);
    connect(delete_, &QPushButton::clicked, this, &SummaryPanel::delete_summary);
    clear();
}

void SummaryPanel::clear() {
    document_id_ = 0;
    current_.reset();
    document_text_.clear();
    document_text_of_ = 0;
    const QSignalBlocker block(history_);
    history_->clear();
    fit_history();
    classification_->show_document(0);
    text_->clear();
    details_->clear();
    hide_outline();
    show_passages();
}

void SummaryPanel::show_document(qint64 document_id, qint64 summary_id) {
    document_id_ = document_id;
    current_.reset();
    const QVector<SummaryRecord> summaries = library_.summaries_for(document_id);
    {
        const QSignalBlocker block(history_);
        history_->clear();
        for (const SummaryRecord& s : summaries) {
            auto* item = new QListWidgetItem(QStringLiteral("%1 · %2\n%3")
                                                 .arg(QLocale().toString(s.created_at.toLocalTime(), QLocale::ShortFormat),
                                                      s.method == QLatin1String("extractive")
                                                          ? summary_method_description(s)
                                                          : s.model_name,
                                                      describe_parameters(s.parameters)),
                                             history_);
            item->setData(Qt::UserRole, s.id);
            item->setToolTip(describe_parameters(s.parameters) + QStringLiteral("\n\n") + s.summary.left(400));
        }
    }
    fit_history();
    classification_->show_document(document_id);

    int row = 0;
    for (int i = 0; i < summaries.size(); ++i)
        if (summaries[i].id == summary_id) row = i;
    if (summaries.isEmpty()) {
        text_->clear();
        hide_outline();
        details_->setText(tr("<small>This document has not been summarized yet.</small>"));
        show_passages();
    } else {
        history_->setCurrentRow(row);  // shows it
        if (history_->currentRow() == row) show_summary(summaries[row].id);
    }
}

void SummaryPanel::fit_history() {
    const int entries = std::clamp(history_->count(), 1, 3);
    history_->setFixedHeight(entries * (2 * history_->fontMetrics().lineSpacing() + 6) + 2 * history_->frameWidth());
}

void SummaryPanel::show_summary(qint64 summary_id) {
    current_ = library_.summary(summary_id);
    if (!current_) return;
    const SummaryRecord& s = *current_;
    text_->setPlainText(s.summary);
    show_outline(s.sections);
    if (s.method == QLatin1String("extractive")) {
        details_->setText(tr("<small><b>%1</b> · %2<br>%3 · chosen in %4 s<br>The summary is the document's own "
                             "sentences, highlighted in the text; a neural model writes its own (Settings).</small>")
                              .arg(summary_method_description(s).toHtmlEscaped(),
                                   QLocale().toString(s.created_at.toLocalTime(), QLocale::ShortFormat),
                                   describe_parameters(s.parameters).toHtmlEscaped())
                              .arg(s.seconds_generate, 0, 'f', 2));
        details_->setToolTip(QString());
        if (s.passages && !passages_.contains(s.id)) passages_[s.id] = *s.passages;
        show_passages();
        return;
    }
    const int tokens_read = s.parameters.value("tokens_read").toInt(int(s.input_tokens));
    QString reading = tr("read %1 of %2 tokens").arg(tokens_read).arg(s.input_tokens);
    if (!s.sections.isEmpty())
        reading = s.sections.size() == 1 ? tr("read all %1 tokens in 1 section").arg(s.input_tokens)
                                         : tr("read all %1 tokens in %2 sections").arg(s.input_tokens).arg(s.sections.size());
    else if (s.parameters.value("long").toString() == QLatin1String("sections"))
        reading = tr("read all %1 tokens section by section").arg(s.input_tokens);
    else if (s.truncated) reading = QStringLiteral("<span style='color:#b45309'>%1 (the rest did not fit)</span>").arg(reading);
    details_->setText(QStringLiteral("<small><b>%1</b> on %2 · %3<br>%4<br>encode %5 s · generate %6 s · %7</small>")
                          .arg(s.model_name.toHtmlEscaped(), s.device.toHtmlEscaped(),
                               QLocale().toString(s.created_at.toLocalTime(), QLocale::ShortFormat),
                               describe_parameters(s.parameters).toHtmlEscaped())
                          .arg(s.seconds_encode, 0, 'f', 2)
                          .arg(s.seconds_generate, 0, 'f', 2)
                          .arg(reading));
    details_->setToolTip(path_for_display(s.model_path));
    if (s.passages && !passages_.contains(s.id)) passages_[s.id] = *s.passages;  // stored with the summary
    show_passages();
}

void SummaryPanel::show_streaming(const QString& text) {
    hide_outline();  // the text is the new summary's, not a section's
    text_->setPlainText(text);
    details_->setText(tr("<small><i>Generating…</i></small>"));
    text_->moveCursor(QTextCursor::End);
}

void SummaryPanel::end_streaming() {
    if (current_)
        show_summary(current_->id);
    else if (document_id_)
        show_document(document_id_);
}

void SummaryPanel::set_passages(qint64 summary_id, const QVector<SourcePassage>& passages) {
    passages_[summary_id] = passages;
    if (summary_id == this->summary_id()) show_passages();
}

void SummaryPanel::show_passages() {
    passage_list_->clear();
    const bool known = current_ && passages_.contains(current_->id);
    trace_->setVisible(current_ && !known);
    share_column();
    copy_->setEnabled(current_.has_value());
    export_->setEnabled(current_.has_value());
    delete_->setEnabled(current_.has_value());
    if (!known) {
        emit passages_changed({});
        return;
    }
    const QVector<SourcePassage>& list = passages_[current_->id];
    const QString& document_text = this->document_text();
    QVector<int> order(list.size());
    for (int i = 0; i < list.size(); ++i) order[i] = i;
    // A model's passages by the attention they drew; an extractive summary's sentences in
    // the order the document has them (the order of the summary).
    if (current_->method != QLatin1String("extractive"))
        std::sort(order.begin(), order.end(), [&](int a, int b) { return list[a].weight > list[b].weight; });
    for (int i : order) {
        const SourcePassage& p = list[i];
        QString excerpt = document_text.mid(p.begin, p.end - p.begin).simplified();
        // The list elides at its width; the tooltip shows this much (a passage can be a page).
        if (excerpt.size() > 400) excerpt = excerpt.left(397) + QStringLiteral("…");
        const QString where = p.page >= 0 ? tr("p. %1 · ").arg(p.page + 1) : QString();
        // An extractive summary's sentences are the summary itself: no share of attention to show.
        const QString label = current_->method == QLatin1String("extractive")
                                  ? where + excerpt
                                  : QStringLiteral("%1%2% — %3").arg(where).arg(p.weight * 100, 0, 'f', 1).arg(excerpt);
        auto* item = new QListWidgetItem(label, passage_list_);
        item->setData(Qt::UserRole, i);
        const QString why =
            current_->method != QLatin1String("extractive")
                ? tr("%1% of the attention the model paid to the document while writing this summary went to this "
                     "passage (cross-attention, over all layers and heads and every word it wrote). A higher share "
                     "means the summary drew more on it. Click to show it in the document.")
                      .arg(p.weight * 100, 0, 'f', 1)
                : tr("A sentence of the document that is part of the summary. Click to show it in the document.");
        item->setToolTip(QStringLiteral("<p>%1</p><p>%2</p>").arg(excerpt.toHtmlEscaped(), why.toHtmlEscaped()));
    }
    if (list.isEmpty()) passage_list_->addItem(tr("The summary's attention was spread evenly; no passage stands out."));
    emit passages_changed(list);
}

const QString& SummaryPanel::document_text() {
    if (current_ && document_text_of_ != current_->document_id) {
        const auto doc = library_.document(current_->document_id);
        document_text_ = doc ? doc->text : QString();
        document_text_of_ = current_->document_id;
    }
    return document_text_;
}

void SummaryPanel::show_section(int section) {
    if (!current_) return;
    const DocumentOutline& outline = current_->sections;
    if (section < 0 || section >= outline.size()) {  // the whole document
        section_caption_->hide();
        text_->setPlainText(current_->summary);
        return;
    }
    section_caption_->set_caption(ui::section_caption(outline, section, outline_->outline_model()->text_length()));
    section_caption_->show();
    const OutlineSection& s = outline[section];
    text_->setPlainText(s.summary.isEmpty() ? tr("(This section has no summary of its own.)") : s.summary);
    emit section_activated(s);
}

void SummaryPanel::show_outline(const DocumentOutline& outline) {
    section_caption_->hide();
    if (outline.isEmpty()) outline_->clear_outline();
    else outline_->set_outline(outline, int(document_text().size()));
    reading_split_->set_outline_visible(!outline.isEmpty());
    share_column();
}

void SummaryPanel::share_column() {
    // A sectioned summary's outline and text take more of the column from the passages (few
    // such summaries have any traced), and while none are listed the passages box is only
    // its button: at 1024x700 the outline, the caption and the text all keep room to read.
    const bool sectioned = outline_->outline_model()->rowCount() > 0;
    const bool listed = current_ && passages_.contains(current_->id);
    passage_list_->setVisible(listed || !sectioned);
    auto* box = qobject_cast<QBoxLayout*>(layout());
    if (!box) return;
    box->setStretchFactor(reading_split_, sectioned ? 6 : 3);
    box->setStretchFactor(passages_box_, !sectioned ? 2 : listed ? 1 : 0);
}

QString SummaryPanel::summary_text() const { return text_->toPlainText(); }

void SummaryPanel::copy_to_clipboard() {
    if (!current_) return;
    QApplication::clipboard()->setText(current_->summary);
    emit status_message(tr("Summary copied to the clipboard."));
}

QString SummaryPanel::export_start_path() const {
    const auto doc = current_ ? library_.document(current_->document_id) : std::nullopt;
    const QString base = QFileInfo(doc ? doc->path : QStringLiteral("summary")).completeBaseName() + QStringLiteral("-summary");
    QString folder = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    if (folder.isEmpty() || !QFileInfo(folder).isDir()) folder = QDir::homePath();
    return QDir(folder).filePath(base + QStringLiteral(".md"));
}

void SummaryPanel::export_summary() {
    if (!current_) return;
    QString filter;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export summary"), export_start_path(),
                                                      tr("Markdown (*.md);;JSON (*.json)"), &filter);
    if (path.isEmpty()) return;
    const bool json = path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive) ||
                      (!path.endsWith(QStringLiteral(".md"), Qt::CaseInsensitive) && filter.startsWith(QStringLiteral("JSON")));
    QSaveFile file(path);
    const QByteArray bytes = library_.export_summary(current_->id, json ? ExportFormat::Json : ExportFormat::Markdown).toUtf8();
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        QMessageBox::warning(this, tr("Export summary"), tr("Could not write %1: %2.").arg(path, file.errorString()));
        return;
    }
    emit status_message(tr("Exported the summary to %1.").arg(path));
}

void SummaryPanel::delete_summary() {
    if (!current_) return;
    if (QMessageBox::question(this, tr("Delete summary"), tr("Delete this summary from the library? The document and its other summaries stay.")) !=
        QMessageBox::Yes)
        return;
    const qint64 id = current_->id;
    library_.delete_summary(id);
    passages_.remove(id);
    current_.reset();
    show_document(document_id_);
    emit summary_deleted(id);
    emit status_message(tr("Summary deleted."));
}

}  // namespace precis::ui
