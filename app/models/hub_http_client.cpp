#include "app/models/hub_http_client.h"

#include <QEventLoop>
#include <QNetworkProxyFactory>
#include <QNetworkRequest>
#include <QTimer>

#include "engine/core/byte_progress.h"

namespace precis::models {

HubHttpClient::HubHttpClient(const QString& endpoint, QString token, std::function<bool()> should_abort,
                             std::function<void()> tick)
    : endpoint_(QUrl(endpoint)), token_(std::move(token)), should_abort_(std::move(should_abort)), tick_(std::move(tick)) {
    static const bool proxies = [] {
        QNetworkProxyFactory::setUseSystemConfiguration(true);  // http(s)_proxy, no_proxy
        return true;
    }();
    (void)proxies;
    nam_.setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
}

Response HubHttpClient::get(QUrl url, qint64 range_from, const Sink* sink) {
    Response r;
    for (int hop = 0; hop < 10; ++hop) {
        QNetworkRequest req(url);
        req.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
        req.setTransferTimeout(kStallTimeoutMs);
        req.setHeader(QNetworkRequest::UserAgentHeader, QByteArray("precis/") + PRECIS_VERSION);
        // The token goes to the Hub only, never to the storage it redirects to.
        if (!token_.isEmpty() && url.host() == endpoint_.host() && url.port() == endpoint_.port() &&
            url.scheme() == endpoint_.scheme())
            req.setRawHeader("Authorization", "Bearer " + token_.toUtf8());
        if (range_from > 0) req.setRawHeader("Range", "bytes=" + QByteArray::number(range_from) + "-");
        QNetworkReply* reply = nam_.get(req);
        // Back-pressure: without a limit Qt reads the whole body into memory whenever the
        // network outruns the disk and the hash (measured: 450 MB resident for a 400 MB file).
        if (sink) reply->setReadBufferSize(qint64(kByteProgressChunk));
        bool streaming = false;
        auto status_of = [reply] { return reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(); };
        auto pump = [&] {
            if (r.aborted || r.sink_failed) return;
            const int status = status_of();
            if (!sink || status < 200 || status >= 300) return;  // small answers are read at the end
            if (!streaming) {
                streaming = true;
                sink->begin(status, reply->rawHeader("Content-Range"));
            }
            const QByteArray data = reply->readAll();
            if (!data.isEmpty() && !sink->write(data)) {
                r.sink_failed = true;
                reply->abort();
            }
        };
        QObject::connect(reply, &QNetworkReply::readyRead, reply, pump);
        QEventLoop loop;
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        QTimer timer;
        timer.setInterval(100);
        QObject::connect(&timer, &QTimer::timeout, &loop, [&] {
            if (should_abort_ && should_abort_() && !r.aborted) {
                r.aborted = true;
                reply->abort();
            }
            if (tick_) tick_();
        });
        timer.start();
        if (!reply->isFinished()) loop.exec();
        timer.stop();
        if (!r.aborted && !r.sink_failed) pump();  // whatever is left in the buffer
        const int status = status_of();
        if (hop == 0) {
            r.repo_commit = reply->rawHeader("X-Repo-Commit");
            r.linked_etag = reply->rawHeader("X-Linked-Etag");
            r.linked_size = reply->rawHeader("X-Linked-Size");
            r.error_code = reply->rawHeader("X-Error-Code");
            r.error_message = reply->rawHeader("X-Error-Message");
        }
        if (!r.aborted && !r.sink_failed && status >= 300 && status < 400 && status != 304) {
            const QByteArray location = reply->rawHeader("Location");
            reply->disconnect();
            delete reply;
            if (location.isEmpty()) {
                r.status = status;
                r.error_text = QStringLiteral("a redirect without a Location");
                return r;
            }
            url = url.resolved(QUrl::fromEncoded(location));
            continue;
        }
        r.status = status;
        r.error = reply->error();
        r.error_text = reply->errorString();
        if (!streaming) r.body = reply->readAll();
        reply->disconnect();
        delete reply;
        return r;
    }
    r.status = 0;
    r.error = QNetworkReply::TooManyRedirectsError;
    r.error_text = QStringLiteral("too many redirects");
    return r;
}

}  // namespace precis::models
