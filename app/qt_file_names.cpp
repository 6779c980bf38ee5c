#include "app/qt_file_names.h"

#include <QFile>
#include <QStringList>
#include <filesystem>
#include <system_error>

#include "app/file_names.h"

namespace precis {

namespace {

bool exists_natively(const QString& path) {
    std::error_code ec;
    return std::filesystem::exists(native_path(path), ec);
}

// The one entry of `folder` whose name Qt shows as `shown`; empty when none or several.
QString entry_shown_as(const QString& folder, const QString& shown) {
    QString found;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(native_path(folder), ec), end;
         !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().native();  // a copy: filename() is a temporary
        if (QFile::decodeName(QByteArray(name.data(), qsizetype(name.size()))) != shown) continue;
        if (!found.isEmpty()) return {};  // ambiguous: guessing could open the wrong file
        found = path_from_native(name);
    }
    return found;
}

}  // namespace

QString path_from_dialog(const QString& chosen) {
    // Dialogs give absolute paths; anything else is left to the caller's own checks.
    if (!chosen.startsWith(QLatin1Char('/')) || exists_natively(chosen)) return chosen;
    QString resolved;  // empty for the root folder
    for (const QString& part : chosen.split(QLatin1Char('/'), Qt::SkipEmptyParts)) {
        QString next = resolved + QLatin1Char('/') + part;
        if (!exists_natively(next)) {
            const QString entry = entry_shown_as(resolved.isEmpty() ? QStringLiteral("/") : resolved, part);
            if (entry.isEmpty()) return chosen;
            next = resolved + QLatin1Char('/') + entry;
        }
        resolved = next;
    }
    return resolved;
}

QString path_from_local_url(const QUrl& url) {
    if (!url.isLocalFile()) return {};
    // FullyEncoded keeps every byte that is not UTF-8 as %XX; decoding that is exact.
    const QByteArray bytes = QByteArray::fromPercentEncoding(url.path(QUrl::FullyEncoded).toLatin1());
    return path_from_native(bytes);
}

QVariant path_setting_value(const QString& path) {
    const QByteArray bytes = path_to_native(path);
    if (path.toUtf8() == bytes) return path;
    return bytes;
}

QString path_from_setting(const QVariant& value) {
    if (value.typeId() == QMetaType::QByteArray) return path_from_native(value.toByteArray());
    return value.toString();
}

}  // namespace precis
