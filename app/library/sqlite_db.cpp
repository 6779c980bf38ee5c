#include "app/library/sqlite_db.h"

#include <filesystem>
#include <sqlite3.h>
#include <system_error>

#include "app/file_names.h"

namespace precis {

LibraryError::LibraryError(LibraryErrorKind kind, QString db_path, const QString& message, int sqlite_code)
    : std::runtime_error(message.toStdString()), kind_(kind), db_path_(std::move(db_path)), sqlite_code_(sqlite_code) {}

namespace sqlite {
namespace {

QString shown(const QString& path) { return QStringLiteral("\"%1\"").arg(path_for_display(path)); }

}  // namespace

void Db::fail(LibraryErrorKind kind, const QString& sentence_tail) const {
    throw LibraryError(kind, path_, QStringLiteral("Library %1 %2").arg(shown(path_), sentence_tail));
}

void Db::fail(int code, const char* doing) const {
    const QString p = shown(path_);
    const QString detail = db_ ? QString::fromUtf8(sqlite3_errmsg(db_)) : QString::fromUtf8(sqlite3_errstr(code));
    const QString context = doing ? QStringLiteral(" while %1").arg(QLatin1String(doing)) : QString();
    LibraryErrorKind kind = LibraryErrorKind::Other;
    QString msg;
    switch (code & 0xff) {
        case SQLITE_FULL:
            kind = LibraryErrorKind::DiskFull;
            msg = QStringLiteral("Cannot write to library %1: the disk is full.").arg(p);
            break;
        case SQLITE_READONLY:
            kind = LibraryErrorKind::ReadOnly;
            msg = QStringLiteral("Cannot write to library %1: it is read-only.").arg(p);
            break;
        case SQLITE_PERM:
        case SQLITE_AUTH:
            kind = LibraryErrorKind::ReadOnly;
            msg = QStringLiteral("Cannot use library %1: permission denied.").arg(p);
            break;
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
            kind = LibraryErrorKind::Busy;
            msg = QStringLiteral("Library %1 is busy: another program kept it locked for more than %2 seconds.")
                      .arg(p)
                      .arg(kBusyTimeoutMs / 1000);
            break;
        case SQLITE_CORRUPT:
        case SQLITE_NOTADB:
            kind = LibraryErrorKind::Corrupt;
            msg = QStringLiteral("Library %1 is damaged or is not a Precis library.").arg(p);
            break;
        case SQLITE_CANTOPEN:
            kind = LibraryErrorKind::CannotOpen;
            msg = QStringLiteral("Cannot open library %1: the file or its folder cannot be opened or created.").arg(p);
            break;
        case SQLITE_IOERR:
            kind = LibraryErrorKind::Io;
            msg = QStringLiteral("Cannot read or write library %1: input/output error (%2).").arg(p, detail);
            break;
        case SQLITE_NOMEM:
            msg = QStringLiteral("Library %1 ran out of memory%2.").arg(p, context);
            break;
        default:
            msg = QStringLiteral("Library %1 failed%2: %3.").arg(p, context, detail);
            break;
    }
    throw LibraryError(kind, path_, msg, code);
}

Db::Db(const QString& path, Mode mode) : path_(path) {
    // The path's own bytes (app/file_names.h): Qt's encoding would open another file when
    // the name is not UTF-8.
    const QByteArray native = path_to_native(path);
    if (mode == Mode::ReadWriteCreate && !path.isEmpty() && path != QLatin1String(":memory:")) {
        std::error_code ec;  // a folder that cannot be made shows up as SQLITE_CANTOPEN below
        std::filesystem::create_directories(std::filesystem::absolute(native.toStdString(), ec).parent_path(), ec);
    }
    const int flags = mode == Mode::ReadOnly              ? SQLITE_OPEN_READONLY
                      : mode == Mode::ReadWriteAttachUris ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI
                                                          : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    const int rc = sqlite3_open_v2(native.constData(), &db_, flags, nullptr);
    if (rc != SQLITE_OK) {
        if (db_) {
            sqlite3_close_v2(db_);
            db_ = nullptr;
        }
        fail(rc, "opening it");
    }
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
}

Db::~Db() {
    if (db_) sqlite3_close_v2(db_);
}

void Db::exec(const char* sql) {
    char* err = nullptr;
    const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err);
    if (err) sqlite3_free(err);
    if (rc != SQLITE_OK) fail(rc);
}

qint64 Db::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }
int Db::changes() const { return sqlite3_changes(db_); }

int Db::pragma_int(const char* name) {
    Stmt st(*this, QStringLiteral("PRAGMA %1").arg(QLatin1String(name)).toUtf8().constData());
    return st.step() ? int(st.int64(0)) : 0;
}

Stmt::Stmt(Db& db, const char* sql) : db_(db) {
    const int rc = sqlite3_prepare_v2(db.handle(), sql, -1, &stmt_, nullptr);
    if (rc != SQLITE_OK) db.fail(rc);
}

Stmt::~Stmt() { sqlite3_finalize(stmt_); }

Stmt& Stmt::bind(int index, qint64 v) {
    const int rc = sqlite3_bind_int64(stmt_, index, v);
    if (rc != SQLITE_OK) db_.fail(rc);
    return *this;
}

Stmt& Stmt::bind(int index, double v) {
    const int rc = sqlite3_bind_double(stmt_, index, v);
    if (rc != SQLITE_OK) db_.fail(rc);
    return *this;
}

Stmt& Stmt::bind(int index, const QString& v) { return bind(index, v.toUtf8()); }

Stmt& Stmt::bind(int index, const QByteArray& v) {
    // An empty QByteArray has a non-null constData(), so this binds '' rather than NULL.
    const int rc = sqlite3_bind_text64(stmt_, index, v.constData(), sqlite3_uint64(v.size()), SQLITE_TRANSIENT, SQLITE_UTF8);
    if (rc != SQLITE_OK) db_.fail(rc);
    return *this;
}

Stmt& Stmt::bind_null(int index) {
    const int rc = sqlite3_bind_null(stmt_, index);
    if (rc != SQLITE_OK) db_.fail(rc);
    return *this;
}

bool Stmt::step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    sqlite3_reset(stmt_);
    db_.fail(rc);
}

void Stmt::run() {
    while (step()) {
    }
}

void Stmt::reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

qint64 Stmt::int64(int col) const { return sqlite3_column_int64(stmt_, col); }
double Stmt::real(int col) const { return sqlite3_column_double(stmt_, col); }
bool Stmt::is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

QByteArray Stmt::bytes(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? QByteArray(p, sqlite3_column_bytes(stmt_, col)) : QByteArray();
}

Stmt& Stmt::bind_path(int index, const QString& path) { return bind(index, path_to_native(path)); }

QString Stmt::path(int col) const { return path_from_native(bytes(col)); }

QString Stmt::text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? QString::fromUtf8(p, sqlite3_column_bytes(stmt_, col)) : QString();
}

WriteTransaction::WriteTransaction(Db& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

WriteTransaction::~WriteTransaction() {
    // After some errors (SQLITE_FULL, IOERR) SQLite has already rolled back.
    if (!done_ && !sqlite3_get_autocommit(db_.handle())) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void WriteTransaction::commit() {
    db_.exec("COMMIT");
    done_ = true;
}

ReadTransaction::ReadTransaction(Db& db) : db_(db), owned_(sqlite3_get_autocommit(db.handle()) != 0) {
    if (owned_) db_.exec("BEGIN DEFERRED");
}

ReadTransaction::~ReadTransaction() {
    if (owned_ && !sqlite3_get_autocommit(db_.handle())) sqlite3_exec(db_.handle(), "COMMIT", nullptr, nullptr, nullptr);
}

}  // namespace sqlite
}  // namespace precis
