#include "tests/support/fake_hub.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>
#include <QTimer>
#include <QUrl>

#include <future>
#include <map>
#include <stdexcept>

#include "tests/support/fixtures.h"

namespace precis::test {

namespace {

struct Stored {
    QByteArray bytes;
    bool lfs = false;
    QByteArray sha256, blob_id;
};

struct Repo {
    QString commit, token;
    std::map<QString, Stored> files;
};

QByteArray reason(int status) {
    switch (status) {
    case 200: return "OK";
    case 206: return "Partial Content";
    case 302: return "Found";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 416: return "Range Not Satisfiable";
    default: return "Error";
    }
}

}  // namespace

struct FakeHub::State {
    mutable QMutex mutex;
    std::map<QString, Repo> repos;
    std::map<QByteArray, std::pair<QString, QString>> by_sha;  // sha256 -> (repo, file)
    std::map<QString, qint64> drop_at, corrupt_at;
    qint64 pace_bytes = 0;
    int pace_ms = 0;
    std::vector<FakeHubRequest> log;
    quint16 port = 0, storage_port = 0;
};

class FakeHub::Thread : public QThread {
public:
    explicit Thread(std::shared_ptr<State> state) : state_(std::move(state)) {}
    std::promise<quint16> ready;

protected:
    void run() override {
        // Two origins, as on the real Hub: its own (API, resolve) and the storage its LFS
        // redirects point at (another port here), which must never see the token.
        QTcpServer hub, storage;
        if (!hub.listen(QHostAddress::LocalHost, 0) || !storage.listen(QHostAddress::LocalHost, 0)) {
            ready.set_value(0);
            return;
        }
        for (QTcpServer* server : {&hub, &storage})
            QObject::connect(server, &QTcpServer::newConnection, server, [this, server] {
                while (QTcpSocket* socket = server->nextPendingConnection()) accept(socket);
            });
        {
            QMutexLocker lock(&state_->mutex);
            state_->storage_port = storage.serverPort();
        }
        ready.set_value(hub.serverPort());
        exec();
    }

private:
    std::shared_ptr<State> state_;

    void accept(QTcpSocket* socket) {
        auto buffer = std::make_shared<QByteArray>();
        QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket, buffer] {
            if (socket->property("answered").toBool()) return;  // one request per connection
            buffer->append(socket->readAll());
            const qsizetype end = buffer->indexOf("\r\n\r\n");
            if (end < 0) return;
            socket->setProperty("answered", true);
            handle(socket, buffer->left(end));
        });
    }

    static void head(QTcpSocket* socket, int status, const QList<QPair<QByteArray, QByteArray>>& headers,
                     qint64 length) {
        QByteArray h = "HTTP/1.1 " + QByteArray::number(status) + " " + reason(status) + "\r\n";
        for (const auto& [k, v] : headers) h += k + ": " + v + "\r\n";
        h += "Content-Length: " + QByteArray::number(length) + "\r\nConnection: close\r\n\r\n";
        socket->write(h);
    }

    static void answer(QTcpSocket* socket, int status, const QList<QPair<QByteArray, QByteArray>>& headers,
                       const QByteArray& body = {}) {
        head(socket, status, headers, body.size());
        socket->write(body);
        socket->disconnectFromHost();
    }

    void handle(QTcpSocket* socket, const QByteArray& request) {
        const QList<QByteArray> lines = request.split('\n');
        const QList<QByteArray> first = lines.value(0).trimmed().split(' ');
        FakeHubRequest logged;
        logged.path = first.value(1);
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const QByteArray line = lines[i].trimmed();
            const qsizetype colon = line.indexOf(':');
            if (colon < 0) continue;
            const QByteArray key = line.left(colon).trimmed().toLower(), value = line.mid(colon + 1).trimmed();
            if (key == "range") logged.range = value;
            if (key == "authorization") logged.authorization = value;
        }
        QMutexLocker lock(&state_->mutex);
        state_->log.push_back(logged);
        const QString path = QUrl::fromPercentEncoding(logged.path.left(logged.path.indexOf('?') < 0 ? logged.path.size()
                                                                                                       : logged.path.indexOf('?')));
        const QStringList parts = path.split('/');  // "", ...
        auto token_ok = [&](const Repo& r) {
            return r.token.isEmpty() || logged.authorization == "Bearer " + r.token.toUtf8();
        };
        // /api/models/{owner}/{name}/revision/{rev}
        if (parts.size() >= 7 && parts[1] == "api" && parts[2] == "models" && parts[5] == "revision") {
            const QString repo = parts[3] + "/" + parts[4];
            const QString rev = parts.mid(6).join('/');
            auto it = state_->repos.find(repo);
            if (it == state_->repos.end())
                return answer(socket, 404, {{"X-Error-Code", "RepoNotFound"}}, R"({"error":"Repository not found"})");
            if (!token_ok(it->second))
                return answer(socket, 401, {{"X-Error-Code", "GatedRepo"}}, R"({"error":"Access restricted"})");
            if (rev != "main" && rev != it->second.commit)
                return answer(socket, 404, {{"X-Error-Code", "RevisionNotFound"}}, R"({"error":"Invalid rev id"})");
            QJsonArray siblings;
            for (const auto& [name, f] : it->second.files) {
                QJsonObject o{{"rfilename", name}, {"size", double(f.bytes.size())}, {"blobId", QString::fromLatin1(f.blob_id)}};
                if (f.lfs)
                    o["lfs"] = QJsonObject{{"sha256", QString::fromLatin1(f.sha256)}, {"size", double(f.bytes.size())},
                                           {"pointerSize", 134}};
                siblings.append(o);
            }
            const QJsonObject info{{"id", repo}, {"modelId", repo}, {"sha", it->second.commit}, {"siblings", siblings}};
            return answer(socket, 200, {{"Content-Type", "application/json"}}, QJsonDocument(info).toJson(QJsonDocument::Compact));
        }
        // /{owner}/{name}/resolve/{rev}/{file}
        if (parts.size() >= 6 && parts[3] == "resolve") {
            const QString repo = parts[1] + "/" + parts[2];
            const QString rev = parts[4], file = parts.mid(5).join('/');
            auto it = state_->repos.find(repo);
            if (it == state_->repos.end()) return answer(socket, 404, {{"X-Error-Code", "RepoNotFound"}});
            if (!token_ok(it->second)) return answer(socket, 401, {{"X-Error-Code", "GatedRepo"}});
            if (rev != "main" && rev != it->second.commit) return answer(socket, 404, {{"X-Error-Code", "RevisionNotFound"}});
            auto f = it->second.files.find(file);
            if (f == it->second.files.end()) return answer(socket, 404, {{"X-Error-Code", "EntryNotFound"}});
            const QByteArray commit = it->second.commit.toLatin1();
            if (f->second.lfs)
                return answer(socket, 302,
                              {{"Location", "http://127.0.0.1:" + QByteArray::number(state_->storage_port) + "/lfs/" +
                                                f->second.sha256 + "?name=" + QUrl::toPercentEncoding(file)},
                               {"X-Repo-Commit", commit},
                               {"X-Linked-Etag", "\"" + f->second.sha256 + "\""},
                               {"X-Linked-Size", QByteArray::number(f->second.bytes.size())},
                               {"ETag", "\"" + f->second.blob_id + "\""}});
            return serve(socket, file, f->second, logged.range,
                         {{"X-Repo-Commit", commit}, {"ETag", "\"" + f->second.blob_id + "\""}});
        }
        // /lfs/{sha256}: the storage the Hub redirects to (no token needed)
        if (parts.size() == 3 && parts[1] == "lfs") {
            auto it = state_->by_sha.find(parts[2].toLatin1());
            if (it == state_->by_sha.end()) return answer(socket, 404, {});
            const auto& [repo, file] = it->second;
            return serve(socket, file, state_->repos[repo].files[file], logged.range, {{"ETag", "\"" + parts[2].toLatin1() + "\""}});
        }
        answer(socket, 404, {});
    }

    // The body of `file` (faults applied) from the Range's start. Called with the mutex held.
    void serve(QTcpSocket* socket, const QString& file, const Stored& f, const QByteArray& range,
               QList<QPair<QByteArray, QByteArray>> headers) {
        QByteArray bytes = f.bytes;
        if (auto c = state_->corrupt_at.find(file); c != state_->corrupt_at.end() && c->second < bytes.size())
            bytes[c->second] = char(bytes[c->second] ^ 0x5a);
        const qint64 size = bytes.size();
        qint64 from = 0;
        if (range.startsWith("bytes=") && range.endsWith("-")) from = range.mid(6, range.size() - 7).toLongLong();
        if (from >= size && from > 0) {
            headers.append(qMakePair(QByteArray("Content-Range"), "bytes */" + QByteArray::number(size)));
            return answer(socket, 416, headers);
        }
        int status = 200;
        if (from > 0) {
            status = 206;
            headers.append(qMakePair(QByteArray("Content-Range"), "bytes " + QByteArray::number(from) + "-" +
                                                                      QByteArray::number(size - 1) + "/" +
                                                                      QByteArray::number(size)));
        }
        headers.append(qMakePair(QByteArray("Accept-Ranges"), QByteArray("bytes")));
        head(socket, status, headers, size - from);
        qint64 stop = size;
        if (auto d = state_->drop_at.find(file); d != state_->drop_at.end() && d->second >= from && d->second < size) {
            stop = d->second;
            state_->drop_at.erase(d);
        }
        auto body = std::make_shared<QByteArray>(bytes.mid(from, stop - from));
        if (state_->pace_bytes <= 0) {
            socket->write(*body);
            socket->disconnectFromHost();  // after the data, as promised or cut short
            return;
        }
        auto sent = std::make_shared<qint64>(0);
        auto* timer = new QTimer(socket);
        QPointer<QTcpSocket> guard(socket);
        QObject::connect(timer, &QTimer::timeout, socket, [this, guard, timer, body, sent] {
            if (!guard || guard->state() != QAbstractSocket::ConnectedState) return timer->stop();
            qint64 n = 0;
            int ms = 0;
            {
                QMutexLocker lock(&state_->mutex);
                n = state_->pace_bytes;
                ms = state_->pace_ms;
            }
            if (n <= 0) n = body->size();
            timer->setInterval(ms);
            const qint64 take = std::min<qint64>(n, body->size() - *sent);
            guard->write(body->constData() + *sent, take);
            *sent += take;
            if (*sent >= body->size()) {
                timer->stop();
                guard->disconnectFromHost();
            }
        });
        timer->start(state_->pace_ms);
    }
};

FakeHub::FakeHub() : state_(std::make_shared<State>()), thread_(std::make_unique<Thread>(state_)) {
    auto port = thread_->ready.get_future();
    thread_->start();
    state_->port = port.get();
    if (state_->port == 0) throw std::runtime_error("the fake Hub cannot listen on 127.0.0.1");
}

FakeHub::~FakeHub() {
    thread_->quit();
    thread_->wait();
}

QString FakeHub::endpoint() const { return QStringLiteral("http://127.0.0.1:%1").arg(state_->port); }

void FakeHub::add_repo(const QString& repo, const std::vector<FakeHubFile>& files) {
    Repo r;
    r.commit = QString::fromLatin1(QCryptographicHash::hash(repo.toUtf8(), QCryptographicHash::Sha1).toHex());
    for (const FakeHubFile& f : files) {
        Stored s;
        if (!f.source.empty()) {
            QFile in(QString::fromStdString(f.source.string()));
            if (!in.open(QIODevice::ReadOnly)) throw std::runtime_error("cannot read " + f.source.string());
            s.bytes = in.readAll();
        } else {
            s.bytes = f.content;
        }
        s.lfs = f.lfs;
        s.sha256 = QCryptographicHash::hash(s.bytes, QCryptographicHash::Sha256).toHex();
        s.blob_id = QCryptographicHash::hash("blob " + QByteArray::number(s.bytes.size()) + '\0' + s.bytes,
                                             QCryptographicHash::Sha1)
                        .toHex();
        QMutexLocker lock(&state_->mutex);
        if (s.lfs) state_->by_sha[s.sha256] = {repo, f.name};
        r.files[f.name] = std::move(s);
    }
    QMutexLocker lock(&state_->mutex);
    state_->repos[repo] = std::move(r);
}

QString FakeHub::commit(const QString& repo) const {
    QMutexLocker lock(&state_->mutex);
    auto it = state_->repos.find(repo);
    return it == state_->repos.end() ? QString() : it->second.commit;
}

void FakeHub::drop_connection_once(const QString& file, qint64 offset) {
    QMutexLocker lock(&state_->mutex);
    state_->drop_at[file] = offset;
}

void FakeHub::corrupt_byte(const QString& file, qint64 offset) {
    QMutexLocker lock(&state_->mutex);
    state_->corrupt_at[file] = offset;
}

void FakeHub::require_token(const QString& repo, const QString& token) {
    QMutexLocker lock(&state_->mutex);
    state_->repos[repo].token = token;
}

void FakeHub::set_pace(qint64 bytes, int interval_ms) {
    QMutexLocker lock(&state_->mutex);
    state_->pace_bytes = bytes;
    state_->pace_ms = interval_ms;
}

std::vector<FakeHubRequest> FakeHub::requests() const {
    QMutexLocker lock(&state_->mutex);
    return state_->log;
}

bool FakeHub::requested(const QString& part) const {
    for (const FakeHubRequest& r : requests())
        if (QString::fromLatin1(r.path).contains(part)) return true;
    return false;
}

bool FakeHub::ranged_request_for(const QString& file) const {
    for (const FakeHubRequest& r : requests())
        if (r.path.startsWith("/lfs/") && !r.range.isEmpty() &&
            QUrl::fromPercentEncoding(r.path).endsWith("name=" + file))
            return true;
    return false;
}

std::vector<FakeHubFile> fixture_hub_files() {
    const auto model = fixtures_dir() / "models" / "bart-tiny-realvocab";
    const auto tok = fixtures_dir() / "tokenizer" / "bart";
    return {
        {"config.json", model / "config.json", {}, false},
        {"generation_config.json", model / "generation_config.json", {}, false},
        {"model.safetensors", model / "model.safetensors", {}, true},
        {"tokenizer.json", tok / "tokenizer.json", {}, true},
        {"vocab.json", tok / "vocab.json", {}, false},
        {"merges.txt", tok / "merges.txt", {}, false},
        {"pytorch_model.bin", {}, QByteArray("not a checkpoint: Precis prefers safetensors"), true},
        {"tf_model.h5", {}, QByteArray("not needed"), true},
        {"README.md", {}, QByteArray("# bart-tiny-realvocab\n"), false},
        {"onnx/model.onnx", {}, QByteArray("not needed"), true},
    };
}

}  // namespace precis::test
