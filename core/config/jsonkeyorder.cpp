#include "jsonkeyorder.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <algorithm>

namespace Tether {

namespace {

// Follows the structure of a JSON text that already parsed: member names are read, values skipped.
class KeyOrderScanner
{
public:
    explicit KeyOrderScanner(QByteArrayView bytes) : m_bytes(bytes) {}

    std::optional<JsonKeyOrder> scan()
    {
        if (m_bytes.startsWith("\xEF\xBB\xBF"))
            m_pos = 3;
        JsonKeyOrder order;
        if (!readValue(&order))
            return std::nullopt;
        return order;
    }

private:
    char peek()
    {
        while (m_pos < m_bytes.size() && QByteArrayView(" \t\r\n").contains(m_bytes.at(m_pos)))
            ++m_pos;
        return m_pos < m_bytes.size() ? m_bytes.at(m_pos) : '\0';
    }

    bool readValue(JsonKeyOrder *order)
    {
        const char first = peek();
        if (first == '{')
            return readObject(order);
        if (first == '[')
            return readArray(order);
        if (first == '"')
            return skipString();
        const qsizetype start = m_pos;
        while (m_pos < m_bytes.size() && !QByteArrayView(",}] \t\r\n").contains(m_bytes.at(m_pos)))
            ++m_pos;
        return m_pos > start;
    }

    bool readObject(JsonKeyOrder *order)
    {
        ++m_pos;
        if (peek() == '}') {
            ++m_pos;
            return true;
        }
        while (true) {
            if (peek() != '"')
                return false;
            const qsizetype start = m_pos;
            const int line = lineAt(start);
            if (!skipString())
                return false;
            // Qt's own parser decodes the escapes of the name.
            const QByteArray quoted = '[' + m_bytes.sliced(start, m_pos - start).toByteArray() + ']';
            const QString name = QJsonDocument::fromJson(quoted).array().at(0).toString();
            if (peek() != ':')
                return false;
            ++m_pos;
            JsonKeyOrder member;
            if (!readValue(&member))
                return false;
            order->keys.append(name);
            order->lines.append(line);
            order->members.insert(name, member);
            const char next = peek();
            ++m_pos;
            if (next == '}')
                return true;
            if (next != ',')
                return false;
        }
    }

    bool readArray(JsonKeyOrder *order)
    {
        ++m_pos;
        if (peek() == ']') {
            ++m_pos;
            return true;
        }
        while (true) {
            JsonKeyOrder element;
            if (!readValue(&element))
                return false;
            order->elements.append(element);
            const char next = peek();
            ++m_pos;
            if (next == ']')
                return true;
            if (next != ',')
                return false;
        }
    }

    bool skipString()
    {
        for (++m_pos; m_pos < m_bytes.size(); ++m_pos) {
            if (m_bytes.at(m_pos) == '\\')
                ++m_pos;
            else if (m_bytes.at(m_pos) == '"') {
                ++m_pos;
                return true;
            }
        }
        return false;
    }

    // Names are met in file order, so the line breaks are counted once, from the last name on.
    int lineAt(qsizetype pos)
    {
        m_line += int(m_bytes.sliced(m_countedTo, pos - m_countedTo).count('\n'));
        m_countedTo = pos;
        return m_line;
    }

    QByteArrayView m_bytes;
    qsizetype m_pos = 0;
    qsizetype m_countedTo = 0;
    int m_line = 1;
};

// A string, number, boolean or null exactly as QJsonDocument writes it: it writes only arrays
// and objects, so the value is written as the one element of an array, brackets dropped.
QByteArray scalarJson(const QJsonValue &value)
{
    const QByteArray array = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return array.sliced(1, array.size() - 2);
}

QByteArray indentation(const JsonTextStyle &style, int depth)
{
    return style.indentUnit.repeated(depth);
}

// The members of `object` in the order toOrderedJson describes, each with the order inside it.
QList<std::pair<QString, JsonKeyOrder>> orderedMembers(const QJsonObject &object, const JsonKeyOrder &order)
{
    QStringList written;
    QSet<QString> known;
    for (const QString &key : order.keys) {
        if (!known.contains(key)) {
            known.insert(key);
            written.append(key);
        }
    }
    QStringList added;
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        if (!known.contains(it.key()))
            added.append(it.key());
    }
    const auto gone = std::count_if(written.cbegin(), written.cend(), [&](const QString &key) {
        return !object.contains(key);
    });
    const bool renamed = gone == 1 && added.size() == 1;

    QList<std::pair<QString, JsonKeyOrder>> members;
    for (const QString &key : written) {
        if (object.contains(key))
            members.append({key, order.members.value(key)});
        else if (renamed)
            members.append({added.first(), order.members.value(key)}); // a renamed server keeps its own order too
    }
    if (!renamed) {
        for (const QString &key : added)
            members.append({key, JsonKeyOrder()});
    }
    return members;
}

// The layout of QJsonDocument::Indented: one member or element per line, one indentation unit a
// level (four spaces in QJsonDocument's), and an empty object or array still on two lines.
void writeValue(const QJsonValue &value, const JsonKeyOrder &order, const JsonTextStyle &style, int depth,
                QByteArray &json)
{
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        const auto members = orderedMembers(object, order);
        json += '{' + style.newline;
        for (qsizetype i = 0; i < members.size(); ++i) {
            const auto &[key, inner] = members.at(i);
            json += indentation(style, depth + 1) + scalarJson(key) + ": ";
            writeValue(object.value(key), inner, style, depth + 1, json);
            if (i + 1 < members.size())
                json += ',';
            json += style.newline;
        }
        json += indentation(style, depth) + '}';
    } else if (value.isArray()) {
        const QJsonArray array = value.toArray();
        json += '[' + style.newline;
        for (qsizetype i = 0; i < array.size(); ++i) {
            json += indentation(style, depth + 1);
            writeValue(array.at(i), order.elements.value(i), style, depth + 1, json);
            if (i + 1 < array.size())
                json += ',';
            json += style.newline;
        }
        json += indentation(style, depth) + ']';
    } else {
        json += scalarJson(value);
    }
}

} // namespace

std::optional<JsonKeyOrder> JsonKeyOrder::scan(QByteArrayView json)
{
    return KeyOrderScanner(json).scan();
}

QStringList JsonKeyOrder::duplicateKeys() const
{
    QStringList duplicates;
    QSet<QString> seen;
    QSet<QString> reported;
    for (const QString &key : keys) {
        if (!seen.contains(key))
            seen.insert(key);
        else if (!reported.contains(key)) {
            reported.insert(key);
            duplicates.append(key);
        }
    }
    return duplicates;
}

QList<int> JsonKeyOrder::linesOf(const QString &key) const
{
    QList<int> found;
    for (qsizetype i = 0; i < keys.size() && i < lines.size(); ++i) {
        if (keys.at(i) == key)
            found.append(lines.at(i));
    }
    return found;
}

QByteArray toOrderedJson(const QJsonObject &root, const JsonKeyOrder &order, const JsonTextStyle &style)
{
    QByteArray json;
    writeValue(root, order, style, 0, json);
    json += style.newline;
    return json;
}

} // namespace Tether
