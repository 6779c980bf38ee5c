#pragma once
// The status bar's message as a label of its own, fitted to the room it has whenever that
// room changes (issue 42: QStatusBar paints a temporary message in one line, cut where the
// first permanent widget begins; shortened once when it was shown, a message given while the
// run status still took the width stayed "Summa…" after the run ended). The label takes all
// the width the run status and model label leave; a message too long for one line wraps to
// a second, paths in it are cut in the middle before a sentence loses its end, and the whole
// text is always the tooltip.
#include <QFontMetrics>
#include <QLabel>
#include <QString>

namespace precis::ui {

// `text` as it fits `width` in at most `max_lines` lines (joined by '\n'): whole when it
// fits; else wrapped between words; else with its paths (words with a / or \) cut in the
// middle, as little as needed; else the last line cut after a whole word ("…").
QString fit_status_text(const QString& text, const QFontMetrics& metrics, int width, int max_lines = 2);

class StatusMessage : public QLabel {
    Q_OBJECT
public:
    static constexpr int kMaxLines = 2;
    // Widths the status bar's layout weighs against the run status when it is short of room:
    // the message asks for up to kWidth and gives way down to kNarrowest; with room to spare
    // it takes all of it (stretch).
    static constexpr int kWidth = 480, kNarrowest = 220;

    explicit StatusMessage(QWidget* parent = nullptr);

    // The whole message (empty: clears); what is shown is fitted to the label's width.
    void set_message(const QString& message);
    const QString& message() const { return message_; }
    // True when the label shows the message as it is (possibly wrapped), nothing cut.
    bool shown_whole() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void refit();

    QString message_;
};

}  // namespace precis::ui
