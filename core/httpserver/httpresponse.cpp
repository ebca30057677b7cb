#include "httpresponse.h"

#include "httpconnection.h"
#include "httpservice.h"
#include "httpwire.h"

#include "common/logging.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace Tether {

HttpResponse::HttpResponse(HttpRequest request, HttpConnection *connection, const HttpServerOptions &options)
    : QObject(connection)
    , m_request(std::move(request))
    , m_connection(connection)
    , m_maxUnsentBytes(options.maxUnsentBytes)
{
    m_keepAlive.setInterval(options.eventStreamKeepAlive);
    connect(&m_keepAlive, &QTimer::timeout, this, [this] { write(HttpWire::EventStreamKeepAlive); });
}

HttpResponse::~HttpResponse() = default;

qint64 HttpResponse::unsentBytes() const
{
    return m_connection && m_stage != Stage::Aborted ? m_connection->unsentBytes() : 0;
}

bool HttpResponse::send(int status, const HttpHeaders &headers, const QByteArray &body)
{
    if (m_stage != Stage::Waiting || !m_connection)
        return false;
    const bool closeAfter = !m_request.keepAlive();
    m_stage = Stage::Finished;
    QByteArrayList refused;
    m_connection->writeBytes(HttpWire::wholeResponse(status, headers, body, closeAfter, !closeAfter && m_request.minorVersion == 0,
                                                     QDateTime::currentDateTimeUtc(), &refused));
    logRefused(refused);
    m_connection->endResponse(closeAfter);
    return true;
}

bool HttpResponse::beginStream(int status, const HttpHeaders &headers)
{
    if (m_stage != Stage::Waiting || !m_connection)
        return false;
    // An HTTP/1.0 peer knows no chunks: its body ends when the connection closes.
    m_chunked = m_request.minorVersion >= 1;
    m_closeAfter = !m_chunked || !m_request.keepAlive();
    HttpWire::Framing framing;
    framing.body = m_chunked ? HttpWire::Framing::Body::Chunked : HttpWire::Framing::Body::UntilClose;
    framing.closeAfter = m_closeAfter;
    m_stage = Stage::Streaming;
    QByteArrayList refused;
    const QByteArray head = HttpWire::responseHead(status, headers, framing, QDateTime::currentDateTimeUtc(), &refused);
    logRefused(refused);
    return writeToPeer(head);
}

bool HttpResponse::write(QByteArrayView bytes)
{
    if (m_stage != Stage::Streaming)
        return false;
    if (bytes.isEmpty())
        return true;
    if (m_eventStream)
        m_keepAlive.start();
    return writeToPeer(m_chunked ? HttpWire::chunk(bytes) : bytes.toByteArray());
}

bool HttpResponse::beginEventStream(const HttpHeaders &headers)
{
    HttpHeaders streamHeaders = headers;
    streamHeaders.remove("Content-Type");
    streamHeaders.remove("Cache-Control");
    streamHeaders.append("Content-Type", "text/event-stream");
    streamHeaders.append("Cache-Control", "no-cache");
    if (!beginStream(200, streamHeaders))
        return false;
    m_eventStream = true;
    m_keepAlive.start();
    return m_stage == Stage::Streaming;
}

bool HttpResponse::writeEvent(const QJsonObject &message)
{
    return writeEventData(QJsonDocument(message).toJson(QJsonDocument::Compact));
}

bool HttpResponse::writeEventData(QByteArrayView data)
{
    if (!m_eventStream)
        return false;
    return write(HttpWire::eventStreamMessage(data));
}

bool HttpResponse::end()
{
    if (m_stage != Stage::Streaming || !m_connection)
        return false;
    m_keepAlive.stop();
    if (m_chunked)
        m_connection->writeBytes(HttpWire::LastChunk);
    m_stage = Stage::Finished;
    m_connection->endResponse(m_closeAfter);
    return true;
}

void HttpResponse::abort()
{
    if (m_stage != Stage::Waiting && m_stage != Stage::Streaming)
        return;
    m_stage = Stage::Aborted;
    m_keepAlive.stop();
    if (m_connection)
        m_connection->abort();
}

void HttpResponse::logRefused(const QByteArrayList &refused) const
{
    if (!refused.isEmpty())
        spdlog::warn("HTTP {} {}: left out response header fields that could forge others: {}",
                     m_request.method.toStdString(), m_request.path.toStdString(), refused.join(", ").toStdString());
}

bool HttpResponse::writeToPeer(QByteArrayView bytes)
{
    if (!m_connection)
        return false;
    m_connection->writeBytes(bytes);
    if (m_connection->unsentBytes() > m_maxUnsentBytes) {
        spdlog::info("HTTP {} {} from {}: the peer reads too slowly ({} bytes unsent); closing its stream",
                     m_request.method.toStdString(), m_request.path.toStdString(), m_request.peerAddress.toString(),
                     m_connection->unsentBytes());
        m_connection->abort(); // aborted() follows from the event loop
        return false;
    }
    return true;
}

bool HttpResponse::markAborted()
{
    m_keepAlive.stop();
    const bool wasOpen = m_stage == Stage::Waiting || m_stage == Stage::Streaming;
    if (wasOpen)
        m_stage = Stage::Aborted;
    return wasOpen;
}

} // namespace Tether
