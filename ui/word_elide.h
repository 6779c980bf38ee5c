#pragma once
// Text cut to a width at a word boundary ("The classifier read the first…", never "The
// classifier read t…"), for one-line places such as the status bar; the full text belongs
// in a tooltip beside it.
#include <QFontMetrics>
#include <QString>

namespace precis::ui {

QString elide_at_word(const QString& text, const QFontMetrics& metrics, int width);

}  // namespace precis::ui
