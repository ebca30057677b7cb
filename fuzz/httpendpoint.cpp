#include "fuzzentries.h"
#include "fuzzinput.h"

#include "common/displaytext.h"
#include "config/configparser.h"
#include "transport/httpendpoint.h"

#include <QJsonDocument>
#include <QRegularExpression>
#include <QUrlQuery>

using namespace Qt::StringLiterals;

namespace Tether::Fuzz {

// A ${env:} reference as a token with no ':', '@', '&' or '=' in it, so that QUrl splits the
// shown url where Tether does.
static constexpr QStringView ReferenceToken = u"\uFFFEenv\uFFFE";

// User info and query values as messages may show them: hidden, or ${env:} references.
static bool isHidden(const QString &value)
{
    return value.isEmpty() || value == u"…" || (value.startsWith(ReferenceToken) && value.endsWith(ReferenceToken));
}

static QString secretShownIn(QString shown)
{
    static const QRegularExpression reference(u"\\$\\{env:[^}]*\\}"_s);
    const QUrl seen(shown.replace(reference, ReferenceToken.toString()));
    if (!isHidden(seen.userName(QUrl::FullyDecoded)) || !isHidden(seen.password(QUrl::FullyDecoded)))
        return u"user info"_s;
    for (const auto &[key, value] : QUrlQuery(seen).queryItems(QUrl::FullyDecoded)) {
        if (!isHidden(value))
            return u"the query value of '%1'"_s.arg(key);
    }
    return {};
}

// The input's lines: the url as the config writes it, a target (a redirect's Location or an
// HTTP+SSE endpoint event, relative to the url), then headers as "Name: value".
QString httpEndpoint(QByteArrayView input)
{
    const QStringList lines = QString::fromUtf8(input).split(u'\n');
    const QString redacted = redactedUrl(lines.value(0));
    if (redactedUrl(redacted) != redacted)
        return u"hiding the secrets of %1 again changes it"_s.arg(redacted);

    QJsonObject entry{{u"url"_s, lines.value(0)}};
    if (lines.size() > 2) {
        QJsonObject headers;
        for (const QString &line : lines.mid(2)) {
            const qsizetype colon = line.indexOf(u':');
            headers.insert(line.left(colon), colon < 0 ? QString() : line.mid(colon + 1).trimmed());
        }
        entry.insert(u"headers"_s, headers);
    }
    const QJsonObject root{{u"mcpServers"_s, QJsonObject{{u"remote"_s, entry}}}};
    const ConfigDocument document = parseConfig(QJsonDocument(root).toJson(), fuzzConfigPath(), fuzzContext());
    const ServerConfig *server = document.server(u"remote"_s);
    if (!server || !server->isValid())
        return {};

    // As the transport factory makes it.
    const HttpServerEndpoint endpoint{QUrl(server->url), server->headers, server->shownUrl()};
    const QString shown = endpoint.shown();
    if (const QString secret = secretShownIn(shown); !secret.isEmpty())
        return u"the url as shown, %1, shows %2"_s.arg(shown, secret);
    if (!QString::fromUtf8(input).contains(ExpandedMarker) && shown.contains(ExpandedMarker))
        return u"the url as shown, %1, holds a value from the environment"_s.arg(shown);

    const QUrl target = endpoint.url.resolved(QUrl(lines.value(1)));
    if (!isSameOrigin(endpoint.url, endpoint.url))
        return u"the url is not of its own origin"_s;
    if (isSameOrigin(endpoint.url, target) != isSameOrigin(target, endpoint.url))
        return u"same origin is not symmetric for %1 and %2"_s.arg(endpoint.url.toString(), target.toString());
    const QByteArray accept = "application/json, text/event-stream";
    const QNetworkRequest request = endpoint.request(target, accept);
    if (request.rawHeader("Accept") != accept)
        return u"a configured header replaced the protocol's Accept header"_s;
    return {};
}

} // namespace Tether::Fuzz
