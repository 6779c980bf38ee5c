#include "ui/status_message.h"

#include <QSizePolicy>
#include <QStringList>

#include <algorithm>

#include "ui/word_elide.h"

namespace precis::ui {

namespace {

bool path_like(const QString& word) { return word.contains(u'/') || word.contains(u'\\'); }

// Greedy: as many words on a line as fit (a word wider than the line has a line of its own).
QStringList wrap(const QStringList& words, const QFontMetrics& m, int width) {
    QStringList lines;
    QString line;
    bool started = false;
    for (const QString& w : words) {
        if (!started) {
            line = w;
            started = true;
            continue;
        }
        const QString longer = line + u' ' + w;
        if (m.horizontalAdvance(longer) <= width) {
            line = longer;
        } else {
            lines << line;
            line = w;
        }
    }
    lines << line;
    return lines;
}

bool fits(const QStringList& lines, const QFontMetrics& m, int width, int max_lines) {
    if (lines.size() > max_lines) return false;
    return std::all_of(lines.begin(), lines.end(), [&](const QString& l) { return m.horizontalAdvance(l) <= width; });
}

// The words with each path wider than `target` cut in its middle to `target`.
QStringList paths_cut_to(QStringList words, const QFontMetrics& m, int target) {
    for (QString& w : words)
        if (path_like(w) && m.horizontalAdvance(w) > target) w = m.elidedText(w, Qt::ElideMiddle, target);
    return words;
}

}  // namespace

QString fit_status_text(const QString& text, const QFontMetrics& m, int width, int max_lines) {
    max_lines = std::max(1, max_lines);
    width = std::max(1, width);
    if (m.horizontalAdvance(text) <= width && !text.contains(u'\n')) return text;
    QString flat = text;
    flat.replace(u'\n', u' ');
    const QStringList words = flat.split(u' ');

    QStringList lines = wrap(words, m, width);
    if (fits(lines, m, width, max_lines)) return lines.join(u'\n');

    // A path gives up its middle (the folder's start and the file's name stay) before the
    // sentence gives up its end; as little as needed.
    const bool has_path = std::any_of(words.begin(), words.end(), path_like);
    const int narrowest = m.horizontalAdvance(QStringLiteral("/home…name.md"));
    if (has_path) {
        const int step = std::max(8, width / 20);
        for (int target = width; target >= narrowest; target -= step) {
            lines = wrap(paths_cut_to(words, m, target), m, width);
            if (fits(lines, m, width, max_lines)) return lines.join(u'\n');
        }
    }

    // Still too long: whole lines, the last one cut after a whole word.
    lines = wrap(has_path ? paths_cut_to(words, m, std::min(width, narrowest)) : words, m, width);
    QStringList out;
    for (int i = 0; i < max_lines - 1 && i < lines.size(); ++i)
        out << (m.horizontalAdvance(lines[i]) <= width ? lines[i] : m.elidedText(lines[i], Qt::ElideRight, width));
    if (lines.size() >= max_lines) out << elide_at_word(lines.mid(max_lines - 1).join(u' '), m, width);
    return out.join(u'\n');
}

StatusMessage::StatusMessage(QWidget* parent) : QLabel(parent) {
    setObjectName(QStringLiteral("status-message"));
    setTextFormat(Qt::PlainText);  // file names are not markup
    setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    // What the other permanent widgets leave: the text is fitted to the width, not the width to the text.
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    setIndent(2);
    // QStatusBar paints a temporary message itself, under this label; the label covers it.
    setAutoFillBackground(true);
}

void StatusMessage::set_message(const QString& message) {
    message_ = message;
    setToolTip(message);
    refit();
    updateGeometry();  // the width it asks for follows the message
}

bool StatusMessage::shown_whole() const {
    QString shown = text();
    shown.replace(u'\n', u' ');
    return shown == QString(message_).replace(u'\n', u' ');
}

// Widths from the whole message, never from the fitted text (that would feed back).
QSize StatusMessage::sizeHint() const {
    const int whole = fontMetrics().horizontalAdvance(message_) + indent() + 1;
    return {std::clamp(whole, kNarrowest, kWidth), QLabel::sizeHint().height()};
}

QSize StatusMessage::minimumSizeHint() const { return {kNarrowest, QLabel::minimumSizeHint().height()}; }

void StatusMessage::resizeEvent(QResizeEvent* event) {
    QLabel::resizeEvent(event);
    refit();
}

void StatusMessage::refit() {
    const int room = contentsRect().width() - indent() - 1;
    setText(message_.isEmpty() ? QString() : fit_status_text(message_, fontMetrics(), std::max(room, 40), kMaxLines));
}

}  // namespace precis::ui
