#pragma once

#include "httprequest.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

namespace Tether {

// How much of a request HttpRequestParser reads before it refuses it.
struct HttpLimits
{
    qsizetype maxRequestLineBytes = 8 * 1024; // the request line with its line end (and any empty lines before it)
    qsizetype maxHeaderBytes = 32 * 1024;     // every header field line and the empty line that ends them
    int maxHeaderFields = 100;
    qint64 maxBodyBytes = 4 * 1024 * 1024;    // as the TypeScript SDK's MCP server
};

// Why a request was refused, as the status to answer with and words for people.
struct HttpParseError
{
    int status = 0;
    QString reason;
};

// Reads HTTP/1.0 and HTTP/1.1 requests from bytes as they arrive, in pieces of any size: the
// outcome never depends on where the pieces were split. Pure: no I/O, no clock.
//
//   push(bytes) → NeedMore   give it more bytes
//               → HeadReady  request() holds everything but the body, none of which is read
//                            yet: judge the head (401, 403, …) before taking the body; the next
//                            push, even of nothing, goes on with the body
//               → Complete   takeRequest() hands the request over; bytes after it (a pipelined
//                            request) stay buffered and are parsed by the push after that
//               → Failed     error() says why; the parser reads nothing more
//
// It accepts what RFC 9112 allows and nothing more lenient: lines end with CRLF or LF (a CR
// anywhere else is refused), empty lines before the request line are skipped, methods GET,
// POST, DELETE and OPTIONS (other known methods 405, other tokens 501), the request-target in
// origin form, absolute form (its authority must match Host) or "*" for OPTIONS, HTTP/1.0 and
// HTTP/1.1 (1.x as 1.1, 2.0 and 0.9 are 505), a body only by Content-Length (repeated fields
// must agree; Transfer-Encoding is 411, or 400 beside a Content-Length), Host once in HTTP/1.1,
// Expect only as 100-continue (else 417). Refused with 400: field names that are not tokens or
// have whitespace before the colon, obs-fold, control characters (NUL, bare CR) in values.
// Bounds: 414 for a request line over maxRequestLineBytes, 431 for a header block over
// maxHeaderBytes or more than maxHeaderFields fields, 413 for a Content-Length over
// maxBodyBytes (known from the head, before a byte of the body is read). So while it reads a
// head it holds at most maxRequestLineBytes + maxHeaderBytes, while it reads a body at most the
// Content-Length.
class HttpRequestParser final
{
public:
    enum class Progress { NeedMore, HeadReady, Complete, Failed };

    // What to send in Allow with a 405.
    static constexpr QByteArrayView AllowedMethods = "GET, POST, DELETE, OPTIONS";

    explicit HttpRequestParser(HttpLimits limits = {});

    Progress push(QByteArrayView bytes);

    // The request being read: its head from HeadReady on, its body at Complete.
    const HttpRequest &request() const { return m_request; }
    // After Complete: the request; the parser then starts on the next one.
    HttpRequest takeRequest();
    // After Failed: why.
    const HttpParseError &error() const { return m_error; }

    // Bytes held: the part of the head or body read so far, and what came after a complete request.
    qsizetype bufferedBytes() const { return m_buffer.size(); }
    // The body is complete in the buffer (after HeadReady: no need to ask for it).
    bool hasWholeBody() const;
    const HttpLimits &limits() const { return m_limits; }

private:
    enum class Stage { RequestLine, Fields, HeadDelivered, Body, Complete, Failed };

    Progress parse();
    Progress readHead();
    bool parseRequestLine(QByteArrayView line);
    bool parseField(QByteArrayView line);
    bool checkHead();
    bool readContentLength();
    Progress fail(int status, const QString &reason);

    HttpLimits m_limits;
    Stage m_stage = Stage::RequestLine;
    QByteArray m_buffer;
    qsizetype m_lineStart = 0;    // where the line being read starts in m_buffer
    qsizetype m_searchedTo = 0;   // no '\n' in m_buffer between m_lineStart and here
    qsizetype m_sectionStart = 0; // where the request line's part (or the header block) starts
    QByteArray m_targetAuthority; // of an absolute-form target
    HttpRequest m_request;
    HttpParseError m_error;
};

} // namespace Tether
