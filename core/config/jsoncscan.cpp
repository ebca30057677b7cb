#include "jsoncscan.h"

#include <QJsonArray>
#include <QJsonObject>

#include <utility>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// Deep enough for any config file; deeper text is refused rather than overflowing the stack.
constexpr int MaxDepth = 200;

class Scanner final
{
public:
    explicit Scanner(QByteArrayView text)
        : m_text(text)
    {
        if (m_text.startsWith("\xEF\xBB\xBF"))
            m_at = 3;
    }

    JsoncScan scan()
    {
        JsoncScan result;
        skipBlanks();
        JsoncValue root;
        if (m_error.isEmpty() && readValue(root, 0)) {
            skipBlanks();
            if (m_error.isEmpty() && m_at < m_text.size())
                fail(u"text after the end of the JSON value"_s);
        }
        if (m_error.isEmpty())
            result.root = std::move(root);
        else
            result.error = m_error;
        return result;
    }

private:
    bool atEnd() const { return m_at >= m_text.size(); }
    char peek() const { return atEnd() ? '\0' : m_text.at(m_at); }

    bool fail(const QString &what)
    {
        if (!m_error.isEmpty())
            return false;
        const QByteArrayView before = m_text.first(std::min(m_at, m_text.size()));
        qsizetype lineStart = before.lastIndexOf('\n') + 1;
        if (lineStart == 0 && before.startsWith("\xEF\xBB\xBF"))
            lineStart = 3;
        const qsizetype column = QString::fromUtf8(before.sliced(lineStart)).toUcs4().size() + 1;
        m_error = u"line %1, column %2: %3"_s.arg(before.count('\n') + 1).arg(column).arg(what);
        return false;
    }

    // Spaces and comments.
    void skipBlanks()
    {
        while (!atEnd()) {
            const char c = peek();
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                ++m_at;
            } else if (c == '/' && m_at + 1 < m_text.size() && m_text.at(m_at + 1) == '/') {
                while (!atEnd() && peek() != '\n')
                    ++m_at;
            } else if (c == '/' && m_at + 1 < m_text.size() && m_text.at(m_at + 1) == '*') {
                const qsizetype close = m_text.indexOf("*/", m_at + 2);
                if (close < 0) {
                    fail(u"a /* comment is never closed"_s);
                    return;
                }
                m_at = close + 2;
            } else {
                return;
            }
        }
    }

    bool readValue(JsoncValue &value, int depth)
    {
        if (depth > MaxDepth)
            return fail(u"nested more than %1 levels deep"_s.arg(MaxDepth));
        value.start = m_at;
        switch (peek()) {
        case '{': return readObject(value, depth);
        case '[': return readArray(value, depth);
        case '"': {
            QString text;
            if (!readString(&text))
                return false;
            value.value = text;
            break;
        }
        case '\0':
            return fail(atEnd() ? u"the text ends where a value was expected"_s : u"a NUL byte where a value was expected"_s);
        default:
            if (!readLiteral(value))
                return false;
        }
        value.end = m_at;
        return true;
    }

    bool readLiteral(JsoncValue &value)
    {
        for (const auto &[word, literal] : {std::pair{QByteArrayView("true"), QJsonValue(true)},
                                            std::pair{QByteArrayView("false"), QJsonValue(false)},
                                            std::pair{QByteArrayView("null"), QJsonValue(QJsonValue::Null)}}) {
            if (m_text.sliced(m_at).startsWith(word)) {
                m_at += word.size();
                value.value = literal;
                return true;
            }
        }
        const qsizetype start = m_at;
        while (!atEnd() && (QByteArrayView("+-.eE").contains(peek()) || (peek() >= '0' && peek() <= '9')))
            ++m_at;
        bool ok = false;
        const double number = m_text.sliced(start, m_at - start).toByteArray().toDouble(&ok);
        if (m_at == start || !ok) {
            m_at = start;
            return fail(u"a value was expected (an object, array, string, number, true, false or null)"_s);
        }
        value.value = number;
        return true;
    }

    bool readString(QString *text)
    {
        ++m_at; // the opening quote
        QByteArray bytes;
        while (true) {
            if (atEnd())
                return fail(u"a string is never closed"_s);
            const char c = peek();
            if (c == '"')
                break;
            if (static_cast<unsigned char>(c) < 0x20)
                return fail(u"a control character inside a string (a line break must be written \\n)"_s);
            if (c != '\\') {
                bytes.append(c);
                ++m_at;
                continue;
            }
            ++m_at;
            const char escaped = peek();
            ++m_at;
            switch (escaped) {
            case '"': bytes.append('"'); break;
            case '\\': bytes.append('\\'); break;
            case '/': bytes.append('/'); break;
            case 'b': bytes.append('\b'); break;
            case 'f': bytes.append('\f'); break;
            case 'n': bytes.append('\n'); break;
            case 'r': bytes.append('\r'); break;
            case 't': bytes.append('\t'); break;
            case 'u': {
                char16_t units[2];
                qsizetype count = 0;
                if (!readHex(&units[count++]))
                    return false;
                if (QChar::isHighSurrogate(units[0]) && m_text.sliced(m_at).startsWith("\\u")) {
                    m_at += 2;
                    if (!readHex(&units[count++]))
                        return false;
                }
                bytes.append(QStringView(units, count).toUtf8());
                break;
            }
            default:
                --m_at;
                return fail(u"an unknown escape in a string"_s);
            }
        }
        ++m_at; // the closing quote
        *text = QString::fromUtf8(bytes);
        return true;
    }

    bool readHex(char16_t *unit)
    {
        bool ok = false;
        const uint code = m_at + 4 <= m_text.size() ? m_text.sliced(m_at, 4).toByteArray().toUInt(&ok, 16) : 0;
        if (!ok)
            return fail(u"\\u wants four hexadecimal digits"_s);
        m_at += 4;
        *unit = static_cast<char16_t>(code);
        return true;
    }

    // After a member or element: a comma (perhaps trailing) or the closing bracket.
    bool readSeparator(char close, qsizetype *comma, bool *closed)
    {
        skipBlanks();
        if (peek() == ',') {
            *comma = m_at++;
            skipBlanks();
        }
        *closed = peek() == close;
        if (!*closed && *comma < 0)
            return fail(close == '}' ? u"',' or '}' expected after a member"_s : u"',' or ']' expected after an element"_s);
        return m_error.isEmpty();
    }

    bool readObject(JsoncValue &value, int depth)
    {
        ++m_at;
        QJsonObject object;
        skipBlanks();
        while (peek() != '}') {
            if (peek() != '"')
                return fail(atEnd() ? u"the text ends inside an object"_s : u"a member name in double quotes expected"_s);
            JsoncMember member;
            member.keyStart = m_at;
            if (!readString(&member.name))
                return false;
            skipBlanks();
            if (peek() != ':')
                return fail(u"':' expected after the member name \"%1\""_s.arg(member.name));
            ++m_at;
            skipBlanks();
            if (!readValue(member.value, depth + 1))
                return false;
            bool closed = false;
            if (!readSeparator('}', &member.commaAfter, &closed))
                return false;
            object.insert(member.name, member.value.value);
            value.members.push_back(std::move(member));
            if (closed)
                break;
        }
        ++m_at;
        value.value = object;
        value.end = m_at;
        return true;
    }

    bool readArray(JsoncValue &value, int depth)
    {
        ++m_at;
        QJsonArray array;
        skipBlanks();
        while (peek() != ']') {
            if (atEnd())
                return fail(u"the text ends inside an array"_s);
            JsoncValue element;
            if (!readValue(element, depth + 1))
                return false;
            array.append(element.value);
            qsizetype comma = -1;
            bool closed = false;
            if (!readSeparator(']', &comma, &closed))
                return false;
            if (closed)
                break;
        }
        ++m_at;
        value.value = array;
        value.end = m_at;
        return true;
    }

    QByteArrayView m_text;
    qsizetype m_at = 0;
    QString m_error;
};

} // namespace

JsoncScan scanJsonc(QByteArrayView text)
{
    return Scanner(text).scan();
}

const JsoncMember *jsoncMember(const JsoncValue &object, const QString &name)
{
    for (auto it = object.members.rbegin(); it != object.members.rend(); ++it) {
        if (it->name == name)
            return &*it;
    }
    return nullptr;
}

const JsoncValue *jsoncObjectAt(const JsoncValue &root, const QStringList &path)
{
    const JsoncValue *object = &root;
    for (const QString &name : path) {
        const JsoncMember *member = jsoncMember(*object, name);
        if (!member)
            return nullptr;
        object = &member->value;
    }
    return object->value.isObject() ? object : nullptr;
}

} // namespace Tether
