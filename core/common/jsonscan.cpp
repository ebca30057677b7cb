#include "jsonscan.h"

#include <array>
#include <cstring>

namespace Tether {

namespace {

constexpr int MaxDepth = 64;
constexpr int MaxIntegerDigits = 200;
constexpr int MaxExponentDigits = 2;

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

bool isHexDigit(char c)
{
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The bytes a string holds as they are: printable ASCII but the quote and the backslash.
constexpr std::array<bool, 256> PlainStringBytes = [] {
    std::array<bool, 256> plain{};
    for (int c = 0x20; c < 0x80; ++c)
        plain[size_t(c)] = c != '"' && c != '\\';
    return plain;
}();

// A strict reader of JSON text that builds nothing: each read returns where the value ends, or
// -1 when the text is not what RFC 8259 allows (or is too unusual to vouch for).
// Text `trusted` has been checked already: it is only walked.
class Scanner
{
public:
    explicit Scanner(QByteArrayView text, bool trusted = false)
        : m_data(reinterpret_cast<const unsigned char *>(text.data()))
        , m_size(text.size())
        , m_trusted(trusted)
    {
    }

    // The members of the top-level object's member `key`, when it is an object, go to `members`.
    void collectNested(QByteArrayView key, JsonMembersText *members)
    {
        m_nestedKey = key;
        m_nested = members;
    }

    qsizetype skipSpace(qsizetype i) const
    {
        while (i < m_size && isSpace(char(m_data[i])))
            ++i;
        return i;
    }

    // A string starting at i (its opening quote); `escaped` says whether it holds escapes.
    qsizetype string(qsizetype i, bool *escaped) const
    {
        ++i;
        while (i < m_size) {
            const unsigned char c = m_data[i];
            if (PlainStringBytes[c]) {
                ++i;
                continue;
            }
            if (c == '"')
                return i + 1;
            if (m_trusted) {
                *escaped = *escaped || c == '\\';
                i += c == '\\' ? 2 : 1;
                continue;
            }
            if (c < 0x20)
                return -1;
            if (c == '\\') {
                *escaped = true;
                if (++i >= m_size)
                    return -1;
                switch (m_data[i]) {
                case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
                    ++i;
                    continue;
                case 'u':
                    if (i + 4 >= m_size)
                        return -1;
                    for (int k = 1; k <= 4; ++k) {
                        if (!isHexDigit(char(m_data[i + k])))
                            return -1;
                    }
                    i += 5;
                    continue;
                default:
                    return -1;
                }
            }
            i = utf8Sequence(i);
            if (i < 0)
                return -1;
        }
        return -1;
    }

    // One value starting at i, nested `depth` deep.
    qsizetype value(qsizetype i, int depth) const
    {
        if (i >= m_size)
            return -1;
        if (m_trusted)
            return walk(i);
        switch (m_data[i]) {
        case '{':
            return depth < MaxDepth ? object(i, depth + 1, nullptr) : -1;
        case '[':
            return depth < MaxDepth ? array(i, depth + 1) : -1;
        case '"': {
            bool escaped = false;
            return string(i, &escaped);
        }
        case 't':
            return word(i, "true");
        case 'f':
            return word(i, "false");
        case 'n':
            return word(i, "null");
        default:
            return number(i);
        }
    }

    // An object starting at i; its members go to `members` when given.
    qsizetype object(qsizetype i, int depth, JsonMembersText *members) const
    {
        i = skipSpace(i + 1);
        if (i < m_size && m_data[i] == '}')
            return i + 1;
        while (i < m_size) {
            if (m_data[i] != '"')
                return -1;
            bool escaped = false;
            const qsizetype keyEnd = string(i, &escaped);
            if (keyEnd < 0 || (members && escaped))
                return -1;
            const QByteArrayView key(m_data + i + 1, keyEnd - i - 2);
            i = skipSpace(keyEnd);
            if (i >= m_size || m_data[i] != ':')
                return -1;
            i = skipSpace(i + 1);
            const bool nested = m_nested && depth == 1 && members && i < m_size && m_data[i] == '{' && key == m_nestedKey;
            const qsizetype valueEnd = nested ? object(i, depth + 1, m_nested) : value(i, depth);
            if (valueEnd < 0)
                return -1;
            if (members) {
                for (const JsonMemberText &member : std::as_const(*members)) {
                    if (member.key == key)
                        return -1;
                }
                members->append({key, QByteArrayView(m_data + i, valueEnd - i)});
            }
            bool ended = false;
            i = next(valueEnd, '}', &ended);
            if (ended || i < 0)
                return i;
        }
        return -1;
    }

private:
    // The end of a value of checked text, found without checking it again.
    qsizetype walk(qsizetype i) const
    {
        bool escaped = false;
        const unsigned char first = m_data[i];
        if (first == '"')
            return string(i, &escaped);
        if (first != '{' && first != '[') {
            while (i < m_size && !isSpace(char(m_data[i])) && m_data[i] != ',' && m_data[i] != '}' && m_data[i] != ']')
                ++i;
            return i;
        }
        int depth = 0;
        while (i < m_size) {
            const unsigned char c = m_data[i];
            if (c == '"') {
                i = string(i, &escaped);
                if (i < 0)
                    return -1;
                continue;
            }
            if (c == '{' || c == '[')
                ++depth;
            else if ((c == '}' || c == ']') && --depth == 0)
                return i + 1;
            ++i;
        }
        return -1;
    }

    qsizetype array(qsizetype i, int depth) const
    {
        i = skipSpace(i + 1);
        if (i < m_size && m_data[i] == ']')
            return i + 1;
        while (i < m_size) {
            const qsizetype end = value(i, depth);
            if (end < 0)
                return -1;
            bool ended = false;
            i = next(end, ']', &ended);
            if (ended || i < 0)
                return i;
        }
        return -1;
    }

    // Past an element of an object or array: the end of the container when `closing` follows
    // (`ended` set), else the start of the next element after a comma; -1 for anything else.
    qsizetype next(qsizetype i, unsigned char closing, bool *ended) const
    {
        i = skipSpace(i);
        if (i < m_size && m_data[i] == closing) {
            *ended = true;
            return i + 1;
        }
        if (i >= m_size || m_data[i] != ',')
            return -1;
        return skipSpace(i + 1);
    }

    qsizetype word(qsizetype i, QByteArrayView expected) const
    {
        if (m_size - i < expected.size() || QByteArrayView(m_data + i, expected.size()) != expected)
            return -1;
        return i + expected.size();
    }

    qsizetype digits(qsizetype i, int most) const
    {
        const qsizetype start = i;
        while (i < m_size && isDigit(char(m_data[i])))
            ++i;
        return i == start || i - start > most ? -1 : i;
    }

    qsizetype number(qsizetype i) const
    {
        if (i < m_size && m_data[i] == '-')
            ++i;
        if (i >= m_size || !isDigit(char(m_data[i])))
            return -1;
        if (m_data[i] == '0')
            ++i;
        else if ((i = digits(i, MaxIntegerDigits)) < 0)
            return -1;
        if (i < m_size && m_data[i] == '.') {
            if ((i = digits(i + 1, MaxIntegerDigits)) < 0)
                return -1;
        }
        if (i < m_size && (m_data[i] == 'e' || m_data[i] == 'E')) {
            ++i;
            if (i < m_size && (m_data[i] == '+' || m_data[i] == '-'))
                ++i;
            if ((i = digits(i, MaxExponentDigits)) < 0)
                return -1;
        }
        return i;
    }

    // A multi-byte UTF-8 character at i: no overlong form, no surrogate, nothing past U+10FFFF.
    qsizetype utf8Sequence(qsizetype i) const
    {
        const unsigned char lead = m_data[i];
        int length = 0;
        unsigned char low = 0x80;
        unsigned char high = 0xBF;
        if (lead >= 0xC2 && lead <= 0xDF) {
            length = 2;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            length = 3;
            if (lead == 0xE0)
                low = 0xA0;
            else if (lead == 0xED)
                high = 0x9F;
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            length = 4;
            if (lead == 0xF0)
                low = 0x90;
            else if (lead == 0xF4)
                high = 0x8F;
        } else {
            return -1;
        }
        if (m_size - i < length)
            return -1;
        if (m_data[i + 1] < low || m_data[i + 1] > high)
            return -1;
        for (int k = 2; k < length; ++k) {
            if (m_data[i + k] < 0x80 || m_data[i + k] > 0xBF)
                return -1;
        }
        return i + length;
    }

    const unsigned char *m_data;
    qsizetype m_size;
    bool m_trusted;
    QByteArrayView m_nestedKey;
    JsonMembersText *m_nested = nullptr;
};

std::optional<JsonMembersText> objectMembers(const Scanner &scanner, QByteArrayView text)
{
    const qsizetype start = scanner.skipSpace(0);
    if (start >= text.size() || text[start] != '{')
        return std::nullopt;
    JsonMembersText members;
    const qsizetype end = scanner.object(start, 1, &members);
    if (end < 0 || scanner.skipSpace(end) != text.size())
        return std::nullopt;
    return members;
}

} // namespace

std::optional<JsonMembersText> validJsonObjectMembers(QByteArrayView text)
{
    Scanner scanner(text);
    return objectMembers(scanner, text);
}

std::optional<JsonMembersText> validJsonObjectMembers(QByteArrayView text, QByteArrayView nestedKey,
                                                      JsonMembersText *nested)
{
    nested->clear();
    Scanner scanner(text);
    scanner.collectNested(nestedKey, nested);
    std::optional<JsonMembersText> members = objectMembers(scanner, text);
    if (!members)
        nested->clear();
    return members;
}

std::optional<JsonMembersText> checkedJsonObjectMembers(QByteArrayView checkedText)
{
    Scanner scanner(checkedText, true);
    return objectMembers(scanner, checkedText);
}

QByteArrayView memberValue(const JsonMembersText &members, QByteArrayView key)
{
    for (const JsonMemberText &member : members) {
        if (member.key.size() == key.size() && std::memcmp(member.key.data(), key.data(), size_t(key.size())) == 0)
            return member.value;
    }
    return {};
}

std::optional<QByteArrayView> plainJsonString(QByteArrayView value)
{
    if (value.size() < 2 || value.front() != '"' || value.back() != '"')
        return std::nullopt;
    const QByteArrayView inside = value.sliced(1, value.size() - 2);
    if (inside.contains('\\'))
        return std::nullopt;
    return inside;
}

std::optional<qint64> jsonInteger(QByteArrayView value)
{
    const bool negative = value.startsWith('-');
    const QByteArrayView digits = negative ? value.sliced(1) : value;
    if (digits.isEmpty() || digits.size() > 15 || (digits.size() > 1 && digits.front() == '0'))
        return std::nullopt;
    qint64 number = 0;
    for (const char c : digits) {
        if (!isDigit(c))
            return std::nullopt;
        number = number * 10 + (c - '0');
    }
    return negative ? -number : number;
}

} // namespace Tether
