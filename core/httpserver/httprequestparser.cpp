#include "httprequestparser.h"

#include "common/displaytext.h"

#include <algorithm>
#include <limits>
#include <optional>

using namespace Qt::StringLiterals;

namespace Tether {

// tchar of RFC 9110 §5.6.2.
static bool isTokenChar(char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
}

static bool isToken(QByteArrayView bytes)
{
    return !bytes.isEmpty() && std::all_of(bytes.begin(), bytes.end(), isTokenChar);
}

// field-vchar, SP and HTAB (RFC 9110 §5.5): no NUL, CR, LF or other control character.
static bool isFieldValueByte(char c)
{
    const auto byte = static_cast<unsigned char>(c);
    return byte == '\t' || (byte >= 0x20 && byte != 0x7f);
}

static bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

static QByteArrayView trimmedOws(QByteArrayView bytes)
{
    while (!bytes.isEmpty() && (bytes.front() == ' ' || bytes.front() == '\t'))
        bytes = bytes.sliced(1);
    while (!bytes.isEmpty() && (bytes.back() == ' ' || bytes.back() == '\t'))
        bytes.chop(1);
    return bytes;
}

// The characters a Host value may hold: uri-host (reg-name, IPv4, IP-literal) and a port.
static bool isHostValue(QByteArrayView bytes)
{
    return std::all_of(bytes.begin(), bytes.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
               || QByteArrayView("-._~%!$&'()*+,;=:[]").contains(c);
    });
}

static bool startsWithIgnoringCase(QByteArrayView bytes, QByteArrayView prefix)
{
    return bytes.size() >= prefix.size() && bytes.first(prefix.size()).compare(prefix, Qt::CaseInsensitive) == 0;
}

HttpRequestParser::HttpRequestParser(HttpLimits limits)
    : m_limits(limits)
{}

HttpRequestParser::Progress HttpRequestParser::push(QByteArrayView bytes)
{
    if (m_stage == Stage::Failed)
        return Progress::Failed;
    m_buffer.append(bytes);
    return parse();
}

HttpRequest HttpRequestParser::takeRequest()
{
    Q_ASSERT(m_stage == Stage::Complete);
    HttpRequest request = std::exchange(m_request, {});
    m_stage = Stage::RequestLine;
    m_lineStart = m_searchedTo = m_sectionStart = 0;
    m_targetAuthority.clear();
    return request;
}

bool HttpRequestParser::hasWholeBody() const
{
    return (m_stage == Stage::HeadDelivered || m_stage == Stage::Body || m_stage == Stage::Complete)
           && m_buffer.size() >= m_request.contentLength;
}

HttpRequestParser::Progress HttpRequestParser::parse()
{
    switch (m_stage) {
    case Stage::RequestLine:
    case Stage::Fields:
        return readHead();
    case Stage::HeadDelivered:
        m_stage = Stage::Body;
        [[fallthrough]];
    case Stage::Body:
        if (m_buffer.size() < m_request.contentLength)
            return Progress::NeedMore;
        m_request.body = m_buffer.first(m_request.contentLength);
        m_buffer.remove(0, m_request.contentLength);
        m_stage = Stage::Complete;
        return Progress::Complete;
    case Stage::Complete:
        return Progress::Complete;
    case Stage::Failed:
        break;
    }
    return Progress::Failed;
}

// Line by line, each judged only once it is whole, so that where the bytes were split never
// matters; the bound of the part being read is checked against every byte of it received.
HttpRequestParser::Progress HttpRequestParser::readHead()
{
    for (;;) {
        const bool inRequestLine = m_stage == Stage::RequestLine;
        const qsizetype bound = inRequestLine ? m_limits.maxRequestLineBytes : m_limits.maxHeaderBytes;
        const qsizetype lineEnd = m_buffer.indexOf('\n', m_searchedTo);
        const qsizetype sectionBytes = (lineEnd < 0 ? m_buffer.size() : lineEnd + 1) - m_sectionStart;
        if (sectionBytes > bound) {
            if (inRequestLine)
                return fail(414, u"The request line is longer than %1 bytes."_s.arg(bound));
            return fail(431, u"The header fields are longer than %1 bytes in all."_s.arg(bound));
        }
        if (lineEnd < 0) {
            m_searchedTo = m_buffer.size();
            return Progress::NeedMore;
        }
        QByteArrayView line = QByteArrayView(m_buffer).sliced(m_lineStart, lineEnd - m_lineStart);
        if (line.endsWith('\r'))
            line.chop(1);
        m_lineStart = m_searchedTo = lineEnd + 1;
        if (line.contains('\r'))
            return fail(400, u"The request holds a CR that does not end a line."_s);

        if (inRequestLine) {
            if (line.isEmpty())
                continue; // RFC 9112 §2.2: empty lines before a request line are skipped
            if (!parseRequestLine(line))
                return Progress::Failed;
            m_stage = Stage::Fields;
            m_sectionStart = m_lineStart;
            continue;
        }
        if (line.isEmpty()) {
            m_buffer.remove(0, m_lineStart);
            m_lineStart = m_searchedTo = m_sectionStart = 0;
            if (!checkHead())
                return Progress::Failed;
            m_stage = Stage::HeadDelivered;
            return Progress::HeadReady;
        }
        if (m_request.headers.size() >= m_limits.maxHeaderFields)
            return fail(431, u"The request has more than %1 header fields."_s.arg(m_limits.maxHeaderFields));
        if (!parseField(line))
            return Progress::Failed;
    }
}

bool HttpRequestParser::parseRequestLine(QByteArrayView line)
{
    const QList<QByteArrayView> parts = [line] {
        QList<QByteArrayView> split;
        qsizetype start = 0;
        for (qsizetype space = line.indexOf(' '); space >= 0; space = line.indexOf(' ', start)) {
            split.append(line.sliced(start, space - start));
            start = space + 1;
        }
        split.append(line.sliced(start));
        return split;
    }();
    if (parts.size() != 3 || std::any_of(parts.begin(), parts.end(), [](QByteArrayView part) { return part.isEmpty(); })) {
        fail(400, u"The request line %1 is not 'METHOD target HTTP/1.1' with single spaces."_s.arg(excerpt(line)));
        return false;
    }
    const QByteArrayView method = parts[0];
    const QByteArrayView target = parts[1];
    const QByteArrayView version = parts[2];

    const bool versionSyntax = version.size() == 8 && version.startsWith("HTTP/") && version[6] == '.' && isDigit(version[5])
                               && isDigit(version[7]);
    if (!versionSyntax) {
        fail(400, u"The request line ends in %1, not in an HTTP version such as HTTP/1.1."_s.arg(excerpt(version)));
        return false;
    }
    if (version[5] != '1') {
        fail(505, u"%1 is not supported: this server speaks HTTP/1.1 and HTTP/1.0."_s.arg(excerpt(version)));
        return false;
    }
    m_request.minorVersion = version[7] == '0' ? 0 : 1; // RFC 9110 §2.5: a later 1.x is read as 1.1

    if (!isToken(method)) {
        fail(400, u"The method %1 is not a token."_s.arg(excerpt(method)));
        return false;
    }
    static constexpr QByteArrayView allowed[] = {"GET", "POST", "DELETE", "OPTIONS"};
    static constexpr QByteArrayView known[] = {"HEAD", "PUT", "PATCH", "CONNECT", "TRACE"};
    if (std::find(std::begin(known), std::end(known), method) != std::end(known)) {
        fail(405, u"The method %1 is not allowed here; allowed are %2."_s.arg(QString::fromLatin1(method),
                                                                               QString::fromLatin1(AllowedMethods)));
        return false;
    }
    if (std::find(std::begin(allowed), std::end(allowed), method) == std::end(allowed)) {
        fail(501, u"The method %1 is not one this server knows."_s.arg(excerpt(method)));
        return false;
    }
    m_request.method = method.toByteArray();

    const bool visibleAscii = std::all_of(target.begin(), target.end(), [](char c) { return c > ' ' && c < 0x7f; });
    if (!visibleAscii || target.contains('#')) {
        fail(400, u"The request-target %1 holds a character a URI may not hold here."_s.arg(excerpt(target)));
        return false;
    }
    QByteArrayView pathAndQuery;
    if (target.startsWith('/')) {
        pathAndQuery = target;
    } else if (target == "*" && method == "OPTIONS") {
        pathAndQuery = target;
    } else if (startsWithIgnoringCase(target, "http://") || startsWithIgnoringCase(target, "https://")) {
        const qsizetype authorityStart = target.indexOf("://") + 3;
        qsizetype authorityEnd = target.size();
        for (const char end : {'/', '?'}) {
            const qsizetype at = target.indexOf(end, authorityStart);
            if (at >= 0)
                authorityEnd = std::min(authorityEnd, at);
        }
        const QByteArrayView authority = target.sliced(authorityStart, authorityEnd - authorityStart);
        if (authority.isEmpty() || authority.contains('@')) {
            fail(400, u"The request-target %1 has no host, or has user information."_s.arg(excerpt(target)));
            return false;
        }
        m_targetAuthority = authority.toByteArray();
        pathAndQuery = target.sliced(authorityEnd);
    } else {
        fail(400, u"The request-target %1 is neither a path nor an absolute http URI."_s.arg(excerpt(target)));
        return false;
    }
    const qsizetype question = pathAndQuery.indexOf('?');
    const QByteArrayView path = question < 0 ? pathAndQuery : pathAndQuery.first(question);
    m_request.target = target.toByteArray();
    m_request.path = path.isEmpty() ? QByteArray("/") : QByteArray::fromPercentEncoding(path.toByteArray());
    m_request.query = question < 0 ? QByteArray() : pathAndQuery.sliced(question + 1).toByteArray();
    return true;
}

bool HttpRequestParser::parseField(QByteArrayView line)
{
    if (line.front() == ' ' || line.front() == '\t') {
        fail(400, u"A header field line starts with whitespace (obsolete line folding is not accepted)."_s);
        return false;
    }
    const qsizetype colon = line.indexOf(':');
    if (colon < 0) {
        fail(400, u"The header line %1 has no colon."_s.arg(excerpt(line.first(std::min<qsizetype>(line.size(), 40)))));
        return false;
    }
    const QByteArrayView name = line.first(colon);
    if (!isToken(name)) {
        const bool spaceBeforeColon = !name.isEmpty() && (name.back() == ' ' || name.back() == '\t');
        fail(400, spaceBeforeColon ? u"The header field name %1 is followed by whitespace before its colon."_s.arg(excerpt(name))
                                   : u"The header field name %1 is not a token."_s.arg(excerpt(name)));
        return false;
    }
    const QByteArrayView value = trimmedOws(line.sliced(colon + 1));
    if (!std::all_of(value.begin(), value.end(), isFieldValueByte)) {
        fail(400, u"The value of header field %1 holds a control character such as NUL."_s.arg(excerpt(name)));
        return false;
    }
    m_request.headers.append(name.toByteArray(), value.toByteArray());
    return true;
}

bool HttpRequestParser::checkHead()
{
    const QByteArrayList hosts = m_request.headers.values("Host");
    if (hosts.size() > 1) {
        fail(400, u"The request has %1 Host fields; it must have one."_s.arg(hosts.size()));
        return false;
    }
    if (hosts.isEmpty() && m_request.minorVersion >= 1) {
        fail(400, u"The HTTP/1.1 request has no Host field."_s);
        return false;
    }
    if (!hosts.isEmpty() && !isHostValue(hosts.first())) {
        fail(400, u"The Host field %1 is not a host name with an optional port."_s.arg(excerpt(hosts.first())));
        return false;
    }
    if (!m_targetAuthority.isEmpty() && m_targetAuthority.compare(hosts.value(0), Qt::CaseInsensitive) != 0) {
        fail(400, u"The Host field differs from the host of the request-target."_s);
        return false;
    }
    if (m_request.headers.contains("Transfer-Encoding")) {
        if (m_request.headers.contains("Content-Length"))
            fail(400, u"The request has both Transfer-Encoding and Content-Length."_s);
        else
            fail(411, u"The request body must come with a Content-Length, not a Transfer-Encoding."_s);
        return false;
    }
    if (!readContentLength())
        return false;
    if (m_request.minorVersion >= 1 && m_request.headers.contains("Expect")
        && m_request.header("Expect").compare("100-continue", Qt::CaseInsensitive) != 0) {
        fail(417, u"The only expectation this server meets is Expect: 100-continue."_s);
        return false;
    }
    return true;
}

// Content-Length as 1*DIGIT; repeated fields or list members must all be the same number
// (RFC 9110 §8.6), anything else could make two parsers see two different bodies.
bool HttpRequestParser::readContentLength()
{
    std::optional<qint64> length;
    for (const QByteArray &field : m_request.headers.values("Content-Length")) {
        QByteArrayView rest(field);
        for (bool more = true; more;) {
            const qsizetype comma = rest.indexOf(',');
            const QByteArrayView item = trimmedOws(comma < 0 ? rest : rest.first(comma));
            more = comma >= 0;
            rest = more ? rest.sliced(comma + 1) : QByteArrayView();
            if (item.isEmpty() || !std::all_of(item.begin(), item.end(), isDigit)) {
                fail(400, u"The Content-Length %1 is not a number of bytes."_s.arg(excerpt(field)));
                return false;
            }
            // Saturates: every length past the bound is refused alike.
            qint64 value = 0;
            for (const char digit : item) {
                if (value > (std::numeric_limits<qint64>::max() - 9) / 10) {
                    value = std::numeric_limits<qint64>::max();
                    break;
                }
                value = value * 10 + (digit - '0');
            }
            if (length && *length != value) {
                fail(400, u"The request has Content-Length values that differ."_s);
                return false;
            }
            length = value;
        }
    }
    if (length.value_or(0) > m_limits.maxBodyBytes) {
        fail(413, u"The request body is larger than the %1 bytes this server accepts."_s.arg(m_limits.maxBodyBytes));
        return false;
    }
    m_request.contentLength = length.value_or(0);
    return true;
}

HttpRequestParser::Progress HttpRequestParser::fail(int status, const QString &reason)
{
    m_stage = Stage::Failed;
    m_error = {status, reason};
    m_buffer.clear();
    m_buffer.squeeze();
    return Progress::Failed;
}

} // namespace Tether
