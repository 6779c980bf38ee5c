#pragma once
// The right column: the selected summary (streaming while it is generated), what made it
// (model, device, parameters, timings), the document's labels, the source passages it drew
// on, the history of summaries for the document, and copy / export / delete. A summary made
// section by section shows its outline beside or above the text (ui/outline_view.h): choosing
// a section shows that section's summary under a caption and asks the document view to
// scroll to where the section starts.
#include <QHash>
#include <QWidget>

#include <optional>

#include "app/library/library.h"
#include "app/library/source_passage.h"

class QLabel;
class QListWidget;
class QPushButton;
class QTextBrowser;

namespace precis::ui {

class ClassificationView;
class OutlineSplitter;
class OutlineView;
class SectionCaption;

class SummaryPanel : public QWidget {
    Q_OBJECT
public:
    SummaryPanel(Library& library, QWidget* parent = nullptr);

    // Shows the document's summaries (newest first) and selects `summary_id` (0: the newest).
    void show_document(qint64 document_id, qint64 summary_id = 0);
    void clear();
    // Live text of a summary being generated for the shown document.
    void show_streaming(const QString& text);
    // Back to the selected stored summary after a cancelled or failed run.
    void end_streaming();
    // Passages are computed with the summary; remembered here for the session.
    void set_passages(qint64 summary_id, const QVector<SourcePassage>& passages);

    qint64 document_id() const { return document_id_; }
    qint64 summary_id() const { return current_ ? current_->id : 0; }
    QString summary_text() const;
    // Where Export's file dialog starts: the user's Documents folder (the start-up folder
    // is wherever the app was launched from), named after the document.
    QString export_start_path() const;
    QTextBrowser* text_view() const { return text_; }
    QListWidget* history() const { return history_; }
    ClassificationView* classification_view() const { return classification_; }
    QListWidget* passage_list() const { return passage_list_; }
    OutlineView* outline_view() const { return outline_; }
    SectionCaption* section_caption() const { return section_caption_; }
    QLabel* details() const { return details_; }  // what made the summary, how much it read
    bool has_summary() const { return current_.has_value(); }

    // The Copy / Export… / Delete buttons (also the window's Summary shortcuts).
    void copy_to_clipboard();
    void export_summary();
    void delete_summary();

signals:
    void passages_changed(const QVector<SourcePassage>& passages);  // for the document view
    void passage_activated(const SourcePassage& passage);
    // A section of the shown summary's outline was chosen: the document view shows its start.
    void section_activated(const OutlineSection& section);
    void trace_requested(qint64 summary_id);
    void summary_deleted(qint64 summary_id);
    void status_message(const QString& message);

private:
    void show_summary(qint64 summary_id);
    void show_passages();
    void fit_history();  // as tall as its entries, up to three
    // Section `section` of the shown summary's outline (-1: the whole document's summary).
    void show_section(int section);
    void show_outline(const DocumentOutline& outline);  // none: hidden
    void hide_outline() { show_outline({}); }
    void share_column();  // the column's room between the outline and text, and the passages
    const QString& document_text();  // the shown summary's document's, read once

    Library& library_;
    qint64 document_id_ = 0;
    std::optional<SummaryRecord> current_;
    QHash<qint64, QVector<SourcePassage>> passages_;  // by summary id
    QString document_text_;  // for passage excerpts
    qint64 document_text_of_ = 0;
    ClassificationView* classification_;
    QTextBrowser* text_;
    OutlineView* outline_;
    SectionCaption* section_caption_;
    OutlineSplitter* reading_split_;
    QWidget* passages_box_ = nullptr;
    QLabel* details_;
    QListWidget* passage_list_;
    QPushButton* trace_;
    QListWidget* history_;
    QPushButton* copy_;
    QPushButton* export_;
    QPushButton* delete_;
};

// One line describing the settings a summary was made with ("lsg norm B=128 … · 4 beams · …").
QString describe_parameters(const QJsonObject& parameters);

}  // namespace precis::ui
