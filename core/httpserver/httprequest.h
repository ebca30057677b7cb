#pragma once

#include "httpheaders.h"

#include <QByteArray>
#include <QHostAddress>
#include <QUrlQuery>

namespace Tether {

// One HTTP/1.x request as HttpRequestParser read it and HttpServer hands it over. From the
// moment its head is complete everything but the body is set; the body comes with the whole
// request. The parser has checked the syntax and the bounds, so a handler only judges meaning.
struct HttpRequest
{
    QByteArray method;        // GET, POST, DELETE or OPTIONS (the parser refuses others)
    QByteArray target;        // the request-target as sent: "/mcp?x=1", "*", "http://host/mcp"
    QByteArray path;          // its path, percent-decoded: "/mcp" ("*" for OPTIONS *)
    QByteArray query;         // its query as sent, without the '?': "x=1"
    int minorVersion = 1;     // HTTP/1.<minorVersion>: 0 or 1
    HttpHeaders headers;
    qint64 contentLength = 0; // the body's length, from Content-Length (0 without one)
    QByteArray body;
    QHostAddress peerAddress; // set by HttpServer: who sent it
    quint16 peerPort = 0;
    bool encrypted = false;   // set by HttpServer: it came over TLS

    // A header's value (repeated fields joined with ", "), its name in any case; empty when absent.
    QByteArray header(QByteArrayView name) const { return headers.value(name); }
    // The query's items, decoded.
    QUrlQuery queryItems() const;
    // Whether the connection stays open after the response: HTTP/1.1 unless "Connection:
    // close", HTTP/1.0 only with "Connection: keep-alive".
    bool keepAlive() const;
    // An HTTP/1.1 client that waits for "100 Continue" before it sends the body (RFC 9110
    // §10.1.1: the expectation of an HTTP/1.0 request is ignored).
    bool expectsContinue() const;
};

} // namespace Tether
