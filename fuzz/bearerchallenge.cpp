#include "fuzzentries.h"

#include "transport/bearerchallenge.h"

using namespace Qt::StringLiterals;

namespace Tether::Fuzz {

static QByteArray quoted(const QString &value)
{
    QByteArray text = value.toUtf8();
    text.replace('\\', "\\\\").replace('"', "\\\"");
    return '"' + text + '"';
}

// A challenge as a server would write it.
static QByteArray written(const BearerChallenge &challenge)
{
    return "Bearer error=" + quoted(challenge.error) + ", error_description=" + quoted(challenge.errorDescription)
           + ", scope=" + quoted(challenge.scope)
           + ", resource_metadata=" + quoted(challenge.resourceMetadata.toString(QUrl::FullyEncoded));
}

// The input's lines: WWW-Authenticate values as a server sends them.
QString bearerChallenge(QByteArrayView input)
{
    const QList<BearerChallenge> challenges = parseBearerChallenges(input.toByteArray().split('\n'));
    for (const BearerChallenge &challenge : challenges) {
        const QUrl &metadata = challenge.resourceMetadata;
        if (!metadata.isEmpty()
            && (metadata.host().isEmpty() || (metadata.scheme() != u"https"_s && metadata.scheme() != u"http"_s)))
            return u"resource_metadata %1 is no absolute http(s) url"_s.arg(metadata.toString());
        const QByteArray again = written(challenge);
        const QList<BearerChallenge> reread = parseBearerChallenges({again});
        if (reread != QList<BearerChallenge>{challenge})
            return u"the challenge written back as %1 reads differently"_s.arg(QString::fromUtf8(again));
    }
    return {};
}

} // namespace Tether::Fuzz
