#pragma once
// Thin RAII layer over the sqlite3 C API used by Library: a connection, prepared
// statements, and transactions that roll back unless committed. Every failure becomes
// a LibraryError naming the database path. Internal to app/library.
#include <QByteArray>
#include <QString>
#include <optional>

#include "app/library/library_error.h"

struct sqlite3;
struct sqlite3_stmt;

namespace precis::sqlite {

class Db;

class Stmt {
public:
    Stmt(Db& db, const char* sql);
    ~Stmt();
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;

    Stmt& bind(int index, qint64 v);
    Stmt& bind(int index, int v) { return bind(index, qint64(v)); }
    Stmt& bind(int index, bool v) { return bind(index, qint64(v ? 1 : 0)); }
    Stmt& bind(int index, double v);
    Stmt& bind(int index, const QString& v);
    Stmt& bind(int index, const QByteArray& v);  // as text
    // A file path as its native bytes (app/file_names.h), so names that are not UTF-8 are
    // stored exactly; read back with path().
    Stmt& bind_path(int index, const QString& path);
    Stmt& bind_null(int index);

    bool step();  // true: a row is available; false: done. Throws LibraryError.
    void run();   // steps to completion
    void reset();

    qint64 int64(int col) const;
    double real(int col) const;
    QString text(int col) const;
    QString path(int col) const;  // a column written with bind_path
    QByteArray bytes(int col) const;
    bool is_null(int col) const;

private:
    Db& db_;
    sqlite3_stmt* stmt_ = nullptr;
};

class Db {
public:
    enum class Mode {
        ReadWriteCreate,
        // Read only, and "file:" URIs understood in ATTACH, so a merge can attach its
        // inputs read only (app/library/library_merge.cpp).
        ReadOnly,
        ReadWriteAttachUris,
    };
    // Opens (or, ReadWriteCreate, creates), sets the busy timeout; throws LibraryError.
    explicit Db(const QString& path, Mode mode = Mode::ReadWriteCreate);
    ~Db();
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;

    sqlite3* handle() const { return db_; }
    const QString& path() const { return path_; }

    void exec(const char* sql);  // one or more statements without results
    qint64 last_insert_id() const;
    int changes() const;
    int pragma_int(const char* name);

    // Throws the LibraryError for `code` (an SQLite result code), with `doing` as context
    // for generic failures ("while adding a summary").
    [[noreturn]] void fail(int code, const char* doing = nullptr) const;
    // For a failure that is not an SQLite error.
    [[noreturn]] void fail(LibraryErrorKind kind, const QString& sentence_tail) const;

    static constexpr int kBusyTimeoutMs = 10000;

private:
    QString path_;
    sqlite3* db_ = nullptr;
};

// BEGIN IMMEDIATE (takes the write lock up front, waiting up to the busy timeout, so two
// writers never deadlock), COMMIT on commit(), ROLLBACK otherwise.
class WriteTransaction {
public:
    explicit WriteTransaction(Db& db);
    ~WriteTransaction();
    WriteTransaction(const WriteTransaction&) = delete;
    WriteTransaction& operator=(const WriteTransaction&) = delete;
    void commit();

private:
    Db& db_;
    bool done_ = false;
};

// A consistent snapshot for reads spanning several statements. Inside a transaction that
// is already open (a read that calls another, or a read within a write) it joins that one.
class ReadTransaction {
public:
    explicit ReadTransaction(Db& db);
    ~ReadTransaction();
    ReadTransaction(const ReadTransaction&) = delete;
    ReadTransaction& operator=(const ReadTransaction&) = delete;

private:
    Db& db_;
    bool owned_;  // this object began the transaction and ends it
};

}  // namespace precis::sqlite
