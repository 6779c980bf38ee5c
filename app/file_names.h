#pragma once
// Linux file names are bytes, not text. Precis carries them in QStrings without losing a
// byte: valid UTF-8 becomes text, and each byte that is not part of valid UTF-8 becomes
// the lone surrogate U+DC80 + (byte - 0x80), the scheme Python calls "surrogateescape".
// Such a QString must reach the file system through path_to_native()/native_path(),
// never through QFile/QFileInfo (Qt would turn the surrogates into '?'), and is shown to
// people through path_for_display(), which writes the odd bytes as \xNN.
#include <QByteArray>
#include <QString>

#include <filesystem>
#include <string_view>

namespace precis {

QString path_from_native(std::string_view bytes);
inline QString path_from_native(const QByteArray& bytes) {
    return path_from_native(std::string_view(bytes.constData(), size_t(bytes.size())));
}
inline QString path_from_fs(const std::filesystem::path& p) { return path_from_native(p.native()); }

QByteArray path_to_native(const QString& path);
inline std::filesystem::path native_path(const QString& path) { return std::filesystem::path(path_to_native(path).toStdString()); }

// The absolute, lexically cleaned form ("." and ".." resolved, no trailing slash), like
// QDir::cleanPath(QFileInfo(p).absoluteFilePath()) but without losing bytes.
QString absolute_clean_path(const QString& path);

// The path for messages, lists and exports: escaped bytes as "\xNN", control characters
// too; everything else as it is. Always valid UTF-8 once converted with toUtf8().
QString path_for_display(const QString& path);
inline std::string display_utf8(const QString& path) { return path_for_display(path).toStdString(); }

}  // namespace precis
