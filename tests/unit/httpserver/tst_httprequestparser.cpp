#include "httpserver/httprequestparser.h"
#include "support/httpparseoutcome.h"

#include <QTest>

using namespace Tether;
using namespace Tether::Testing;
using namespace Qt::StringLiterals;

enum class Limits { Default, Small };
Q_DECLARE_METATYPE(Limits)

// Small enough that every bound is reached with a few bytes.
static HttpLimits limitsFor(Limits limits)
{
    if (limits == Limits::Default)
        return {};
    HttpLimits small;
    small.maxRequestLineBytes = 32;
    small.maxHeaderBytes = 64;
    small.maxHeaderFields = 3;
    small.maxBodyBytes = 16;
    return small;
}

static QStringList outcomeOfWhole(const QByteArray &input, Limits limits)
{
    HttpRequestParser parser(limitsFor(limits));
    return parseOutcome(parser, {input});
}

// The input with each '@' made a NUL.
static QByteArray withNul(QByteArray input)
{
    return input.replace('@', '\0');
}

static QByteArray fields(int count)
{
    QByteArray block;
    for (int i = 0; i < count; ++i)
        block += "X-" + QByteArray::number(i) + ": v\r\n";
    return block;
}

class TestHttpRequestParser final : public QObject
{
    Q_OBJECT

private slots:
    void parses_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<Limits>("limits");
        QTest::addColumn<QStringList>("expected");
        const auto row = [](const char *name, const QByteArray &input, const QStringList &expected,
                            Limits limits = Limits::Default) { QTest::newRow(name) << input << limits << expected; };

        // Accepted shapes.
        row("GET with CRLF", "GET /mcp HTTP/1.1\r\nHost: localhost\r\n\r\n", {u"GET /mcp HTTP/1.1 | Host: localhost"_s});
        row("bare LF", "GET /mcp HTTP/1.1\nHost: a\n\n", {u"GET /mcp HTTP/1.1 | Host: a"_s});
        row("CRLF and LF mixed", "GET / HTTP/1.1\r\nHost: a\n\r\n", {u"GET / HTTP/1.1 | Host: a"_s});
        row("empty lines before the request line skipped", "\r\n\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", {u"GET / HTTP/1.1 | Host: a"_s});
        row("query kept as sent", "GET /metrics?a=1&b=%20 HTTP/1.1\r\nHost: a\r\n\r\n",
            {u"GET /metrics?a=1&b=%20 HTTP/1.1 | Host: a"_s});
        row("path percent-decoded", "GET /%6Dcp HTTP/1.1\r\nHost: a\r\n\r\n", {u"GET /mcp HTTP/1.1 | Host: a"_s});
        row("absolute form with its Host", "GET http://127.0.0.1:8080/mcp?x HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n",
            {u"GET /mcp?x HTTP/1.1 | Host: 127.0.0.1:8080"_s});
        row("absolute form without a path", "GET HTTPS://a HTTP/1.1\r\nHost: A\r\n\r\n", {u"GET / HTTP/1.1 | Host: A"_s});
        row("OPTIONS *", "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", {u"OPTIONS * HTTP/1.1 | Host: a"_s});
        row("POST with a body", "POST /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi",
            {u"POST /mcp HTTP/1.1 | Host: a | Content-Length: 2 | body 'hi'"_s});
        row("DELETE with no body", "DELETE /mcp HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n",
            {u"DELETE /mcp HTTP/1.1 | Host: a | Content-Length: 0"_s});
        row("no Content-Length: no body", "POST / HTTP/1.1\r\nHost: a\r\n\r\n", {u"POST / HTTP/1.1 | Host: a"_s});
        row("pipelined requests", "GET /1 HTTP/1.1\r\nHost: a\r\n\r\nPOST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabcGET /3 HTTP/1.1\r\nHost: a\r\n\r\n",
            {u"GET /1 HTTP/1.1 | Host: a"_s, u"POST /2 HTTP/1.1 | Host: a | Content-Length: 3 | body 'abc'"_s,
             u"GET /3 HTTP/1.1 | Host: a"_s});
        row("CRLF after a body skipped", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\nx\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
            {u"POST / HTTP/1.1 | Host: a | Content-Length: 1 | body 'x'"_s, u"GET / HTTP/1.1 | Host: a"_s});
        row("HTTP/1.0 without Host", "GET / HTTP/1.0\r\n\r\n", {u"GET / HTTP/1.0"_s});
        row("HTTP/1.2 read as 1.1", "GET / HTTP/1.2\r\nHost: a\r\n\r\n", {u"GET / HTTP/1.1 | Host: a"_s});
        row("whitespace around values dropped", "GET / HTTP/1.1\r\nHost:a\r\nX-A: \t one two \t\r\n\r\n",
            {u"GET / HTTP/1.1 | Host: a | X-A: one two"_s});
        row("empty value", "GET / HTTP/1.1\r\nHost: a\r\nX-Empty:\r\n\r\n", {u"GET / HTTP/1.1 | Host: a | X-Empty: "_s});
        row("obs-text in a value", "GET / HTTP/1.1\r\nHost: a\r\nX-A: caf\xc3\xa9\r\n\r\n",
            {u"GET / HTTP/1.1 | Host: a | X-A: caf\u00c3\u00a9"_s});
        row("repeated equal Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 1, 1\r\n\r\nz",
            {u"POST / HTTP/1.1 | Host: a | Content-Length: 1 | Content-Length: 1, 1 | body 'z'"_s});
        row("Content-Length with leading zeros", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 002\r\n\r\nok",
            {u"POST / HTTP/1.1 | Host: a | Content-Length: 002 | body 'ok'"_s});
        row("Expect 100-continue", "POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 1\r\n\r\nz",
            {u"POST / HTTP/1.1 | Host: a | Expect: 100-Continue | Content-Length: 1 | body 'z'"_s});
        row("another expectation ignored in HTTP/1.0", "GET / HTTP/1.0\r\nExpect: foo\r\n\r\n", {u"GET / HTTP/1.0 | Expect: foo"_s});
        row("empty Host", "GET / HTTP/1.1\r\nHost:\r\n\r\n", {u"GET / HTTP/1.1 | Host: "_s});
        row("IPv6 Host", "GET / HTTP/1.1\r\nHost: [::1]:27413\r\n\r\n", {u"GET / HTTP/1.1 | Host: [::1]:27413"_s});
        row("head cut off", "GET / HTTP/1.1\r\nHost: a\r\n", {u"needs more"_s});
        row("body cut off", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nab", {u"needs more"_s});
        row("body not begun", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n", {u"needs more"_s});

        // Refused: the request line.
        row("two spaces", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", {u"error 400"_s});
        row("tab for a space", "GET\t/ HTTP/1.1\r\nHost: a\r\n\r\n", {u"error 400"_s});
        row("trailing space", "GET / HTTP/1.1 \r\nHost: a\r\n\r\n", {u"error 400"_s});
        row("HTTP/0.9 line", "GET /\r\n\r\n", {u"error 400"_s});
        row("version in lower case", "GET / http/1.1\r\nHost: a\r\n\r\n", {u"error 400"_s});
        row("version with two digits", "GET / HTTP/1.10\r\nHost: a\r\n\r\n", {u"error 400"_s});
        row("HTTP/2.0", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", {u"error 505"_s});
        row("HTTP/0.9 as a version", "GET / HTTP/0.9\r\n\r\n", {u"error 505"_s});
        row("PUT", "PUT / HTTP/1.1\r\nHost: a\r\n\r\n", {u"error 405"_s});
        row("HEAD", "HEAD / HTTP/1.1\r\nHost: a\r\n\r\n", {u"error 405"_s});
        row("PATCH", "PATCH / HTTP/1.1\r\nHost: a\r\n\r\n", {u"error 405"_s});
        row("CONNECT", "CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n", {u"error 405"_s});
        row("unknown method", "BREW / HTTP/1.1\r\nHost: a\r\n\r\n", {u"error 501"_s});
        row("method in lower case", "get / HTTP/1.1\r\nHost: a\r\n\r\n", {u"error 501"_s});
        row("method not a token", "G(T / HTTP/1.1\r\nHost: a\r\n\r\n", {u"error 400"_s});
        row("target not a path", "GET mcp HTTP/1.1\r\nHost: a\r\n\r\n", {u"error 400"_s});
        row("target with a fragment", "GET /mcp#x HTTP/1.1\r\nHost: a\r\n\r\n", {u"error 400"_s});
        row("target with a non-ASCII byte", "GET /caf\xc3\xa9 HTTP/1.1\r\nHost: a\r\n\r\n", {u"error 400"_s});
        row("target with a NUL", withNul("GET /a@b HTTP/1.1\r\nHost: a\r\n\r\n"), {u"error 400"_s});
        row("* with GET", "GET * HTTP/1.1\r\nHost: a\r\n\r\n", {u"error 400"_s});
        row("absolute form with user information", "GET http://u@a/ HTTP/1.1\r\nHost: a\r\n\r\n", {u"error 400"_s});
        row("absolute form without a host", "GET http:///x HTTP/1.1\r\nHost: a\r\n\r\n", {u"error 400"_s});
        row("absolute form of another host", "GET http://evil.example/mcp HTTP/1.1\r\nHost: localhost\r\n\r\n", {u"error 400"_s});
        row("ftp target", "GET ftp://a/ HTTP/1.1\r\nHost: a\r\n\r\n", {u"error 400"_s});
        row("bare CR in the request line", "GET /\r HTTP/1.1\r\nHost: a\r\n\r\n", {u"error 400"_s});

        // Refused: header fields.
        row("no Host in HTTP/1.1", "GET / HTTP/1.1\r\nX-A: b\r\n\r\n", {u"error 400"_s});
        row("two Host fields", "GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", {u"error 400"_s});
        row("Host with a slash", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", {u"error 400"_s});
        row("obs-fold", "GET / HTTP/1.1\r\nHost: a\r\nX-A: one\r\n two\r\n\r\n", {u"error 400"_s});
        row("whitespace before the first field", "GET / HTTP/1.1\r\n Host: a\r\n\r\n", {u"error 400"_s});
        row("space before the colon", "GET / HTTP/1.1\r\nHost : a\r\n\r\n", {u"error 400"_s});
        row("no colon", "GET / HTTP/1.1\r\nHost: a\r\nnonsense\r\n\r\n", {u"error 400"_s});
        row("empty field name", "GET / HTTP/1.1\r\nHost: a\r\n: v\r\n\r\n", {u"error 400"_s});
        row("field name not a token", "GET / HTTP/1.1\r\nHost: a\r\nX[A]: v\r\n\r\n", {u"error 400"_s});
        row("NUL in a value", withNul("GET / HTTP/1.1\r\nHost: a\r\nX-A: a@b\r\n\r\n"), {u"error 400"_s});
        row("bare CR in a value", "GET / HTTP/1.1\r\nHost: a\r\nX-A: a\rb\r\n\r\n", {u"error 400"_s});
        row("CR CR LF", "GET / HTTP/1.1\r\nHost: a\r\r\n\r\n", {u"error 400"_s});
        row("DEL in a value", "GET / HTTP/1.1\r\nHost: a\r\nX-A: \x7f\r\n\r\n", {u"error 400"_s});
        row("a good request before a bad one", "GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.1\r\nHost: a b\r\n\r\n",
            {u"GET /1 HTTP/1.1 | Host: a"_s, u"error 400"_s});

        // Refused: the body's length.
        row("Transfer-Encoding", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", {u"error 411"_s});
        row("Transfer-Encoding in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", {u"error 411"_s});
        row("Transfer-Encoding and Content-Length",
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", {u"error 400"_s});
        row("differing Content-Length fields", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
            {u"error 400"_s});
        row("differing Content-Length list", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1, 2\r\n\r\nab", {u"error 400"_s});
        row("Content-Length -1", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", {u"error 400"_s});
        row("Content-Length +5", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\n", {u"error 400"_s});
        row("Content-Length 1e3", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1e3\r\n\r\n", {u"error 400"_s});
        row("Content-Length 0x10", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x10\r\n\r\n", {u"error 400"_s});
        row("empty Content-Length", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n", {u"error 400"_s});
        row("Content-Length with a trailing comma", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5,\r\n\r\n", {u"error 400"_s});
        row("Content-Length over the bound", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4194305\r\n\r\n", {u"error 413"_s});
        row("Content-Length of 2^63", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 9223372036854775808\r\n\r\n",
            {u"error 413"_s});
        row("Content-Length of 30 digits", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 999999999999999999999999999999\r\n\r\n",
            {u"error 413"_s});
        row("another expectation", "POST / HTTP/1.1\r\nHost: a\r\nExpect: the-unexpected\r\n\r\n", {u"error 417"_s});

        // Bounds, small ones.
        row("request line at the bound", "GET /" + QByteArray(16, 'a') + " HTTP/1.1\r\nHost: a\r\n\r\n",
            {u"GET /aaaaaaaaaaaaaaaa HTTP/1.1 | Host: a"_s}, Limits::Small);
        row("request line over the bound", "GET /" + QByteArray(17, 'a') + " HTTP/1.1\r\nHost: a\r\n\r\n", {u"error 414"_s},
            Limits::Small);
        row("request line that never ends", "GET /" + QByteArray(100, 'a'), {u"error 414"_s}, Limits::Small);
        row("empty lines count for the request line", QByteArray(17, '\n') + "GET / HTTP/1.1\r\nHost: a\r\n\r\n",
            {u"error 414"_s}, Limits::Small);
        row("header block at the bound", "GET / HTTP/1.1\r\nHost: a\r\nX-A: " + QByteArray(46, 'v') + "\r\n\r\n",
            {u"GET / HTTP/1.1 | Host: a | X-A: "_s + QString(46, u'v')}, Limits::Small);
        row("header block over the bound", "GET / HTTP/1.1\r\nHost: a\r\nX-A: " + QByteArray(47, 'v') + "\r\n\r\n",
            {u"error 431"_s}, Limits::Small);
        row("header line that never ends", "GET / HTTP/1.1\r\nX-A: " + QByteArray(100, 'v'), {u"error 431"_s}, Limits::Small);
        row("fields at the bound", "GET / HTTP/1.1\r\nHost: a\r\n" + fields(2) + "\r\n",
            {u"GET / HTTP/1.1 | Host: a | X-0: v | X-1: v"_s}, Limits::Small);
        row("one field too many", "GET / HTTP/1.1\r\nHost: a\r\n" + fields(3) + "\r\n", {u"error 431"_s}, Limits::Small);
        row("body at the bound", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 16\r\n\r\n" + QByteArray(16, 'b'),
            {u"POST / HTTP/1.1 | Host: a | Content-Length: 16 | body 'bbbbbbbbbbbbbbbb'"_s}, Limits::Small);
        row("body over the bound", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 17\r\n\r\n", {u"error 413"_s}, Limits::Small);

        // Bounds, the defaults.
        row("default: 100 fields", "GET / HTTP/1.1\r\nHost: a\r\n" + fields(99) + "\r\n", {}, Limits::Default);
        row("default: 101 fields", "GET / HTTP/1.1\r\nHost: a\r\n" + fields(100) + "\r\n", {u"error 431"_s});
        row("default: request line of 8 KiB", "GET /" + QByteArray(8192 - 16, 'a') + " HTTP/1.1\r\nHost: a\r\n\r\n", {});
        row("default: request line over 8 KiB", "GET /" + QByteArray(8192 - 15, 'a') + " HTTP/1.1\r\nHost: a\r\n\r\n",
            {u"error 414"_s});
        row("default: header block of 32 KiB", "GET / HTTP/1.1\r\nHost: a\r\nX-A: " + QByteArray(32768 - 18, 'v') + "\r\n\r\n",
            {});
        row("default: header block over 32 KiB",
            "GET / HTTP/1.1\r\nHost: a\r\nX-A: " + QByteArray(32768 - 17, 'v') + "\r\n\r\n", {u"error 431"_s});
    }

    void parses()
    {
        QFETCH(QByteArray, input);
        QFETCH(Limits, limits);
        QFETCH(QStringList, expected);
        const QStringList seen = outcomeOfWhole(input, limits);
        if (QByteArrayView(QTest::currentDataTag()).startsWith("default: ") && expected.isEmpty()) {
            // Long rows: only that the request came through whole.
            QCOMPARE(seen.size(), 1);
            QVERIFY2(!seen.first().startsWith(u"error"_s), qPrintable(seen.first()));
            return;
        }
        QCOMPARE(seen, expected);
    }

    // Wherever the input is cut in two, and fed a byte at a time, the outcome is the same.
    void sameAtEverySplit_data() { parses_data(); }
    void sameAtEverySplit()
    {
        QFETCH(QByteArray, input);
        QFETCH(Limits, limits);
        const QStringList whole = outcomeOfWhole(input, limits);
        const qsizetype step = input.size() > 2048 ? input.size() / 257 : 1; // long rows: a sample of the cuts
        for (qsizetype cut = 0; cut <= input.size(); cut += step) {
            HttpRequestParser parser(limitsFor(limits));
            const QStringList split = parseOutcome(parser, {QByteArrayView(input).first(cut), QByteArrayView(input).sliced(cut)});
            QVERIFY2(split == whole, qPrintable(u"cut at %1: %2 instead of %3"_s.arg(cut).arg(split.join(u" // "_s), whole.join(u" // "_s))));
        }
        HttpRequestParser parser(limitsFor(limits));
        QList<QByteArrayView> bytes;
        for (qsizetype i = 0; i < input.size(); ++i)
            bytes.append(QByteArrayView(input).sliced(i, 1));
        QCOMPARE(parseOutcome(parser, bytes), whole);
    }

    void everyRefusalSaysWhy_data() { parses_data(); }
    void everyRefusalSaysWhy()
    {
        QFETCH(QByteArray, input);
        QFETCH(Limits, limits);
        HttpRequestParser parser(limitsFor(limits));
        parseOutcome(parser, {input});
        QCOMPARE(parser.error().reason.isEmpty(), parser.error().status == 0);
    }

    // Admission decides on the head before a byte of the body is there.
    void headBeforeBody()
    {
        HttpRequestParser parser;
        QCOMPARE(parser.push("POST /mcp HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer x\r\nContent-Length: 4\r\n\r\n"),
                 HttpRequestParser::Progress::HeadReady);
        QCOMPARE(parser.request().header("authorization"), QByteArray("Bearer x"));
        QCOMPARE(parser.request().contentLength, 4);
        QVERIFY(parser.request().body.isEmpty());
        QCOMPARE(parser.bufferedBytes(), 0);
        QVERIFY(!parser.hasWholeBody());
        QCOMPARE(parser.push("ab"), HttpRequestParser::Progress::NeedMore);
        QCOMPARE(parser.push("cd"), HttpRequestParser::Progress::Complete);
        QCOMPARE(parser.takeRequest().body, QByteArray("abcd"));
    }

    void headReadyOnceEvenWithTheBodyThere()
    {
        HttpRequestParser parser;
        QCOMPARE(parser.push("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nok"), HttpRequestParser::Progress::HeadReady);
        QVERIFY(parser.hasWholeBody());
        QCOMPARE(parser.push({}), HttpRequestParser::Progress::Complete);
        QCOMPARE(parser.push({}), HttpRequestParser::Progress::Complete);
    }

    // A body over the bound is refused from its Content-Length, with nothing of it read or kept.
    void tooLargeRefusedFromTheHead()
    {
        HttpRequestParser parser;
        QCOMPARE(parser.push(QByteArray("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 104857600\r\n\r\n" + QByteArray(1000, 'x'))),
                 HttpRequestParser::Progress::Failed);
        QCOMPARE(parser.error().status, 413);
        QCOMPARE(parser.bufferedBytes(), 0);
        QCOMPARE(parser.push("more"), HttpRequestParser::Progress::Failed);
        QCOMPARE(parser.bufferedBytes(), 0);
    }

    // While it reads a head it never holds more than its bounds, however the bytes come.
    void headHeldWithinItsBounds()
    {
        HttpLimits limits;
        limits.maxRequestLineBytes = 100;
        limits.maxHeaderBytes = 300;
        HttpRequestParser parser(limits);
        const QByteArray input = "GET / HTTP/1.1\r\n" + QByteArray(1000, 'x');
        HttpRequestParser::Progress progress = HttpRequestParser::Progress::NeedMore;
        for (qsizetype i = 0; i < input.size() && progress == HttpRequestParser::Progress::NeedMore; ++i) {
            progress = parser.push(QByteArrayView(input).sliced(i, 1));
            QVERIFY(parser.bufferedBytes() <= limits.maxRequestLineBytes + limits.maxHeaderBytes);
        }
        QCOMPARE(progress, HttpRequestParser::Progress::Failed);
        QCOMPARE(parser.error().status, 431);
    }

    // A pipelined request waits in the buffer until the one before is taken.
    void pipelinedRequestWaitsForTheOneBefore()
    {
        HttpRequestParser parser;
        const QByteArray second = "GET /2 HTTP/1.1\r\nHost: a\r\n\r\n";
        QCOMPARE(parser.push(QByteArray("GET /1 HTTP/1.1\r\nHost: a\r\n\r\n" + second)), HttpRequestParser::Progress::HeadReady);
        QCOMPARE(parser.push({}), HttpRequestParser::Progress::Complete);
        QCOMPARE(parser.bufferedBytes(), second.size());
        QCOMPARE(parser.takeRequest().path, QByteArray("/1"));
        QCOMPARE(parser.push({}), HttpRequestParser::Progress::HeadReady);
        QCOMPARE(parser.push({}), HttpRequestParser::Progress::Complete);
        QCOMPARE(parser.takeRequest().path, QByteArray("/2"));
        QCOMPARE(parser.bufferedBytes(), 0);
    }

    void reasonsSayWhatWasWrong_data()
    {
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QString>("reason");
        QTest::newRow("obs-fold") << QByteArray("GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n") << u"line folding"_s;
        QTest::newRow("space before colon") << QByteArray("GET / HTTP/1.1\r\nHost : a\r\n\r\n") << u"'Host ' is followed by whitespace"_s;
        QTest::newRow("no Host") << QByteArray("GET / HTTP/1.1\r\n\r\n") << u"no Host field"_s;
        QTest::newRow("chunked") << QByteArray("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")
                                 << u"must come with a Content-Length"_s;
        QTest::newRow("413") << QByteArray("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5000000\r\n\r\n")
                             << u"larger than the 4194304 bytes"_s;
        QTest::newRow("405") << QByteArray("PUT / HTTP/1.1\r\n") << u"PUT is not allowed here; allowed are GET, POST, DELETE, OPTIONS"_s;
    }

    void reasonsSayWhatWasWrong()
    {
        QFETCH(QByteArray, input);
        QFETCH(QString, reason);
        HttpRequestParser parser;
        QCOMPARE(parser.push(input), HttpRequestParser::Progress::Failed);
        QVERIFY2(parser.error().reason.contains(reason), qPrintable(parser.error().reason));
    }

    void keepAliveAndContinue_data()
    {
        QTest::addColumn<QByteArray>("head");
        QTest::addColumn<bool>("keepAlive");
        QTest::addColumn<bool>("expectsContinue");
        QTest::newRow("1.1") << QByteArray("GET / HTTP/1.1\r\nHost: a\r\n\r\n") << true << false;
        QTest::newRow("1.1 close") << QByteArray("GET / HTTP/1.1\r\nHost: a\r\nConnection: Close\r\n\r\n") << false << false;
        QTest::newRow("1.1 close in a list") << QByteArray("GET / HTTP/1.1\r\nHost: a\r\nConnection: TE, close\r\n\r\n") << false
                                             << false;
        QTest::newRow("1.0") << QByteArray("GET / HTTP/1.0\r\n\r\n") << false << false;
        QTest::newRow("1.0 keep-alive") << QByteArray("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n") << true << false;
        QTest::newRow("1.1 100-continue") << QByteArray("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n")
                                          << true << true;
        QTest::newRow("1.0 100-continue ignored") << QByteArray("POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n")
                                                  << false << false;
    }

    void keepAliveAndContinue()
    {
        QFETCH(QByteArray, head);
        QFETCH(bool, keepAlive);
        QFETCH(bool, expectsContinue);
        HttpRequestParser parser;
        QCOMPARE(parser.push(head), HttpRequestParser::Progress::HeadReady);
        QCOMPARE(parser.request().keepAlive(), keepAlive);
        QCOMPARE(parser.request().expectsContinue(), expectsContinue);
    }

    void queryItemsDecoded()
    {
        HttpRequestParser parser;
        QCOMPARE(parser.push("GET /x?name=a%20b&n=1 HTTP/1.1\r\nHost: a\r\n\r\n"), HttpRequestParser::Progress::HeadReady);
        const QUrlQuery items = parser.request().queryItems();
        QCOMPARE(items.queryItemValue(u"name"_s, QUrl::FullyDecoded), u"a b"_s);
        QCOMPARE(items.queryItemValue(u"n"_s), u"1"_s);
    }
};

QTEST_GUILESS_MAIN(TestHttpRequestParser)
#include "tst_httprequestparser.moc"
