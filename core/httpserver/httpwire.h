#pragma once

#include "httpheaders.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QDateTime>

// Responses as bytes on the wire: the head, chunks of a chunked body, and the messages of an
// event stream. Pure functions; HttpResponse and HttpConnection write what they return.
namespace Tether::HttpWire {

// How the body after a head ends, and whether the connection does.
struct Framing
{
    enum class Body {
        Length,     // Content-Length: contentLength
        Chunked,    // Transfer-Encoding: chunked (HTTP/1.1 peers)
        UntilClose, // the body ends when the connection closes (an HTTP/1.0 peer's stream)
    };
    Body body = Body::Length;
    qint64 contentLength = 0;
    bool closeAfter = false;        // Connection: close
    bool keepAliveForHttp10 = false; // Connection: keep-alive, which an HTTP/1.0 peer needs to keep it
};

// "OK" for 200; empty for a status without a registered phrase (the reason phrase is optional).
QByteArrayView reasonPhrase(int status);

// "Sun, 06 Nov 1994 08:49:37 GMT" (RFC 9110 §5.6.7).
QByteArray httpDate(const QDateTime &time);

// The status line, Date, the given fields and the framing fields, then the empty line. The
// framing fields (Content-Length, Transfer-Encoding, Connection) and Date are the server's: the
// given ones of those names are left out. So is any field whose name is not a token or whose
// value holds CR, LF or another control character (it could forge a field or a response); their
// names go to `refused`. A 1xx, 204 or 304 response gets no Content-Length.
QByteArray responseHead(int status, const HttpHeaders &headers, const Framing &framing, const QDateTime &date,
                        QByteArrayList *refused = nullptr);

// A whole response: its head with Content-Length, then the body, to be written at once (so that
// a small response leaves in one segment).
QByteArray wholeResponse(int status, const HttpHeaders &headers, const QByteArray &body, bool closeAfter,
                         bool keepAliveForHttp10, const QDateTime &date, QByteArrayList *refused = nullptr);

inline constexpr QByteArrayView ContinueResponse = "HTTP/1.1 100 Continue\r\n\r\n";

// One chunk of a chunked body; empty for empty data (an empty chunk would end the body).
QByteArray chunk(QByteArrayView data);
inline constexpr QByteArrayView LastChunk = "0\r\n\r\n";

// One event-stream message event carrying the data: a "data:" line per line of it (CR, LF or
// CRLF; compact JSON has none, so it is one line), then the empty line that dispatches it.
QByteArray eventStreamMessage(QByteArrayView data);
// A comment, which an event-stream reader skips: it keeps idle streams and their proxies alive.
inline constexpr QByteArrayView EventStreamKeepAlive = ": keepalive\n\n";

} // namespace Tether::HttpWire
