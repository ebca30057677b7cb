#pragma once

#include "httpserver/httprequestparser.h"

#include <QList>
#include <QStringList>

#include <functional>

namespace Tether::Testing {

// "POST /a?b=1 HTTP/1.1 | Host: x | Content-Length: 2 | body 'hi'"
inline QString renderRequest(const HttpRequest &request)
{
    using namespace Qt::StringLiterals;
    QString text = QString::fromLatin1(request.method) + u' ' + QString::fromLatin1(request.path);
    if (!request.query.isEmpty())
        text += u'?' + QString::fromLatin1(request.query);
    text += u" HTTP/1."_s + QString::number(request.minorVersion);
    for (const auto &[name, value] : request.headers.fields())
        text += u" | "_s + QString::fromLatin1(name) + u": "_s + QString::fromLatin1(value);
    if (request.contentLength > 0)
        text += u" | body '"_s + QString::fromLatin1(request.body) + u'\'';
    return text;
}

using AfterPush = std::function<void(const HttpRequestParser &, HttpRequestParser::Progress)>;

// Everything the parser made of the input fed in these pieces, going on after each head and
// each request as a server does: each request rendered, then "error <status>", or "needs more"
// when the input stopped inside a request. afterPush sees the parser after every push.
inline QStringList parseOutcome(HttpRequestParser &parser, const QList<QByteArrayView> &pieces, const AfterPush &afterPush = {})
{
    using namespace Qt::StringLiterals;
    const auto push = [&parser, &afterPush](QByteArrayView bytes) {
        const HttpRequestParser::Progress progress = parser.push(bytes);
        if (afterPush)
            afterPush(parser, progress);
        return progress;
    };
    QStringList seen;
    bool insideRequest = false;
    for (const QByteArrayView piece : pieces) {
        HttpRequestParser::Progress progress = push(piece);
        for (;;) {
            if (progress == HttpRequestParser::Progress::HeadReady) {
                insideRequest = true;
                progress = push({});
            } else if (progress == HttpRequestParser::Progress::Complete) {
                seen.append(renderRequest(parser.takeRequest()));
                insideRequest = false;
                progress = push({});
            } else {
                break;
            }
        }
        if (progress == HttpRequestParser::Progress::Failed) {
            seen.append(u"error "_s + QString::number(parser.error().status));
            return seen;
        }
    }
    if (insideRequest || parser.bufferedBytes() > 0)
        seen.append(u"needs more"_s);
    return seen;
}

} // namespace Tether::Testing
