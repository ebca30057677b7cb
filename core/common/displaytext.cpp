#include "displaytext.h"

#include <QStringList>

#include <cstring>

using namespace Qt::StringLiterals;

namespace Tether {

QString excerpt(QByteArrayView bytes, qsizetype maxChars)
{
    QString text = QString::fromUtf8(bytes.first(std::min(bytes.size(), maxChars * 4)));
    text.replace(u'\n', u' ').replace(u'\r', u' ');
    if (text.size() > maxChars || bytes.size() > maxChars * 4)
        return u'\'' + text.left(maxChars) + u"…' ("_s + QString::number(bytes.size()) + u" bytes)"_s;
    return u'\'' + text + u'\'';
}

static QString redactedValue(QStringView value)
{
    if (value.isEmpty() || (value.startsWith(u"${env:") && value.endsWith(u'}')))
        return value.toString();
    return u"…"_s;
}

// The ':' that ends the user in a url's user info, skipping those inside ${env:…}; -1 when none.
static qsizetype userInfoColon(QStringView userInfo)
{
    for (qsizetype at = 0; at < userInfo.size(); ++at) {
        if (userInfo.sliced(at).startsWith(u"${")) {
            at = userInfo.indexOf(u'}', at);
            if (at < 0)
                return -1;
        } else if (userInfo[at] == u':') {
            return at;
        }
    }
    return -1;
}

QString redactedUrl(const QString &url)
{
    // On the text as written: QUrl would percent-encode the braces of ${env:…}.
    QString shown = url;
    const qsizetype authorityStart = shown.indexOf(u"://");
    if (authorityStart >= 0) {
        const qsizetype hostStart = authorityStart + 3;
        qsizetype authorityEnd = shown.size();
        for (const QChar end : {u'/', u'?', u'#'}) {
            const qsizetype at = shown.indexOf(end, hostStart);
            if (at >= 0)
                authorityEnd = std::min(authorityEnd, at);
        }
        const qsizetype at = shown.lastIndexOf(u'@', authorityEnd - 1);
        if (at >= hostStart) {
            const QString userInfo = shown.mid(hostStart, at - hostStart);
            const qsizetype colon = userInfoColon(userInfo);
            shown.replace(hostStart, at - hostStart,
                          colon < 0 ? redactedValue(userInfo)
                                    : redactedValue(QStringView(userInfo).first(colon)) + u':'
                                          + redactedValue(QStringView(userInfo).sliced(colon + 1)));
        }
    }
    const qsizetype queryStart = shown.indexOf(u'?');
    if (queryStart < 0)
        return shown;
    const qsizetype fragment = shown.indexOf(u'#', queryStart);
    const qsizetype queryEnd = fragment < 0 ? shown.size() : fragment;
    QStringList items;
    for (const QString &item : shown.mid(queryStart + 1, queryEnd - queryStart - 1).split(u'&')) {
        const qsizetype equals = item.indexOf(u'=');
        items.append(equals < 0 ? item : item.left(equals + 1) + redactedValue(QStringView(item).sliced(equals + 1)));
    }
    shown.replace(queryStart + 1, queryEnd - queryStart - 1, items.join(u'&'));
    return shown;
}

QString signalName(int signalNumber)
{
    const char *abbreviation = sigabbrev_np(signalNumber);
    return abbreviation ? u"SIG"_s + QString::fromLatin1(abbreviation) : u"signal %1"_s.arg(signalNumber);
}

} // namespace Tether
