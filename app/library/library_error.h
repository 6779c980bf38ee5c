#pragma once
#include <QString>
#include <stdexcept>

namespace precis {

enum class LibraryErrorKind {
    CannotOpen,    // file or folder cannot be opened or created
    DiskFull,
    ReadOnly,      // file, folder or medium is read-only, or permission denied
    Busy,          // another program kept the database locked past the busy timeout
    Corrupt,       // damaged file, or not an SQLite database at all
    Incompatible,  // written by a newer Precis, or an SQLite file of another program
    NotFound,      // the document, summary, job or item asked for does not exist
    Io,            // other input/output failure
    Other,
};

// One sentence naming the database path and the problem, e.g.
// `Cannot write to library "/home/a/.local/share/precis/library.sqlite": the disk is full.`
// When a write fails, its transaction has been rolled back: nothing is half-written.
class LibraryError : public std::runtime_error {
public:
    LibraryError(LibraryErrorKind kind, QString db_path, const QString& message, int sqlite_code = 0);
    LibraryErrorKind kind() const { return kind_; }
    const QString& db_path() const { return db_path_; }
    int sqlite_code() const { return sqlite_code_; }  // extended SQLite result code, 0 if none
    QString message() const { return QString::fromUtf8(what()); }

private:
    LibraryErrorKind kind_;
    QString db_path_;
    int sqlite_code_;
};

}  // namespace precis
