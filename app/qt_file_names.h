#pragma once
// Qt hands the window file names as text it decoded itself: a file dialog's choice went
// through QFile::decodeName, and a dropped file's URL through QUrl::toLocalFile, both of
// which turn bytes that are not UTF-8 into U+FFFD. These functions get the exact bytes
// back, as the lossless QStrings of app/file_names.h, so such a document can be opened
// from the window like any other.
#include <QString>
#include <QUrl>
#include <QVariant>

namespace precis {

// The file a dialog meant by `chosen`. A path that exists as given is returned as is;
// otherwise (absolute paths only) each missing component is looked up among its folder's real entries by the
// text Qt would show for them, and taken when exactly one entry matches (two names that
// differ only in their undecodable bytes stay ambiguous and are left as they were).
QString path_from_dialog(const QString& chosen);

// The local file a URL names, from its percent-encoded bytes rather than Qt's UTF-8
// decoding of them. Empty for a URL that is not a local file.
QString path_from_local_url(const QUrl& url);

// A path as a QSettings value that keeps its bytes: text when the name is UTF-8 (so the
// settings file stays readable and earlier settings read as before), the native bytes
// otherwise (QSettings writes text through UTF-8, which would turn them into '?').
QVariant path_setting_value(const QString& path);
// The path a setting holds, written by path_setting_value or by hand as text.
QString path_from_setting(const QVariant& value);

}  // namespace precis
