#include "httpwire.h"

#include <QLocale>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Tether::HttpWire {

QByteArrayView reasonPhrase(int status)
{
    switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 411: return "Length Required";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 417: return "Expectation Failed";
    case 422: return "Unprocessable Content";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return {};
    }
}

QByteArray httpDate(const QDateTime &time)
{
    return QLocale::c().toString(time.toUTC(), u"ddd, dd MMM yyyy hh:mm:ss 'GMT'"_s).toLatin1();
}

static bool isSafeField(const HttpHeaders::Field &field)
{
    static constexpr QByteArrayView tokenSymbols = "!#$%&'*+-.^_`|~";
    const bool nameIsToken = !field.first.isEmpty() && std::all_of(field.first.begin(), field.first.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || tokenSymbols.contains(c);
    });
    const bool valueIsText = std::all_of(field.second.begin(), field.second.end(), [](char c) {
        const auto byte = static_cast<unsigned char>(c);
        return byte == '\t' || (byte >= 0x20 && byte != 0x7f);
    });
    return nameIsToken && valueIsText;
}

QByteArray responseHead(int status, const HttpHeaders &headers, const Framing &framing, const QDateTime &date,
                        QByteArrayList *refused)
{
    Q_ASSERT(status >= 100 && status <= 999);
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) + "\r\n";
    head += "Date: " + httpDate(date) + "\r\n";
    static constexpr QByteArrayView serverFields[] = {"Content-Length", "Transfer-Encoding", "Connection", "Date"};
    for (const HttpHeaders::Field &field : headers.fields()) {
        const bool servers = std::any_of(std::begin(serverFields), std::end(serverFields), [&field](QByteArrayView name) {
            return name.compare(field.first, Qt::CaseInsensitive) == 0;
        });
        if (servers)
            continue;
        if (!isSafeField(field)) {
            if (refused)
                refused->append(field.first);
            continue;
        }
        head += field.first + ": " + field.second + "\r\n";
    }
    const bool bodiless = status < 200 || status == 204 || status == 304;
    switch (framing.body) {
    case Framing::Body::Length:
        if (!bodiless)
            head += "Content-Length: " + QByteArray::number(framing.contentLength) + "\r\n";
        break;
    case Framing::Body::Chunked:
        head += "Transfer-Encoding: chunked\r\n";
        break;
    case Framing::Body::UntilClose:
        break;
    }
    if (framing.closeAfter)
        head += "Connection: close\r\n";
    else if (framing.keepAliveForHttp10)
        head += "Connection: keep-alive\r\n";
    head += "\r\n";
    return head;
}

QByteArray wholeResponse(int status, const HttpHeaders &headers, const QByteArray &body, bool closeAfter,
                         bool keepAliveForHttp10, const QDateTime &date, QByteArrayList *refused)
{
    Framing framing;
    framing.contentLength = body.size();
    framing.closeAfter = closeAfter;
    framing.keepAliveForHttp10 = keepAliveForHttp10;
    return responseHead(status, headers, framing, date, refused) + body;
}

QByteArray chunk(QByteArrayView data)
{
    if (data.isEmpty())
        return {};
    return QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n";
}

QByteArray eventStreamMessage(QByteArrayView data)
{
    QByteArray message;
    message.reserve(data.size() + 16);
    qsizetype lineStart = 0;
    for (qsizetype i = 0; i <= data.size(); ++i) {
        if (i < data.size() && data[i] != '\r' && data[i] != '\n')
            continue;
        message += "data: ";
        message += data.sliced(lineStart, i - lineStart);
        message += '\n';
        if (i + 1 < data.size() && data[i] == '\r' && data[i + 1] == '\n')
            ++i;
        lineStart = i + 1;
    }
    message += '\n';
    return message;
}

} // namespace Tether::HttpWire
