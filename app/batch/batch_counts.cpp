#include "app/batch/batch_counts.h"

#include <QCoreApplication>
#include <QStringList>

#include "app/batch/batch_runner.h"

namespace precis {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("BatchCounts", text); }

// "(1 now, 2 before)": the split of one count between this run and earlier ones (and,
// for summaries, those the library already had).
QString split(int now, int before, int kept = 0) {
    QStringList parts;
    if (now > 0 || (before == 0 && kept == 0)) parts << tr("%1 now").arg(now);
    if (kept > 0) parts << tr("%1 already in the library").arg(kept);
    if (before > 0) parts << tr("%1 before").arg(before);
    return QStringLiteral("(") + parts.join(QStringLiteral(", ")) + QStringLiteral(")");
}

}  // namespace

BatchCounts batch_counts(const BatchReport& report) {
    BatchCounts c;
    c.total = report.total;
    c.done_before = report.done_before;
    c.done_now = report.done_now;
    c.kept = report.kept;
    c.failed_before = int(report.failed_before.size());
    c.failed_now = int(report.failures.size());
    return c;
}

QString batch_counts_text(const BatchCounts& c) {
    QStringList parts;
    parts << tr("%1 summarized %2").arg(c.done()).arg(split(c.done_now, c.done_before, c.kept));
    if (c.failed() > 0) parts << tr("%1 failed %2").arg(c.failed()).arg(split(c.failed_now, c.failed_before));
    if (c.not_reached() > 0) parts << tr("%1 not reached yet").arg(c.not_reached());
    const QString files = c.total == 1 ? tr("1 file") : tr("%1 files").arg(c.total);
    return files + QStringLiteral(": ") + parts.join(QStringLiteral(", "));
}

}  // namespace precis
