#pragma once
// Downloading a model from the HuggingFace Hub with the Hub's own protocol:
//  - the file list from the models API, GET {endpoint}/api/models/{repo}/revision/{rev}?blobs=true
//    (the commit it resolves to, each file's size, git blob id and, for LFS files, sha256);
//  - each file from {endpoint}/{repo}/resolve/{commit}/{file}, redirects followed by hand so
//    the token never leaves the Hub's host and the X-Repo-Commit / X-Linked-Etag /
//    X-Linked-Size headers of the Hub's answer are read;
//  - only what Precis needs: config, tokenizer files and one set of weights (safetensors
//    preferred over pytorch_model.bin);
//  - HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE honoured (hub_environment.h), the system proxy used.
// Files are written to "<file>.partial" in a hidden folder beside the models
// (".<name>.download"), resumed with an HTTP Range request after a dropped connection or
// in a later run, checked against the Hub's sha256 (git blob sha1 for small files) and
// size, and the folder is renamed to <name> only when every file is complete and verified.
// Runs a local event loop, so it blocks the calling thread: the GUI calls it on a worker
// thread. Errors are precis::Error with one sentence; a cancel is precis::Cancelled.
#include <QString>

#include <filesystem>
#include <functional>
#include <vector>

namespace precis::models {

struct HubFile {
    QString name;       // path in the repo ("model.safetensors")
    qint64 size = -1;   // -1: not given
    QString sha256;     // LFS files
    QString blob_id;    // git blob sha1 (small files)
    bool lfs = false;
};

struct HubRepoInfo {
    QString repo, commit;
    std::vector<HubFile> files;
};

// The files of a checkpoint Precis downloads: config.json, generation_config.json, the
// tokenizer files and one set of weights (model.safetensors or its shards, else
// pytorch_model.bin or its shards). Throws precis::Error naming the repo when there is no
// config.json or no weights Precis reads.
std::vector<HubFile> files_precis_needs(const HubRepoInfo& info);

struct DownloadRequest {
    QString repo;                          // "owner/name"
    QString revision = QStringLiteral("main");  // branch, tag or commit
    QString name;                          // folder under models_root; empty: the repo's name
                                           // (with "-lsg-N" when converting)
    std::filesystem::path models_root;     // empty: user_models_dir()
    QString endpoint;                      // empty: hub_endpoint()
    QString token;                         // empty: hub_token()
    int convert_lsg = 0;                   // >0: turn a plain BART into LSG with this many positions
    bool make_default_if_first = true;     // a summarizer becomes the default when none is set
    qint64 assume_free_bytes = -1;         // tests: pretend the disk has this much room
};

enum class DownloadStage { Listing, Downloading, Converting };

struct DownloadProgress {
    DownloadStage stage = DownloadStage::Listing;
    QString file;                 // the file being fetched
    qint64 done = 0, total = 0;   // bytes of the whole model (files already complete count as done)
    double bytes_per_second = 0;  // over the last few seconds; 0 until known
    double seconds_left = -1;     // -1: unknown
};

struct DownloadCallbacks {
    std::function<void(const DownloadProgress&)> progress;  // called on the downloading thread
    std::function<bool()> should_abort;                     // polled about ten times a second
};

struct DownloadResult {
    std::filesystem::path dir;   // the installed model
    QString name, repo, commit;
    int files = 0;
    qint64 bytes = 0;            // size of the model's files
    qint64 bytes_fetched = 0;    // transferred by this call (less when resumed)
    int resumed_transfers = 0;   // transfers that continued a partial file with Range
    double seconds = 0;
    bool converted = false;
    bool became_default = false;
};

// The repo's file list at `revision` (models API). Throws precis::Error for offline, 401/403,
// 404 and malformed answers.
HubRepoInfo fetch_repo_info(const QString& endpoint, const QString& repo, const QString& revision,
                            const QString& token, const DownloadCallbacks& cb = {});

DownloadResult download_model(const DownloadRequest& request, const DownloadCallbacks& cb = {});

// The hidden folder a download of `name` collects its files in (kept after a cancel or a
// dropped connection, so the next download of the same name resumes).
std::filesystem::path download_staging_dir(const std::filesystem::path& models_root, const QString& name);

}  // namespace precis::models
