#pragma once
// One HTTP GET against the HuggingFace Hub as the downloads need it (Qt Network): redirects
// followed by hand so the token reaches the Hub's own host only, never the storage it
// redirects to; the Hub's headers of the first answer kept (X-Repo-Commit, X-Linked-Etag,
// X-Linked-Size, X-Error-Code); 2xx bodies streamed to a sink with back-pressure; a
// Range start for resuming; a stall timeout; cancel polled every 100 ms. The system proxy
// (http(s)_proxy, no_proxy) is used.
#include <QByteArray>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QString>
#include <QUrl>

#include <functional>

namespace precis::models {

// A transfer that receives nothing for this long fails (and is retried with Range).
constexpr int kStallTimeoutMs = 60000;

// What the download needs from one HTTP exchange (redirects followed).
struct Response {
    int status = 0;  // 0: no HTTP answer (network error)
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    QString error_text;
    QByteArray body;  // when not streamed
    // Headers of the first answer (the Hub's own, before any redirect to its storage).
    QByteArray repo_commit, linked_etag, linked_size, error_code, error_message;
    bool aborted = false;      // should_abort asked to stop
    bool sink_failed = false;  // the sink refused data (disk)
};

// Where a 2xx body is streamed to.
struct Sink {
    std::function<void(int status, const QByteArray& content_range)> begin;
    std::function<bool(const QByteArray& data)> write;  // false: stop (cannot write)
};

class HubHttpClient {
public:
    // `tick` runs every 100 ms while a transfer waits (progress reports).
    HubHttpClient(const QString& endpoint, QString token, std::function<bool()> should_abort, std::function<void()> tick);

    // GET `url` (from byte `range_from` when > 0); a 2xx body goes to `sink` when given,
    // else into Response::body.
    Response get(QUrl url, qint64 range_from, const Sink* sink);

    const QUrl& endpoint() const { return endpoint_; }
    bool has_token() const { return !token_.isEmpty(); }

private:
    QNetworkAccessManager nam_;
    QUrl endpoint_;
    QString token_;
    std::function<bool()> should_abort_;
    std::function<void()> tick_;
};

}  // namespace precis::models
