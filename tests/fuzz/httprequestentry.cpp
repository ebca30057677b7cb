#include "httprequestentry.h"

#include "httpserver/httprequestparser.h"
#include "support/httpparseoutcome.h"

using namespace Qt::StringLiterals;
using namespace Tether::Testing;

namespace Tether::Fuzz {

static HttpLimits smallLimits()
{
    HttpLimits limits;
    limits.maxRequestLineBytes = 64;
    limits.maxHeaderBytes = 128;
    limits.maxHeaderFields = 4;
    limits.maxBodyBytes = 32;
    return limits;
}

static QByteArray printed(const HttpRequest &request)
{
    QByteArray bytes = request.method + ' ' + request.target + " HTTP/1." + QByteArray::number(request.minorVersion) + "\r\n";
    for (const auto &[name, value] : request.headers.fields())
        bytes += name + ": " + value + "\r\n";
    return bytes + "\r\n" + request.body;
}

static bool sameRequest(const HttpRequest &a, const HttpRequest &b)
{
    return a.method == b.method && a.target == b.target && a.path == b.path && a.query == b.query
           && a.minorVersion == b.minorVersion && a.headers == b.headers && a.contentLength == b.contentLength
           && a.body == b.body;
}

// What must hold of a request the parser accepted; empty when it does.
static QString brokenInRequest(const HttpRequest &request, const HttpLimits &limits)
{
    static const QByteArrayList methods{"GET", "POST", "DELETE", "OPTIONS"};
    if (!methods.contains(request.method))
        return u"accepted the method %1"_s.arg(QString::fromLatin1(request.method));
    if (request.body.size() != request.contentLength || request.contentLength > limits.maxBodyBytes)
        return u"accepted a body of %1 bytes for a Content-Length of %2"_s.arg(request.body.size()).arg(request.contentLength);
    if (request.headers.contains("Transfer-Encoding"))
        return u"accepted a Transfer-Encoding"_s;
    if (request.headers.values("Host").size() > 1 || (request.minorVersion == 1 && !request.headers.contains("Host")))
        return u"accepted an HTTP/1.%1 request with %2 Host fields"_s.arg(request.minorVersion).arg(request.headers.values("Host").size());
    if (request.headers.size() > limits.maxHeaderFields)
        return u"accepted %1 header fields"_s.arg(request.headers.size());
    if (request.path.isEmpty())
        return u"accepted an empty path"_s;

    // Printed again (in canonical form, a little longer than some inputs) it reads the same.
    HttpLimits roomier = limits;
    roomier.maxRequestLineBytes = limits.maxRequestLineBytes * 2 + 16;
    roomier.maxHeaderBytes = limits.maxHeaderBytes * 2 + 16;
    HttpRequestParser again(roomier);
    if (again.push(printed(request)) != HttpRequestParser::Progress::HeadReady
        || again.push({}) != HttpRequestParser::Progress::Complete)
        return u"refused its own request printed again: %1"_s.arg(again.error().reason);
    if (!sameRequest(again.takeRequest(), request))
        return u"read its own request printed again as another: %1"_s.arg(renderRequest(request));
    return {};
}

QString httpRequest(QByteArrayView input)
{
    if (input.isEmpty())
        return {};
    const auto first = static_cast<unsigned char>(input.front());
    const qsizetype pieceBytes = (first & 0x3f) + 1;
    const HttpLimits limits = (first & 0x40) ? smallLimits() : HttpLimits{};
    const QByteArrayView stream = input.sliced(1);

    HttpRequestParser whole(limits);
    const QStringList wholeOutcome = parseOutcome(whole, {stream});

    QList<QByteArrayView> pieces;
    for (qsizetype at = 0; at < stream.size(); at += pieceBytes)
        pieces.append(stream.sliced(at, std::min(pieceBytes, stream.size() - at)));
    QString broken;
    const qsizetype maxHeld = std::max<qsizetype>(limits.maxRequestLineBytes + limits.maxHeaderBytes, limits.maxBodyBytes);
    const auto check = [&broken, &limits, maxHeld](const HttpRequestParser &parser, HttpRequestParser::Progress progress) {
        if (!broken.isEmpty())
            return;
        switch (progress) {
        case HttpRequestParser::Progress::NeedMore:
            if (parser.bufferedBytes() > maxHeld)
                broken = u"holds %1 bytes while it needs more, over its bounds"_s.arg(parser.bufferedBytes());
            break;
        case HttpRequestParser::Progress::HeadReady:
            break;
        case HttpRequestParser::Progress::Complete:
            broken = brokenInRequest(parser.request(), limits);
            break;
        case HttpRequestParser::Progress::Failed: {
            static const QList<int> statuses{400, 405, 411, 413, 414, 417, 431, 501, 505};
            if (!statuses.contains(parser.error().status) || parser.error().reason.isEmpty())
                broken = u"refused with %1 '%2'"_s.arg(parser.error().status).arg(parser.error().reason);
            else if (parser.bufferedBytes() != 0)
                broken = u"holds %1 bytes after refusing"_s.arg(parser.bufferedBytes());
            break;
        }
        }
    };
    HttpRequestParser inPieces(limits);
    const QStringList piecesOutcome = parseOutcome(inPieces, pieces, check);
    if (!broken.isEmpty())
        return broken;
    if (piecesOutcome != wholeOutcome)
        return u"reads pieces of %1 bytes as %2, the whole as %3"_s.arg(pieceBytes).arg(piecesOutcome.join(u" // "_s),
                                                                                           wholeOutcome.join(u" // "_s));
    return {};
}

} // namespace Tether::Fuzz
