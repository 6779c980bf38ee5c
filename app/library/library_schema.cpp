#include "app/library/library_schema.h"

namespace precis {

#define PRECIS_NOW "(strftime('%Y-%m-%dT%H:%M:%fZ','now'))"

const char* const kLibrarySchemaV1 = R"sql(
CREATE TABLE documents (
  id           INTEGER PRIMARY KEY,
  path         TEXT NOT NULL,
  content_hash TEXT NOT NULL UNIQUE,
  title        TEXT NOT NULL DEFAULT '',
  pages        INTEGER NOT NULL DEFAULT 0,
  text         TEXT NOT NULL,
  encoding     TEXT NOT NULL DEFAULT '',
  added_at     TEXT NOT NULL DEFAULT )sql" PRECIS_NOW R"sql(
);
CREATE TABLE summaries (
  id               INTEGER PRIMARY KEY,
  document_id      INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  model_name       TEXT NOT NULL,
  model_path       TEXT NOT NULL DEFAULT '',
  parameters       TEXT NOT NULL DEFAULT '{}',
  summary          TEXT NOT NULL,
  summary_ids      TEXT NOT NULL DEFAULT '[]',
  input_tokens     INTEGER NOT NULL DEFAULT 0,
  truncated        INTEGER NOT NULL DEFAULT 0,
  seconds_encode   REAL NOT NULL DEFAULT 0,
  seconds_generate REAL NOT NULL DEFAULT 0,
  device           TEXT NOT NULL DEFAULT '',
  created_at       TEXT NOT NULL DEFAULT )sql" PRECIS_NOW R"sql(
);
CREATE INDEX summaries_by_document ON summaries(document_id, created_at);
CREATE TABLE models (
  id           INTEGER PRIMARY KEY,
  name         TEXT NOT NULL,
  path         TEXT NOT NULL UNIQUE,
  architecture TEXT NOT NULL DEFAULT '',
  attention    TEXT NOT NULL DEFAULT '',
  imported_at  TEXT NOT NULL DEFAULT )sql" PRECIS_NOW R"sql(
);
)sql";

namespace {

const char* const kMigrateV1ToV2 = R"sql(
ALTER TABLE documents ADD COLUMN page_offsets TEXT NOT NULL DEFAULT '[]';
ALTER TABLE documents ADD COLUMN notes TEXT NOT NULL DEFAULT '[]';

CREATE TABLE classifications (
  id          INTEGER PRIMARY KEY,
  document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  model_name  TEXT NOT NULL,
  parameters  TEXT NOT NULL DEFAULT '{}',
  label       TEXT NOT NULL,
  score       REAL NOT NULL,
  created_at  TEXT NOT NULL DEFAULT )sql" PRECIS_NOW R"sql(
);
CREATE INDEX classifications_by_document ON classifications(document_id);
CREATE INDEX classifications_by_label ON classifications(label, score);

CREATE TABLE batch_jobs (
  id         INTEGER PRIMARY KEY,
  root       TEXT NOT NULL,
  settings   TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL DEFAULT )sql" PRECIS_NOW R"sql(,
  updated_at TEXT NOT NULL DEFAULT )sql" PRECIS_NOW R"sql(,
  UNIQUE(root, settings)
);
CREATE TABLE batch_items (
  id         INTEGER PRIMARY KEY,
  job_id     INTEGER NOT NULL REFERENCES batch_jobs(id) ON DELETE CASCADE,
  path       TEXT NOT NULL,
  status     TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed')),
  error      TEXT NOT NULL DEFAULT '',
  summary_id INTEGER REFERENCES summaries(id) ON DELETE SET NULL,
  updated_at TEXT NOT NULL DEFAULT )sql" PRECIS_NOW R"sql(,
  UNIQUE(job_id, path)
);
CREATE INDEX batch_items_by_summary ON batch_items(summary_id);

CREATE VIRTUAL TABLE documents_fts USING fts5(
  title, text, content='documents', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER documents_fts_insert AFTER INSERT ON documents BEGIN
  INSERT INTO documents_fts(rowid, title, text) VALUES (new.id, new.title, new.text);
END;
CREATE TRIGGER documents_fts_delete AFTER DELETE ON documents BEGIN
  INSERT INTO documents_fts(documents_fts, rowid, title, text) VALUES ('delete', old.id, old.title, old.text);
END;
CREATE TRIGGER documents_fts_update AFTER UPDATE OF title, text ON documents BEGIN
  INSERT INTO documents_fts(documents_fts, rowid, title, text) VALUES ('delete', old.id, old.title, old.text);
  INSERT INTO documents_fts(rowid, title, text) VALUES (new.id, new.title, new.text);
END;
INSERT INTO documents_fts(documents_fts) VALUES ('rebuild');

CREATE VIRTUAL TABLE summaries_fts USING fts5(
  summary, content='summaries', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER summaries_fts_insert AFTER INSERT ON summaries BEGIN
  INSERT INTO summaries_fts(rowid, summary) VALUES (new.id, new.summary);
END;
CREATE TRIGGER summaries_fts_delete AFTER DELETE ON summaries BEGIN
  INSERT INTO summaries_fts(summaries_fts, rowid, summary) VALUES ('delete', old.id, old.summary);
END;
CREATE TRIGGER summaries_fts_update AFTER UPDATE OF summary ON summaries BEGIN
  INSERT INTO summaries_fts(summaries_fts, rowid, summary) VALUES ('delete', old.id, old.summary);
  INSERT INTO summaries_fts(rowid, summary) VALUES (new.id, new.summary);
END;
INSERT INTO summaries_fts(summaries_fts) VALUES ('rebuild');
)sql";

// v3: the source passages a summary drew on, as a JSON array of {begin, end, page,
// weight}; NULL for summaries made before (they can be re-traced and stored later).
const char* const kMigrateV2ToV3 = R"sql(
ALTER TABLE summaries ADD COLUMN source_passages TEXT;
)sql";

// v4: how each summary was made, "neural" (a model) or "extractive" (the document's own
// sentences); every summary before v4 came from a model.
const char* const kMigrateV3ToV4 = R"sql(
ALTER TABLE summaries ADD COLUMN method TEXT NOT NULL DEFAULT 'neural';
)sql";

// v5: the outline of a summary made section by section (app/long/outline_section.h), one
// row per section in document order; none for summaries made in one pass or before v5.
// The section summaries get their own full-text index, kept in sync like the others.
// Documents keep their PDF outline (bookmarks: title, level, page, offset), which the
// section windows follow; '[]' for text files and documents added before v5.
const char* const kMigrateV4ToV5 = R"sql(
ALTER TABLE documents ADD COLUMN outline TEXT NOT NULL DEFAULT '[]';
CREATE TABLE summary_sections (
  id         INTEGER PRIMARY KEY,
  summary_id INTEGER NOT NULL REFERENCES summaries(id) ON DELETE CASCADE,
  position   INTEGER NOT NULL,
  title      TEXT NOT NULL DEFAULT '',
  start      INTEGER NOT NULL DEFAULT 0,
  "end"      INTEGER NOT NULL DEFAULT 0,
  first_page INTEGER NOT NULL DEFAULT -1,
  last_page  INTEGER NOT NULL DEFAULT -1,
  summary    TEXT NOT NULL DEFAULT '',
  tokens     INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX summary_sections_by_summary ON summary_sections(summary_id, position);

CREATE VIRTUAL TABLE summary_sections_fts USING fts5(
  summary, content='summary_sections', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER summary_sections_fts_insert AFTER INSERT ON summary_sections BEGIN
  INSERT INTO summary_sections_fts(rowid, summary) VALUES (new.id, new.summary);
END;
CREATE TRIGGER summary_sections_fts_delete AFTER DELETE ON summary_sections BEGIN
  INSERT INTO summary_sections_fts(summary_sections_fts, rowid, summary) VALUES ('delete', old.id, old.summary);
END;
CREATE TRIGGER summary_sections_fts_update AFTER UPDATE OF summary ON summary_sections BEGIN
  INSERT INTO summary_sections_fts(summary_sections_fts, rowid, summary) VALUES ('delete', old.id, old.summary);
  INSERT INTO summary_sections_fts(rowid, summary) VALUES (new.id, new.summary);
END;
INSERT INTO summary_sections_fts(summary_sections_fts) VALUES ('rebuild');
)sql";

#undef PRECIS_NOW

struct Migration {
    int to_version;
    const char* sql;
};

const Migration kMigrations[] = {
    {1, kLibrarySchemaV1},
    {2, kMigrateV1ToV2},
    {3, kMigrateV2ToV3},
    {4, kMigrateV3ToV4},
    {5, kMigrateV4ToV5},
};
static_assert(sizeof(kMigrations) / sizeof(kMigrations[0]) == kLibrarySchemaVersion);

}  // namespace

namespace {

[[noreturn]] void fail_newer(sqlite::Db& db, int version) {
    db.fail(LibraryErrorKind::Incompatible,
            QStringLiteral("was written by a newer version of Precis (schema %1; this version reads up to %2); "
                           "update Precis to open it.")
                .arg(version)
                .arg(kLibrarySchemaVersion));
}

// A file with tables but no Precis schema version belongs to another program.
void check_not_foreign(sqlite::Db& db) {
    sqlite::Stmt tables(db, "SELECT count(*) FROM sqlite_master");
    tables.step();
    const int app_id = db.pragma_int("application_id");
    if (tables.int64(0) > 0 || (app_id != 0 && app_id != kLibraryApplicationId))
        db.fail(LibraryErrorKind::Incompatible, QStringLiteral("is an SQLite file of another program, not a Precis library."));
}

}  // namespace

void check_library_file(sqlite::Db& db) {
    const int version = db.pragma_int("user_version");  // SQLITE_NOTADB here for a file that is not a database
    if (version > kLibrarySchemaVersion) fail_newer(db, version);
    if (version == 0) check_not_foreign(db);
}

void migrate_library(sqlite::Db& db) {
    for (const Migration& m : kMigrations) {
        if (db.pragma_int("user_version") >= m.to_version) continue;  // cheap check without the write lock
        sqlite::WriteTransaction tx(db);
        const int version = db.pragma_int("user_version");  // again under the lock: another process may have migrated
        if (version >= m.to_version) continue;
        if (version == 0) {
            check_not_foreign(db);
            db.exec(QStringLiteral("PRAGMA application_id = %1").arg(kLibraryApplicationId).toUtf8().constData());
        }
        db.exec(m.sql);
        db.exec(QStringLiteral("PRAGMA user_version = %1").arg(m.to_version).toUtf8().constData());
        tx.commit();
    }
    const int version = db.pragma_int("user_version");
    if (version > kLibrarySchemaVersion) fail_newer(db, version);
}

}  // namespace precis
