#pragma once
// Library schema versions and migrations. PRAGMA user_version holds the version;
// opening a database runs every migration from its version up to kLibrarySchemaVersion,
// each in its own BEGIN IMMEDIATE transaction (so two processes opening the same old
// file at once migrate it once).
//
//   v1: documents, summaries, models.
//   v2: documents.page_offsets and documents.notes; classifications; batch_jobs and
//       batch_items; FTS5 indexes over document title+text and summary text, kept in
//       sync by triggers (existing rows are indexed during the migration).
//   v3: summaries.source_passages (NULL for older summaries).
//   v4: summaries.method ("neural" for older summaries).
//   v5: summary_sections, a long document's outline per summary (none for older
//       summaries), with an FTS5 index over the section summaries.
#include "app/library/sqlite_db.h"

namespace precis {

inline constexpr int kLibrarySchemaVersion = 5;
inline constexpr int kLibraryApplicationId = 0x50524353;  // "PRCS"

// The complete v1 schema as it shipped, kept so that migrations start from the real
// thing and tests can build a v1 file.
extern const char* const kLibrarySchemaV1;

// Read-only check before anything is changed: throws LibraryError Corrupt for a file that
// is not an SQLite database, Incompatible for a newer schema or another program's file.
void check_library_file(sqlite::Db& db);

// Brings the database to kLibrarySchemaVersion. Throws LibraryError (Incompatible for a
// newer schema or a foreign SQLite file).
void migrate_library(sqlite::Db& db);

}  // namespace precis
