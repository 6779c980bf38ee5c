#include "app/models/hub_download.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLockFile>
#include <QRegularExpression>
#include <QSaveFile>
#include <QStorageInfo>
#include <QUrl>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <map>
#include <set>

#include "app/models/catalog.h"
#include "app/models/hub_environment.h"
#include "app/models/hub_http_client.h"
#include "app/models/model_store.h"
#include "app/paths.h"
#include "engine/convert/bart_to_lsg.h"
#include "engine/core/byte_progress.h"
#include "engine/core/error.h"
#include "engine/config/config.h"

namespace precis::models {

namespace fs = std::filesystem;

namespace {

// Attempts at one file that bring no new bytes before the download gives up.
constexpr int kMaxFruitlessAttempts = 3;

std::string s(const QString& q) { return q.toStdString(); }

// One sentence for an answer that is not the file or list asked for. `what`: "the file
// list of owner/name", "config.json of owner/name".
[[noreturn]] void throw_for(const Response& r, const HubHttpClient& http, const QString& repo, const QString& revision,
                            const QString& what) {
    if (r.aborted) throw Cancelled();
    const std::string host = s(http.endpoint().host());
    const std::string code = r.error_code.toStdString();
    const std::string status = " (HTTP " + std::to_string(r.status) + ")";
    if (r.status == 0)
        throw Error("Cannot reach " + host + " to download " + s(repo) + ": " + s(r.error_text) +
                    " (offline? a proxy needed? HF_ENDPOINT names another server).");
    if (r.status == 401 || r.status == 403) {
        if (code == "GatedRepo")
            throw Error(s(repo) + " is gated or private: accept its terms on " + host +
                        " and set HF_TOKEN to a token of that account" + status + ".");
        throw Error(s(repo) + " is gated or private, or does not exist: set HF_TOKEN to a token that has access" +
                    (http.has_token() ? " (the token given was refused)" : "") + status + ".");
    }
    if (r.status == 404) {
        if (code == "RevisionNotFound")
            throw Error(s(repo) + " has no revision '" + s(revision) + "' on " + host + status + ".");
        if (code == "EntryNotFound") throw Error(s(what) + " was not found on " + host + status + ".");
        throw Error(s(repo) + " was not found on " + host + ": check the name (owner/name)" + status + ".");
    }
    QString detail = QString::fromUtf8(r.error_message);
    if (detail.isEmpty()) detail = QString::fromUtf8(r.body.left(200)).simplified();
    if (detail.isEmpty()) detail = r.error_text;
    throw Error(host + " could not send " + s(what) + status + ": " + s(detail) + ".");
}

QString encode_segment(const QString& v) { return QString::fromLatin1(QUrl::toPercentEncoding(v)); }
QString encode_path(const QString& v) { return QString::fromLatin1(QUrl::toPercentEncoding(v, "/")); }

// Bytes done and transfer speed over the last few seconds.
class Meter {
public:
    explicit Meter(const DownloadCallbacks& cb) : cb_(cb) { clock_.start(); }
    qint64 total = 0, done = 0, fetched = 0;
    QString file;
    DownloadStage stage = DownloadStage::Listing;

    void report() {
        if (!cb_.progress) return;
        const qint64 now = clock_.elapsed();
        samples_.push_back({now, fetched});
        while (samples_.size() > 2 && now - samples_[1].first >= 5000) samples_.pop_front();
        DownloadProgress p;
        p.stage = stage;
        p.file = file;
        p.done = done;
        p.total = total;
        const auto& [t0, f0] = samples_.front();
        if (now - t0 >= 300) p.bytes_per_second = double(fetched - f0) * 1000.0 / double(now - t0);
        if (p.bytes_per_second > 0) p.seconds_left = double(std::max<qint64>(0, total - done)) / p.bytes_per_second;
        cb_.progress(p);
    }
    double seconds() const { return double(clock_.elapsed()) / 1000.0; }

private:
    const DownloadCallbacks& cb_;
    QElapsedTimer clock_;
    std::deque<std::pair<qint64, qint64>> samples_;
};

bool is_hex(const QByteArray& v, int length) {
    static const QRegularExpression hex(QStringLiteral("^[0-9a-f]+$"));
    return v.size() == length && hex.match(QString::fromLatin1(v)).hasMatch();
}

// The hash a file is checked with: sha256 for LFS files, git's blob sha1 otherwise.
struct Checksum {
    QCryptographicHash::Algorithm algorithm = QCryptographicHash::Sha256;
    QByteArray expected;  // lower-case hex; empty: size only
    QByteArray git_prefix;

    static Checksum for_file(const HubFile& f) {
        Checksum c;
        if (!f.sha256.isEmpty()) {
            c.expected = f.sha256.toLower().toLatin1();
        } else if (!f.blob_id.isEmpty() && f.size >= 0) {
            c.algorithm = QCryptographicHash::Sha1;
            c.expected = f.blob_id.toLower().toLatin1();
            c.git_prefix = "blob " + QByteArray::number(f.size) + '\0';
        }
        return c;
    }
    void start(QCryptographicHash& h) const {
        h.reset();
        if (!git_prefix.isEmpty()) h.addData(git_prefix);
    }
};

void hash_file_into(const fs::path& path, QCryptographicHash& h, const DownloadCallbacks& cb) {
    QFile f(QString::fromStdString(path.string()));
    if (!f.open(QIODevice::ReadOnly)) throw Error("Cannot read " + path.string() + ".");
    while (!f.atEnd()) {
        if (cb.should_abort && cb.should_abort()) throw Cancelled();
        const QByteArray chunk = f.read(qint64(kByteProgressChunk));
        if (chunk.isEmpty()) break;
        h.addData(chunk);
    }
}

qint64 size_or_zero(const fs::path& p) {
    std::error_code ec;
    const auto n = fs::file_size(p, ec);
    return ec ? 0 : qint64(n);
}

struct FileJob {
    HubHttpClient& http;
    const DownloadRequest& req;
    const HubRepoInfo& info;
    Meter& meter;
    const DownloadCallbacks& cb;
    DownloadResult& result;
};

// Fetches one file into `staging`, resuming "<file>.partial" with Range; verifies it and
// renames it to its name. A file already complete and verified there is kept.
void download_file(FileJob& job, HubFile file, const fs::path& staging) {
    const fs::path final_path = staging / s(file.name);
    const fs::path partial = fs::path(final_path.string() + ".partial");
    fs::create_directories(final_path.parent_path());
    job.meter.file = file.name;
    Checksum check = Checksum::for_file(file);
    QCryptographicHash hash(check.algorithm);

    std::error_code ec;
    if (fs::is_regular_file(final_path, ec)) {  // from an earlier run: verify again
        check.start(hash);
        hash_file_into(final_path, hash, job.cb);
        if ((file.size < 0 || size_or_zero(final_path) == file.size) &&
            (check.expected.isEmpty() || hash.result().toHex() == check.expected)) {
            job.meter.done += size_or_zero(final_path);
            return;
        }
        fs::remove(final_path, ec);
    }

    qint64 have = size_or_zero(partial);
    if (file.size >= 0 && have > file.size) {
        fs::remove(partial, ec);
        have = 0;
    }
    check.start(hash);
    if (have > 0) hash_file_into(partial, hash, job.cb);
    job.meter.done += have;
    job.meter.report();

    QFile out(QString::fromStdString(partial.string()));
    // Unbuffered: a failed write (full disk) shows at once, never later in a flush.
    if (!out.open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Unbuffered))
        throw Error("Cannot write " + partial.string() + ": " + s(out.errorString()) + ".");
    const QUrl url = QUrl::fromEncoded((job.http.endpoint().toString() + "/" + job.req.repo + "/resolve/" +
                                        encode_segment(job.info.commit) + "/" + encode_path(file.name))
                                           .toUtf8(),
                                       QUrl::StrictMode);
    QString write_error;
    int fruitless = 0;
    for (;;) {
        if (file.size >= 0 && have == file.size) break;
        const qint64 from = have;
        Sink sink;
        sink.begin = [&](int status, const QByteArray& content_range) {
            const bool continues = status == 206 && content_range.startsWith("bytes " + QByteArray::number(from) + "-");
            if (continues && from > 0) ++job.result.resumed_transfers;
            if (!continues && have > 0) {  // the whole file again: start over
                out.resize(0);
                job.meter.done -= have;
                have = 0;
                check.start(hash);
            }
        };
        sink.write = [&](const QByteArray& data) {
            if (out.write(data) != data.size()) {
                write_error = out.errorString();
                return false;
            }
            hash.addData(data);
            have += data.size();
            job.meter.done += data.size();
            job.meter.fetched += data.size();
            job.result.bytes_fetched += data.size();
            return true;
        };
        const Response r = job.http.get(url, from, &sink);
        if (r.aborted) throw Cancelled();
        if (r.sink_failed)
            throw Error("Cannot write " + partial.string() + ": " + s(write_error) + " (is the disk full?).");
        // The Hub's own headers fill in what the file list left out.
        if (check.expected.isEmpty() && is_hex(r.linked_etag.toLower().replace("\"", ""), 64) && from == 0 &&
            r.status >= 200 && r.status < 300) {
            file.sha256 = QString::fromLatin1(r.linked_etag.toLower().replace("\"", ""));
        }
        if (file.size < 0 && !r.linked_size.isEmpty()) file.size = r.linked_size.toLongLong();
        if (!r.repo_commit.isEmpty() && QString::fromLatin1(r.repo_commit) != job.info.commit)
            throw Error(s(job.http.endpoint().host()) + " sent " + s(file.name) + " of " + s(job.req.repo) + " from commit " +
                        r.repo_commit.left(10).toStdString() + ", not " + s(job.info.commit.left(10)) +
                        " as its file list said; nothing was installed.");
        if (r.status == 416) {  // nothing after `from`: complete if the size agrees, else start over
            if (file.size < 0 || have == file.size) break;
            out.resize(0);
            job.meter.done -= have;
            have = 0;
            check.start(hash);
            if (++fruitless >= kMaxFruitlessAttempts) throw_for(r, job.http, job.req.repo, job.req.revision, file.name);
            continue;
        }
        if (r.status >= 300) throw_for(r, job.http, job.req.repo, job.req.revision, file.name + " of " + job.req.repo);
        if (r.status >= 200 && r.error == QNetworkReply::NoError) {
            if (file.size < 0) file.size = have;
            if (have >= file.size) break;
        }
        // A dropped connection or a stall: go on from where it stopped.
        if (have > from)
            fruitless = 0;
        else if (++fruitless >= kMaxFruitlessAttempts)
            throw_for(r, job.http, job.req.repo, job.req.revision, file.name + " of " + job.req.repo);
    }
    // On disk before the folder is renamed into place, so a power cut cannot leave an
    // installed model with empty files.
    if (::fsync(out.handle()) != 0)
        throw Error("Cannot write " + partial.string() + ": " + std::strerror(errno) + " (is the disk full?).");
    out.close();

    auto discard = [&](const std::string& why) {
        std::error_code ec2;
        fs::remove(partial, ec2);
        throw Error(why + ": the file was discarded and nothing was installed.");
    };
    if (file.size >= 0 && have != file.size)
        discard(s(file.name) + " of " + s(job.req.repo) + " is " + std::to_string(have) + " bytes, not " +
                std::to_string(file.size) + " as the Hub says");
    if (check.expected.isEmpty() && !file.sha256.isEmpty()) {  // learnt from X-Linked-Etag
        check = Checksum::for_file(file);
        QCryptographicHash again(check.algorithm);
        hash_file_into(partial, again, job.cb);
        if (again.result().toHex() != check.expected)
            discard("Checksum mismatch for " + s(file.name) + " of " + s(job.req.repo) + " (sha256 " +
                    again.result().toHex().left(12).toStdString() + "..., the Hub says " +
                    check.expected.left(12).toStdString() + "...)");
    } else if (!check.expected.isEmpty() && hash.result().toHex() != check.expected) {
        discard("Checksum mismatch for " + s(file.name) + " of " + s(job.req.repo) + " (" +
                (check.algorithm == QCryptographicHash::Sha256 ? "sha256 " : "git blob sha1 ") +
                hash.result().toHex().left(12).toStdString() + "..., the Hub says " +
                check.expected.left(12).toStdString() + "...)");
    }
    fs::rename(partial, final_path);
}

void write_source_record(const fs::path& dir, const DownloadRequest& req, const HubRepoInfo& info,
                         const std::vector<HubFile>& files) {
    QJsonArray names;
    for (const HubFile& f : files) names.append(f.name);
    QJsonObject o{{"repo", req.repo}, {"revision", req.revision}, {"commit", info.commit},
                  {"endpoint", req.endpoint}, {"files", names},
                  {"downloaded", QDateTime::currentDateTimeUtc().toString(Qt::ISODate)}};
    QSaveFile f(QString::fromStdString((dir / "precis-source.json").string()));
    if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(o).toJson()) < 0 || !f.commit())
        throw Error("Cannot write " + (dir / "precis-source.json").string() + " (is the disk full?).");
}

}  // namespace

fs::path download_staging_dir(const fs::path& models_root, const QString& name) {
    std::string folder = ".";  // appended, not "." + name: GCC 12 warns falsely (-Wrestrict) on that
    folder += s(name);
    folder += ".download";
    return models_root / folder;
}

std::vector<HubFile> files_precis_needs(const HubRepoInfo& info) {
    std::map<QString, HubFile> top;
    for (const HubFile& f : info.files)
        if (!f.name.contains('/')) top[f.name] = f;
    if (!top.count("config.json"))
        throw Error(s(info.repo) + " has no config.json, so it is not a model folder Precis can run.");
    std::vector<HubFile> out;
    auto take = [&](const QString& n) {
        if (auto it = top.find(n); it != top.end()) out.push_back(it->second);
    };
    for (const char* n : {"config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json",
                          "special_tokens_map.json", "added_tokens.json", "vocab.json", "merges.txt"})
        take(n);
    for (const auto& [n, f] : top)
        if (n.endsWith(".model")) out.push_back(f);  // sentencepiece
    auto shards = [&](const QString& prefix, const QString& suffix) {
        for (const auto& [n, f] : top)
            if (n.startsWith(prefix) && n.endsWith(suffix)) out.push_back(f);
    };
    if (top.count("model.safetensors.index.json")) {
        take("model.safetensors.index.json");
        shards("model-", ".safetensors");
    } else if (top.count("model.safetensors")) {
        take("model.safetensors");
    } else if (top.count("pytorch_model.bin.index.json")) {
        take("pytorch_model.bin.index.json");
        shards("pytorch_model-", ".bin");
    } else if (top.count("pytorch_model.bin")) {
        take("pytorch_model.bin");
    } else {
        throw Error(s(info.repo) + " has no weights Precis reads (model.safetensors or pytorch_model.bin).");
    }
    return out;
}

namespace {

HubRepoInfo fetch_repo_info_with(HubHttpClient& http, const QString& repo, const QString& revision) {
    const QUrl url = QUrl::fromEncoded((http.endpoint().toString() + "/api/models/" + repo + "/revision/" +
                                        encode_segment(revision) + "?blobs=true")
                                           .toUtf8(),
                                       QUrl::StrictMode);
    const Response r = http.get(url, 0, nullptr);
    if (r.aborted) throw Cancelled();
    if (r.status != 200) throw_for(r, http, repo, revision, "the file list of " + repo);
    const QJsonObject o = QJsonDocument::fromJson(r.body).object();
    HubRepoInfo info;
    info.repo = repo;
    info.commit = o.value("sha").toString();
    if (!is_hex(info.commit.toLatin1(), 40))
        throw Error(s(http.endpoint().host()) + " sent a file list of " + s(repo) + " without a commit id.");
    for (const QJsonValue& v : o.value("siblings").toArray()) {
        const QJsonObject f = v.toObject();
        HubFile h;
        h.name = f.value("rfilename").toString();
        if (h.name.isEmpty() || h.name.startsWith('/') || h.name.contains("..")) continue;
        h.size = qint64(f.value("size").toDouble(-1));
        h.blob_id = f.value("blobId").toString();
        if (const QJsonObject lfs = f.value("lfs").toObject(); !lfs.isEmpty()) {
            h.lfs = true;
            h.sha256 = lfs.value("sha256").toString();
            if (lfs.contains("size")) h.size = qint64(lfs.value("size").toDouble(-1));
        }
        info.files.push_back(std::move(h));
    }
    return info;
}

}  // namespace

HubRepoInfo fetch_repo_info(const QString& endpoint, const QString& repo, const QString& revision,
                            const QString& token, const DownloadCallbacks& cb) {
    HubHttpClient http(endpoint, token, cb.should_abort, {});
    return fetch_repo_info_with(http, repo, revision);
}

DownloadResult download_model(const DownloadRequest& request, const DownloadCallbacks& cb) {
    DownloadRequest req = request;
    static const QRegularExpression repo_id(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$"));
    if (!repo_id.match(req.repo).hasMatch())
        throw Error("'" + s(req.repo) + "' is not a HuggingFace model id (owner/name, e.g. facebook/bart-large-cnn).");
    if (req.revision.isEmpty()) req.revision = QStringLiteral("main");
    if (req.endpoint.isEmpty()) req.endpoint = hub_endpoint();
    while (req.endpoint.endsWith('/')) req.endpoint.chop(1);
    if (req.token.isEmpty()) req.token = hub_token();
    if (req.models_root.empty()) req.models_root = user_models_dir();
    if (req.name.isEmpty())
        req.name = req.repo.section('/', -1) + (req.convert_lsg > 0 ? QStringLiteral("-lsg-%1").arg(req.convert_lsg) : QString());
    if (req.name.contains('/') || req.name.startsWith('.') || req.name.trimmed().isEmpty())
        throw Error("'" + s(req.name) + "' cannot be a model name: use letters, digits, '-', '_' or '.', not starting with '.'.");
    if (hub_offline())
        throw Error("HF_HUB_OFFLINE is set, so Precis does not download " + s(req.repo) + ": unset it to download.");
    const fs::path target = req.models_root / s(req.name);
    std::error_code ec;
    if (fs::exists(target, ec))
        throw Error("A model named '" + s(req.name) + "' is already installed in " + req.models_root.string() +
                    ": pick another name with --name, or remove it first (precis model remove " + s(req.name) + ").");
    fs::create_directories(req.models_root, ec);
    if (ec) throw Error("Cannot create " + req.models_root.string() + ": " + ec.message() + ".");

    const fs::path staging = download_staging_dir(req.models_root, req.name);
    QLockFile lock(QString::fromStdString(staging.string() + ".lock"));
    if (!lock.tryLock(0))
        throw Error("Another download into '" + s(req.name) + "' is running; wait for it or cancel it first.");

    DownloadResult result;
    Meter meter(cb);
    HubHttpClient http(req.endpoint, req.token, cb.should_abort, [&] { meter.report(); });
    meter.report();
    const HubRepoInfo info = fetch_repo_info_with(http, req.repo, req.revision);
    const std::vector<HubFile> files = files_precis_needs(info);

    // A partial download of another commit is of no use.
    const fs::path commit_file = staging / ".commit";
    {
        QFile f(QString::fromStdString(commit_file.string()));
        if (f.open(QIODevice::ReadOnly) && QString::fromLatin1(f.readAll()).trimmed() != info.commit) {
            f.close();
            fs::remove_all(staging, ec);
        }
    }
    fs::create_directories(staging, ec);
    {
        QSaveFile f(QString::fromStdString(commit_file.string()));
        if (!f.open(QIODevice::WriteOnly) || f.write(info.commit.toLatin1()) < 0 || !f.commit())
            throw Error("Cannot write in " + req.models_root.string() + " (is the disk full?).");
    }

    qint64 needed = 0;
    for (const HubFile& f : files) {
        meter.total += std::max<qint64>(0, f.size);
        const fs::path p = staging / s(f.name);
        needed += std::max<qint64>(0, f.size - std::max(size_or_zero(p), size_or_zero(fs::path(p.string() + ".partial"))));
    }
    const qint64 free_bytes = req.assume_free_bytes >= 0
                                  ? req.assume_free_bytes
                                  : QStorageInfo(QString::fromStdString(req.models_root.string())).bytesAvailable();
    if (free_bytes >= 0 && needed > free_bytes)
        throw Error("Not enough disk space in " + req.models_root.string() + " for " + s(req.repo) + ": it needs " +
                    s(format_bytes(needed)) + " more and " + s(format_bytes(free_bytes)) + " is free.");

    meter.stage = DownloadStage::Downloading;
    FileJob job{http, req, info, meter, cb, result};
    ModelConfig config;
    for (const HubFile& f : files) {  // config.json comes first
        download_file(job, f, staging);
        if (f.name == "config.json") {
            try {
                config = parse_model_config(staging / "config.json");
            } catch (const std::exception& e) {
                throw Error(s(req.repo) + " is not a model Precis can run: " + e.what());
            }
            if (req.convert_lsg > 0 && (config.is_lsg || config.is_classifier))
                throw Error(s(req.repo) + (config.is_lsg ? " is already an LSG model" : " is a classifier") +
                            ": leave out --convert-lsg.");
        }
    }
    meter.file.clear();
    meter.report();
    write_source_record(staging, req, info, files);

    if (req.convert_lsg > 0) {
        meter.stage = DownloadStage::Converting;
        ConversionOptions conv;
        conv.max_positions = req.convert_lsg;
        ByteProgress bp;
        bp.should_abort = cb.should_abort;
        bp.progress = [&](uint64_t, uint64_t) { meter.report(); };
        convert_bart_folder(staging, target, conv, &bp);  // itself atomic
        QFile::copy(QString::fromStdString((staging / "precis-source.json").string()),
                    QString::fromStdString((target / "precis-source.json").string()));
        fs::remove_all(staging, ec);
        result.converted = true;
    } else {
        fs::remove(commit_file, ec);
        fs::rename(staging, target, ec);
        if (ec) throw Error("Cannot move the download into " + target.string() + ": " + ec.message() + ".");
    }
    lock.unlock();
    fs::remove(staging.string() + ".lock", ec);

    result.dir = target;
    result.name = req.name;
    result.repo = req.repo;
    result.commit = info.commit;
    result.files = int(files.size());
    result.bytes = meter.total;
    result.seconds = meter.seconds();
    if (req.make_default_if_first && !config.is_classifier && fs::equivalent(req.models_root, user_models_dir(), ec) &&
        model_folder_for(default_model_name()).empty()) {
        set_default_model(req.name);
        result.became_default = true;
    }
    return result;
}

}  // namespace precis::models
