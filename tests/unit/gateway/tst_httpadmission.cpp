// The admission table of the Streamable HTTP endpoint, judged from a request's head alone:
// which request is refused with which status, in the design's order, and that every refusal is
// a JSON-RPC error with a null id that says what to do.
#include "gateway/httpadmission.h"

#include "httpserver/httprequest.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;

Q_DECLARE_METATYPE(Tether::HttpHeaders)

namespace {

constexpr quint16 Port = 27413;
const QByteArray Token = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFG";

EndpointRules rules()
{
    EndpointRules rules;
    rules.token = Token;
    rules.tokenFile = u"/home/ada/.config/tether/gateway-token"_s;
    rules.listenHost = u"127.0.0.1"_s;
    rules.port = Port;
    rules.allowedOrigins = {u"https://app.example"_s};
    rules.allowedHosts = {u"gateway.example"_s, u"pinned.example:8443"_s};
    return rules;
}

// A request as an SDK client sends it, with `changes` over it (an empty value removes the field).
HttpRequest request(const QByteArray &method, const QByteArray &path, const HttpHeaders &changes)
{
    HttpRequest head;
    head.method = method;
    head.path = path;
    head.target = path;
    HttpHeaders headers{{"Host", "127.0.0.1:27413"},
                        {"Authorization", "Bearer " + Token},
                        {"Accept", "application/json, text/event-stream"}};
    if (method == "POST")
        headers.append("Content-Type", "application/json");
    if (method != "POST" || changes.contains("Mcp-Session-Id"))
        headers.append("Mcp-Session-Id", "0123abcd");
    for (const auto &[name, value] : changes.fields()) {
        headers.remove(name);
        if (!value.isEmpty())
            headers.append(name, value);
    }
    head.headers = headers;
    return head;
}

} // namespace

class TestHttpAdmission final : public QObject
{
    Q_OBJECT

private slots:
    void table_data()
    {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QByteArray>("path");
        QTest::addColumn<HttpHeaders>("changes");
        QTest::addColumn<int>("status"); // 0: admitted
        QTest::addColumn<QString>("message");

        QTest::newRow("initialize") << QByteArray("POST") << QByteArray("/mcp") << HttpHeaders{} << 0 << QString();
        QTest::newRow("GET stream") << QByteArray("GET") << QByteArray("/mcp") << HttpHeaders{} << 0 << QString();
        QTest::newRow("DELETE") << QByteArray("DELETE") << QByteArray("/mcp") << HttpHeaders{} << 0 << QString();
        QTest::newRow("health") << QByteArray("GET") << QByteArray("/healthz") << HttpHeaders{} << 0 << QString();
        QTest::newRow("metrics") << QByteArray("GET") << QByteArray("/metrics") << HttpHeaders{} << 0 << QString();
        QTest::newRow("own origin") << QByteArray("POST") << QByteArray("/mcp")
                                    << HttpHeaders{{"Origin", "http://localhost:27413"}} << 0 << QString();
        QTest::newRow("allowed origin, slash") << QByteArray("POST") << QByteArray("/mcp")
                                               << HttpHeaders{{"Origin", "https://APP.example/"}} << 0 << QString();
        QTest::newRow("host without port") << QByteArray("POST") << QByteArray("/mcp")
                                           << HttpHeaders{{"Host", "localhost"}} << 0 << QString();
        QTest::newRow("IPv6 host") << QByteArray("POST") << QByteArray("/mcp") << HttpHeaders{{"Host", "[::1]:27413"}}
                                   << 0 << QString();
        QTest::newRow("allowed host, any port") << QByteArray("POST") << QByteArray("/mcp")
                                                << HttpHeaders{{"Host", "gateway.example:443"}} << 0 << QString();
        QTest::newRow("allowed host, its port") << QByteArray("POST") << QByteArray("/mcp")
                                                << HttpHeaders{{"Host", "pinned.example:8443"}} << 0 << QString();
        QTest::newRow("bearer in lower case") << QByteArray("POST") << QByteArray("/mcp")
                                              << HttpHeaders{{"Authorization", "bearer " + Token}} << 0 << QString();
        QTest::newRow("charset") << QByteArray("POST") << QByteArray("/mcp")
                                 << HttpHeaders{{"Content-Type", "application/json; charset=utf-8"}} << 0 << QString();
        QTest::newRow("accept anything") << QByteArray("POST") << QByteArray("/mcp") << HttpHeaders{{"Accept", "*/*"}}
                                         << 0 << QString();
        QTest::newRow("no accept") << QByteArray("POST") << QByteArray("/mcp") << HttpHeaders{{"Accept", ""}} << 0
                                   << QString();
        QTest::newRow("spoken version") << QByteArray("POST") << QByteArray("/mcp")
                                        << HttpHeaders{{"MCP-Protocol-Version", "2025-06-18"}} << 0 << QString();

        QTest::newRow("foreign origin") << QByteArray("POST") << QByteArray("/mcp")
                                        << HttpHeaders{{"Origin", "http://evil.example"}} << 403
                                        << u"requests from the web page at http://evil.example are refused"_s;
        QTest::newRow("origin of another port") << QByteArray("POST") << QByteArray("/mcp")
                                                << HttpHeaders{{"Origin", "http://127.0.0.1:8080"}} << 403
                                                << u"gateway.http.allowedOrigins"_s;
        QTest::newRow("null origin") << QByteArray("POST") << QByteArray("/mcp") << HttpHeaders{{"Origin", "null"}}
                                     << 403 << u"allowedOrigins"_s;
        QTest::newRow("foreign host (DNS rebinding)") << QByteArray("POST") << QByteArray("/mcp")
                                                      << HttpHeaders{{"Host", "evil.example:27413"}} << 403
                                                      << u"the host name evil.example:27413 is not this gateway's"_s;
        QTest::newRow("pinned host, other port") << QByteArray("POST") << QByteArray("/mcp")
                                                 << HttpHeaders{{"Host", "pinned.example:80"}} << 403
                                                 << u"gateway.http.allowedHosts"_s;
        QTest::newRow("origin before token") << QByteArray("POST") << QByteArray("/mcp")
                                             << HttpHeaders{{"Origin", "http://evil.example"}, {"Authorization", ""}}
                                             << 403 << u"evil.example"_s;
        QTest::newRow("no token") << QByteArray("POST") << QByteArray("/mcp") << HttpHeaders{{"Authorization", ""}}
                                  << 401 << u"no bearer token was sent; send the header \"Authorization: Bearer <token>\" "
                                            "with the token in /home/ada/.config/tether/gateway-token"_s;
        QTest::newRow("wrong token") << QByteArray("POST") << QByteArray("/mcp")
                                     << HttpHeaders{{"Authorization", "Bearer " + Token.left(Token.size() - 1) + 'x'}}
                                     << 401 << u"the bearer token is wrong"_s;
        QTest::newRow("token prefix") << QByteArray("POST") << QByteArray("/mcp")
                                      << HttpHeaders{{"Authorization", "Bearer " + Token.left(10)}} << 401
                                      << u"the bearer token is wrong"_s;
        QTest::newRow("basic scheme") << QByteArray("POST") << QByteArray("/mcp")
                                      << HttpHeaders{{"Authorization", "Basic " + Token}} << 401
                                      << u"the bearer token is wrong"_s;
        QTest::newRow("token before path") << QByteArray("GET") << QByteArray("/admin")
                                           << HttpHeaders{{"Authorization", ""}} << 401 << u"no bearer token"_s;
        QTest::newRow("other path") << QByteArray("GET") << QByteArray("/admin") << HttpHeaders{} << 404
                                    << u"nothing is served at /admin; Tether's MCP endpoint is /mcp"_s;
        QTest::newRow("OPTIONS") << QByteArray("OPTIONS") << QByteArray("/mcp") << HttpHeaders{} << 405
                                 << u"OPTIONS /mcp takes GET, POST, DELETE"_s;
        QTest::newRow("POST health") << QByteArray("POST") << QByteArray("/healthz") << HttpHeaders{} << 405
                                     << u"takes GET"_s;
        QTest::newRow("text body") << QByteArray("POST") << QByteArray("/mcp") << HttpHeaders{{"Content-Type", "text/plain"}}
                                   << 415 << u"\"Content-Type: application/json\", not \"text/plain\""_s;
        QTest::newRow("no content type") << QByteArray("POST") << QByteArray("/mcp") << HttpHeaders{{"Content-Type", ""}}
                                         << 415 << u"Unsupported media type"_s;
        QTest::newRow("accepts html only") << QByteArray("POST") << QByteArray("/mcp") << HttpHeaders{{"Accept", "text/html"}}
                                           << 406 << u"send \"Accept: application/json, text/event-stream\""_s;
        QTest::newRow("GET wants JSON") << QByteArray("GET") << QByteArray("/mcp")
                                        << HttpHeaders{{"Accept", "application/json"}} << 406
                                        << u"needs \"Accept: text/event-stream\""_s;
        QTest::newRow("GET without session") << QByteArray("GET") << QByteArray("/mcp")
                                             << HttpHeaders{{"Mcp-Session-Id", ""}} << 400
                                             << u"GET /mcp needs the Mcp-Session-Id header"_s;
        QTest::newRow("DELETE without session") << QByteArray("DELETE") << QByteArray("/mcp")
                                                << HttpHeaders{{"Mcp-Session-Id", ""}} << 400 << u"Mcp-Session-Id"_s;
        QTest::newRow("unknown version") << QByteArray("POST") << QByteArray("/mcp")
                                         << HttpHeaders{{"MCP-Protocol-Version", "2099-01-01"}} << 400
                                         << u"MCP-Protocol-Version 2099-01-01 is not one Tether speaks"_s;
    }

    void table()
    {
        QFETCH(QByteArray, method);
        QFETCH(QByteArray, path);
        QFETCH(HttpHeaders, changes);
        QFETCH(int, status);
        QFETCH(QString, message);

        const std::optional<HttpReply> refusal = refuseEndpointHead(request(method, path, changes), rules());
        if (status == 0) {
            QVERIFY2(!refusal, refusal ? refusal->body.constData() : "");
            return;
        }
        QVERIFY(refusal);
        QCOMPARE(refusal->status, status);
        QCOMPARE(refusal->headers.value("Content-Type"), QByteArray("application/json"));
        const QJsonObject body = QJsonDocument::fromJson(refusal->body).object();
        QCOMPARE(body.value(u"jsonrpc").toString(), u"2.0"_s);
        QVERIFY(body.value(u"id").isNull());
        const QString text = body.value(u"error").toObject().value(u"message").toString();
        QVERIFY2(text.contains(message), qPrintable(text));
        QCOMPARE(refusal->headers.contains("WWW-Authenticate"), status == 401);
        // Refused for who or where it is, a peer keeps no connection to pipeline more on.
        QCOMPARE(refusal->closeConnection, status == 401 || status == 403);
        if (status == 405)
            QVERIFY(!refusal->headers.value("Allow").isEmpty());
    }

    void acceptsEventStream_data()
    {
        QTest::addColumn<QByteArray>("accept");
        QTest::addColumn<bool>("expected");
        QTest::newRow("SDK") << QByteArray("application/json, text/event-stream") << true;
        QTest::newRow("absent") << QByteArray() << true;
        QTest::newRow("anything") << QByteArray("*/*;q=0.1") << true;
        QTest::newRow("any text") << QByteArray("text/*") << true;
        QTest::newRow("upper case") << QByteArray("Text/Event-Stream") << true;
        QTest::newRow("JSON only") << QByteArray("application/json") << false;
    }

    void acceptsEventStream()
    {
        QFETCH(QByteArray, accept);
        QFETCH(bool, expected);
        QCOMPARE(Tether::acceptsEventStream(accept), expected);
    }
};

QTEST_GUILESS_MAIN(TestHttpAdmission)
#include "tst_httpadmission.moc"
