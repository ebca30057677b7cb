#include "displaytext.h"

#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>
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

// A url scheme as RFC 3986 spells it: a letter, then letters, digits, '+', '-' or '.'.
static bool isScheme(QStringView text)
{
    const auto isAsciiLetter = [](QChar c) { return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z'); };
    return !text.isEmpty() && isAsciiLetter(text.front())
           && std::all_of(text.begin(), text.end(), [&](QChar c) {
                  return isAsciiLetter(c) || (c >= u'0' && c <= u'9') || c == u'+' || c == u'-' || c == u'.';
              });
}

// The first of `stops` in `text` from `from` on, skipping ${…} references (whose names may hold
// any of them); -1 when none.
static qsizetype indexOutsideReferences(QStringView text, qsizetype from, QStringView stops)
{
    for (qsizetype at = from; at < text.size(); ++at) {
        if (text.sliced(at).startsWith(u"${")) {
            at = text.indexOf(u'}', at);
            if (at < 0)
                return -1;
        } else if (stops.contains(text[at])) {
            return at;
        }
    }
    return -1;
}

QString redactedUrl(const QString &url)
{
    // On the text as written: QUrl would percent-encode the braces of ${env:…}.
    QString shown = url;
    // Only a "://" right after the scheme starts an authority: one in a query or fragment does not.
    const qsizetype authorityStart = shown.indexOf(u"://");
    if (authorityStart >= 0 && isScheme(QStringView(shown).first(authorityStart))) {
        const qsizetype hostStart = authorityStart + 3;
        const qsizetype end = indexOutsideReferences(shown, hostStart, u"/?#");
        const qsizetype authorityEnd = end < 0 ? shown.size() : end;
        const qsizetype at = shown.lastIndexOf(u'@', authorityEnd - 1);
        if (at >= hostStart) {
            const QString userInfo = shown.mid(hostStart, at - hostStart);
            const qsizetype colon = indexOutsideReferences(userInfo, 0, u":");
            shown.replace(hostStart, at - hostStart,
                          colon < 0 ? redactedValue(userInfo)
                                    : redactedValue(QStringView(userInfo).first(colon)) + u':'
                                          + redactedValue(QStringView(userInfo).sliced(colon + 1)));
        }
    }
    const qsizetype queryStart = indexOutsideReferences(shown, 0, u"?#");
    if (queryStart < 0 || shown[queryStart] != u'?')
        return shown;
    const qsizetype fragment = indexOutsideReferences(shown, queryStart, u"#");
    const qsizetype queryEnd = fragment < 0 ? shown.size() : fragment;
    // Each name=value pair, split where no ${…} reference holds the '&' or '=': so a second pass
    // finds the very pairs the first one left.
    const QString query = shown.mid(queryStart + 1, queryEnd - queryStart - 1);
    QStringList items;
    for (qsizetype itemStart = 0; itemStart <= query.size();) {
        const qsizetype ampersand = indexOutsideReferences(query, itemStart, u"&");
        const qsizetype itemEnd = ampersand < 0 ? query.size() : ampersand;
        const QStringView item = QStringView(query).sliced(itemStart, itemEnd - itemStart);
        const qsizetype equals = indexOutsideReferences(item, 0, u"=");
        items.append(equals < 0 ? item.toString() : item.first(equals + 1) + redactedValue(item.sliced(equals + 1)));
        itemStart = itemEnd + 1;
    }
    shown.replace(queryStart + 1, queryEnd - queryStart - 1, items.join(u'&'));
    return shown;
}

QString signalName(int signalNumber)
{
    const char *abbreviation = sigabbrev_np(signalNumber);
    return abbreviation ? u"SIG"_s + QString::fromLatin1(abbreviation) : u"signal %1"_s.arg(signalNumber);
}

static bool isControl(QChar c, LineBreaks lineBreaks)
{
    const char16_t code = c.unicode();
    if (code == u'\t' || (code == u'\n' && lineBreaks == LineBreaks::Keep))
        return false;
    return code < 0x20 || (code >= 0x7f && code < 0xa0);
}

QString withVisibleControls(QStringView text, LineBreaks lineBreaks)
{
    if (std::none_of(text.begin(), text.end(), [lineBreaks](QChar c) { return isControl(c, lineBreaks); }))
        return text.toString();
    QString shown;
    shown.reserve(text.size() + 16);
    for (const QChar c : text) {
        if (!isControl(c, lineBreaks))
            shown.append(c);
        else if (c.unicode() < 0x80)
            shown.append(u"\\x"_s + QString::number(c.unicode(), 16).rightJustified(2, u'0'));
        else
            shown.append(u"\\u"_s + QString::number(c.unicode(), 16).rightJustified(4, u'0'));
    }
    return shown;
}

PointedText pointAt(QStringView text, qsizetype position, qsizetype width)
{
    position = std::clamp<qsizetype>(position, 0, text.size());
    const auto shown = [](QStringView part) { return withVisibleControls(part).replace(u'\t', u' '); };
    const QString before = shown(text.first(position));
    const QString whole = before + shown(text.sliced(position));
    qsizetype column = before.size();
    // The window of `width` characters that has the position in its middle, moved inside the text.
    const qsizetype end = std::min(whole.size(), std::max(column - width / 2, qsizetype(0)) + width);
    const qsizetype start = std::max(end - width, qsizetype(0));
    QString line = whole.sliced(start, end - start);
    if (start > 0) {
        line.prepend(u'…');
        column = column - start + 1;
    }
    if (end < whole.size())
        line.append(u'…');
    return {line, QString(column, u' ') + u'^'};
}

static const QString Scrubbed = u"…"_s;

SecretScrubber::SecretScrubber(const QStringList &values)
{
    for (const QString &value : values) {
        if (value.size() >= MinimumLength && !m_secrets.contains(value))
            m_secrets.append(value);
    }
    // Longest first: a secret that contains another is scrubbed whole.
    std::stable_sort(m_secrets.begin(), m_secrets.end(),
                     [](const QString &a, const QString &b) { return a.size() > b.size(); });
}

SecretScrubber SecretScrubber::with(const QStringList &values) const
{
    const bool known = std::all_of(values.cbegin(), values.cend(), [this](const QString &value) {
        return value.size() < MinimumLength || m_secrets.contains(value);
    });
    return known ? *this : SecretScrubber(m_secrets + values);
}

QString SecretScrubber::scrub(QString text) const
{
    for (const QString &secret : m_secrets) {
        text.replace(secret, Scrubbed);
        // An excerpt that ends inside a secret shows its start before "…".
        for (qsizetype at = text.indexOf(Scrubbed); at >= 0; at = text.indexOf(Scrubbed, at + 1)) {
            for (qsizetype length = std::min(at, secret.size() - 1); length >= MinimumLength; --length) {
                if (QStringView(text).sliced(at - length, length) == QStringView(secret).first(length)) {
                    text.remove(at - length, length);
                    at -= length;
                    break;
                }
            }
        }
    }
    return text;
}

QJsonValue SecretScrubber::scrub(const QJsonValue &value) const
{
    if (m_secrets.isEmpty())
        return value;
    switch (value.type()) {
    case QJsonValue::String:
        return scrub(value.toString());
    case QJsonValue::Array: {
        QJsonArray scrubbed;
        for (const QJsonValue &item : value.toArray())
            scrubbed.append(scrub(item));
        return scrubbed;
    }
    case QJsonValue::Object: {
        QJsonObject scrubbed;
        const QJsonObject object = value.toObject();
        for (auto it = object.constBegin(); it != object.constEnd(); ++it)
            scrubbed.insert(scrub(it.key()), scrub(it.value()));
        return scrubbed;
    }
    default:
        return value;
    }
}

} // namespace Tether
