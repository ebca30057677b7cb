#include "fieldmessage.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

bool isKeyCharacter(QChar c)
{
    return c.isLetterOrNumber() || c == u'_' || c == u'-';
}

// Where `path` is named in `text` from `from` on as a whole: not the start of a longer key.
qsizetype findPath(const QString &text, const QString &path, qsizetype from)
{
    for (qsizetype at = text.indexOf(path, from); at >= 0; at = text.indexOf(path, at + 1)) {
        const qsizetype end = at + path.size();
        const bool startsKey = at == 0 || (!isKeyCharacter(text.at(at - 1)) && text.at(at - 1) != u'.');
        if (startsKey && (end == text.size() || !isKeyCharacter(text.at(end))))
            return at;
    }
    return -1;
}

// The JSON value the judges quote at `at`: a string with its quotes, or a bare word.
qsizetype valueEnd(const QString &text, qsizetype at)
{
    if (at < text.size() && text.at(at) == u'"') {
        for (qsizetype i = at + 1; i < text.size(); ++i) {
            if (text.at(i) == u'\\')
                ++i;
            else if (text.at(i) == u'"')
                return i + 1;
        }
        return text.size();
    }
    qsizetype end = at;
    while (end < text.size() && text.at(end) != u' ' && text.at(end) != u':' && text.at(end) != u',')
        ++end;
    return end;
}

// The member named right after a field's path (".NAME", "[\"NAME\"]" or "[2]"), as the form
// names it; `at` moves past it.
QString itemName(const QString &text, qsizetype *at, const QString &item)
{
    const qsizetype start = *at;
    if (start + 1 < text.size() && text.at(start) == u'.' && isKeyCharacter(text.at(start + 1))) {
        qsizetype end = start + 1;
        while (end < text.size() && isKeyCharacter(text.at(end)))
            ++end;
        *at = end;
        return u"%1 \"%2\""_s.arg(item, text.sliced(start + 1, end - start - 1));
    }
    if (text.sliced(start).startsWith(u"[\""_s)) {
        const qsizetype end = valueEnd(text, start + 1);
        if (end < text.size() && text.at(end) == u']') {
            *at = end + 1;
            return u"%1 %2"_s.arg(item, text.sliced(start + 1, end - start - 1));
        }
    }
    if (text.sliced(start).startsWith(u'[')) {
        const qsizetype close = text.indexOf(u']', start);
        bool isIndex = false;
        const int index = close > start ? text.sliced(start + 1, close - start - 1).toInt(&isIndex) : 0;
        if (isIndex) {
            *at = close + 1;
            return u"%1 %2"_s.arg(item).arg(index + 1);
        }
    }
    return {};
}

} // namespace

QString inFormWords(const QString &message, const QList<FieldLabel> &fields)
{
    QString words;
    qsizetype at = 0;
    while (at < message.size()) {
        // The first path named next; of paths named at one place, the longest (a field below the server's own path).
        const FieldLabel *named = nullptr;
        qsizetype namedAt = -1;
        for (const FieldLabel &field : fields) {
            const qsizetype found = findPath(message, field.path, at);
            if (found >= 0 && (namedAt < 0 || found < namedAt || (found == namedAt && field.path.size() > named->path.size()))) {
                named = &field;
                namedAt = found;
            }
        }
        if (!named) {
            words += message.sliced(at);
            break;
        }
        words += message.sliced(at, namedAt - at);
        at = namedAt + named->path.size();
        QString name = named->label;
        if (!named->item.isEmpty()) {
            const QString item = itemName(message, &at, named->item);
            if (!item.isEmpty())
                name = item;
        }
        if (name.isEmpty()) {
            words += named->path; // a path of members only, named in passing as a word
            continue;
        }
        static const QString Equals = u" = "_s;
        if (!message.sliced(at).startsWith(Equals)) {
            words += name;
            continue;
        }
        const qsizetype valueStart = at + Equals.size();
        const qsizetype end = valueEnd(message, valueStart);
        const QString value = message.sliced(valueStart, end - valueStart);
        at = end;
        if (value != u"\"\"") {
            words += u"%1 (%2)"_s.arg(name, value);
            continue;
        }
        // An empty text fails as "is empty" or "is not a number": to a person, the field is empty.
        words += name + u" is empty"_s;
        for (const QString &verdict : {u" is empty"_s, u" is not a number"_s}) {
            if (message.sliced(at).startsWith(verdict)) {
                at += verdict.size();
                break;
            }
        }
    }
    return words;
}

QString fieldName(const QString &labelText)
{
    QString name = labelText;
    name.remove(u'&');
    if (name.endsWith(u':'))
        name.chop(1);
    return name.trimmed();
}

} // namespace Tether
