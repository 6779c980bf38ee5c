#pragma once
// A small HTTP/1.1 server on 127.0.0.1 that speaks the parts of the HuggingFace Hub's
// protocol Precis uses, for download tests that never reach the internet:
//   GET /api/models/{owner}/{name}/revision/{rev}[?blobs=true]  file list (sha, siblings
//       with size, blobId and lfs.sha256)
//   GET /{owner}/{name}/resolve/{rev}/{file}  small files served with X-Repo-Commit and
//       ETag; LFS files answered with a 302 to /lfs/{sha256} plus X-Linked-Etag and
//       X-Linked-Size, as the Hub sends its storage's address (another port: another origin)
//   GET /lfs/{sha256}  the bytes, honouring "Range: bytes=N-" (206, Content-Range; 416)
// Files are read in place (the fixtures are never copied). Faults on request: drop the
// connection once mid-file, serve a corrupted byte, refuse without a token (401,
// X-Error-Code GatedRepo), serve slowly. It runs on its own thread, so a test may block
// (a download's event loop, a child process) while it serves. Every request is logged.
#include <QByteArray>
#include <QString>

#include <filesystem>
#include <memory>
#include <vector>

namespace precis::test {

struct FakeHubFile {
    QString name;                   // path in the repo
    std::filesystem::path source;   // read from here, or
    QByteArray content;             // these bytes when source is empty
    bool lfs = false;               // served through a redirect to /lfs/, checked by sha256
};

struct FakeHubRequest {
    QByteArray path;           // as sent, with the query
    QByteArray range;          // the Range header, empty if none
    QByteArray authorization;  // the Authorization header, empty if none
};

class FakeHub {
public:
    FakeHub();   // listening once constructed
    ~FakeHub();
    FakeHub(const FakeHub&) = delete;
    FakeHub& operator=(const FakeHub&) = delete;

    QString endpoint() const;  // "http://127.0.0.1:PORT"
    void add_repo(const QString& repo, const std::vector<FakeHubFile>& files);
    QString commit(const QString& repo) const;  // the 40-hex commit id the repo resolves to

    // The next transfer of `file` that covers byte `offset` stops there: the server closes
    // the connection although the Content-Length promised more.
    void drop_connection_once(const QString& file, qint64 offset);
    // `file` is served with the byte at `offset` flipped (sizes and hashes still announce the original).
    void corrupt_byte(const QString& file, qint64 offset);
    // Without "Authorization: Bearer <token>" the repo answers 401 with X-Error-Code: GatedRepo.
    void require_token(const QString& repo, const QString& token);
    // File bodies go out `bytes` at a time every `interval_ms` (0 bytes: at once). Takes effect
    // on transfers under way too.
    void set_pace(qint64 bytes, int interval_ms);

    std::vector<FakeHubRequest> requests() const;
    bool requested(const QString& path_part) const;  // any request path containing it
    bool ranged_request_for(const QString& file) const;  // a Range request for an /lfs/ body of `file`

    struct State;

private:
    std::shared_ptr<State> state_;
    class Thread;
    std::unique_ptr<Thread> thread_;
};

// The fixture checkpoint as a Hub repo: bart-tiny-realvocab's config and weights (LFS)
// plus the real BART tokenizer files, and decoy files Precis must not fetch
// (pytorch_model.bin beside safetensors, tf_model.h5, README.md).
std::vector<FakeHubFile> fixture_hub_files();

}  // namespace precis::test
