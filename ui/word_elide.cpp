#include "ui/word_elide.h"

namespace precis::ui {

QString elide_at_word(const QString& text, const QFontMetrics& metrics, int width) {
    if (metrics.horizontalAdvance(text) <= width) return text;
    const QString ellipsis = QStringLiteral("…");
    // The longest run of whole words that fits with the ellipsis; a first word too long for
    // the width is cut where it must be (there is no better place).
    qsizetype best = -1;
    for (qsizetype i = text.indexOf(u' '); i > 0; i = text.indexOf(u' ', i + 1)) {
        QString head = text.left(i);
        while (head.endsWith(u',') || head.endsWith(u';') || head.endsWith(u':')) head.chop(1);
        if (metrics.horizontalAdvance(head + ellipsis) > width) break;
        best = i;
    }
    if (best < 0) return metrics.elidedText(text, Qt::ElideRight, width);
    QString head = text.left(best);
    while (head.endsWith(u',') || head.endsWith(u';') || head.endsWith(u':')) head.chop(1);
    return head + ellipsis;
}

}  // namespace precis::ui
