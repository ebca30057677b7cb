#include "bearerchallenge.h"

#include "httpendpoint.h"

#include <QNetworkReply>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

bool isTokenChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
           || QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
}

bool isToken68Char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
           || QByteArrayView("-._~+/").contains(c);
}

struct Challenge
{
    QByteArray scheme;
    QList<std::pair<QByteArray, QByteArray>> params; // names lower-cased, first of each name only
};

// One WWW-Authenticate value, read left to right.
class ChallengeReader final
{
public:
    explicit ChallengeReader(QByteArrayView text) : m_text(text) {}

    QList<Challenge> read()
    {
        QList<Challenge> challenges;
        while (true) {
            skipSeparators();
            if (atEnd())
                return challenges;
            Challenge challenge{take(isTokenChar), {}};
            if (challenge.scheme.isEmpty())
                return challenges;
            const bool spaced = skipSpace() > 0;
            const bool wellFormed = !spaced || skipToken68() || !paramFollows() || readParams(challenge);
            challenges.append(challenge);
            if (!wellFormed || (!atEnd() && peek() != ','))
                return challenges;
        }
    }

private:
    bool atEnd() const { return m_at >= m_text.size(); }
    char peek() const { return m_text[m_at]; }

    qsizetype skipSpace()
    {
        const qsizetype from = m_at;
        while (!atEnd() && (peek() == ' ' || peek() == '\t'))
            ++m_at;
        return m_at - from;
    }

    void skipSeparators()
    {
        while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == ','))
            ++m_at;
    }

    QByteArray take(bool (*accepts)(char))
    {
        const qsizetype from = m_at;
        while (!atEnd() && accepts(peek()))
            ++m_at;
        return m_text.sliced(from, m_at - from).toByteArray();
    }

    // A token68 credential ends the challenge; Tether needs none, so it is only stepped over.
    // Anything else (an auth-param: "name=value") leaves the reader where it was.
    bool skipToken68()
    {
        const qsizetype from = m_at;
        if (!atEnd() && peek() != ',' && !take(isToken68Char).isEmpty()) {
            while (!atEnd() && peek() == '=')
                ++m_at;
            skipSpace();
            if (atEnd() || peek() == ',')
                return true;
        }
        m_at = from;
        return false;
    }

    // quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE, the opening quote next.
    bool readQuoted(QByteArray *value)
    {
        ++m_at;
        while (!atEnd()) {
            const char c = m_text[m_at++];
            if (c == '"')
                return true;
            if (c == '\\') {
                if (atEnd())
                    return false;
                value->append(m_text[m_at++]);
            } else {
                value->append(c);
            }
        }
        return false;
    }

    // Whether an auth-param ("name =", after empty list elements) comes next rather than the
    // next challenge's scheme: if so the reader moves to its name, else stays.
    bool paramFollows()
    {
        const qsizetype from = m_at;
        skipSeparators();
        const qsizetype name = m_at;
        const bool named = !take(isTokenChar).isEmpty();
        skipSpace();
        const bool follows = named && !atEnd() && peek() == '=';
        m_at = follows ? name : from;
        return follows;
    }

    // auth-param *( OWS "," OWS [ auth-param ] ), up to where the next challenge starts.
    bool readParams(Challenge &challenge)
    {
        while (true) {
            const QByteArray name = take(isTokenChar).toLower();
            skipSpace();
            if (name.isEmpty() || atEnd() || peek() != '=')
                return false;
            ++m_at;
            skipSpace();
            QByteArray value;
            if (!atEnd() && peek() == '"') {
                if (!readQuoted(&value))
                    return false;
            } else if ((value = take(isTokenChar)).isEmpty()) {
                return false;
            }
            skipSpace();
            // A value must end the list element: "scope=files:read" is no value of "files".
            if (!atEnd() && peek() != ',')
                return false;
            const bool known = std::any_of(challenge.params.cbegin(), challenge.params.cend(),
                                           [&name](const auto &param) { return param.first == name; });
            if (!known)
                challenge.params.append({name, value});
            if (atEnd() || !paramFollows())
                return true;
        }
    }

    QByteArrayView m_text;
    qsizetype m_at = 0;
};

QString paramOf(const Challenge &challenge, const char *name)
{
    for (const auto &[key, value] : challenge.params) {
        if (key == name)
            return QString::fromUtf8(value);
    }
    return {};
}

// RFC 9728 §5.1: the url of the server's metadata; anything but an absolute http(s) url is no
// place to look.
QUrl metadataUrlOf(const QString &value)
{
    const QUrl url(value, QUrl::StrictMode);
    const bool usable = url.isValid() && !url.host().isEmpty() && (url.scheme() == u"https"_s || url.scheme() == u"http"_s);
    return usable ? url : QUrl();
}

} // namespace

QList<BearerChallenge> parseBearerChallenges(const QList<QByteArray> &headerValues)
{
    QList<BearerChallenge> bearers;
    for (const QByteArray &value : headerValues) {
        for (const Challenge &challenge : ChallengeReader(value).read()) {
            if (challenge.scheme.compare("bearer", Qt::CaseInsensitive) != 0)
                continue;
            bearers.append({0, paramOf(challenge, "error"), paramOf(challenge, "error_description"),
                            paramOf(challenge, "scope"), metadataUrlOf(paramOf(challenge, "resource_metadata"))});
        }
    }
    return bearers;
}

BearerChallenge bearerChallengeOf(const QNetworkReply &reply)
{
    QList<QByteArray> values;
    for (const auto &[name, value] : reply.rawHeaderPairs()) {
        if (name.compare("WWW-Authenticate", Qt::CaseInsensitive) == 0)
            values.append(value);
    }
    const QList<BearerChallenge> bearers = parseBearerChallenges(values);
    BearerChallenge challenge = bearers.value(0);
    challenge.status = httpStatusOf(reply);
    return challenge;
}

} // namespace Tether
