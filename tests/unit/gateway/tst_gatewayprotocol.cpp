// The gateway's side of MCP as pure functions: version negotiation, the initialize result,
// tools/list pages and cursors, tools/call parsing, and what a host gets for each kind of reply.
#include "gateway/gatewayprotocol.h"
#include "gateway/toolcatalog.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;

Q_DECLARE_METATYPE(Tether::ToolCallReply)
Q_DECLARE_METATYPE(Tether::HostToolReply::Kind)

namespace {

ToolCatalog catalogOf(const QStringList &publicNames)
{
    QList<RegisteredTool> tools;
    for (const QString &name : publicNames) {
        const QString server = name.section(u"__"_s, 0, 0);
        const QString tool = name.section(u"__"_s, 1);
        QString error;
        const auto definition = parseToolDefinition(
            QJsonObject{{u"name"_s, tool}, {u"inputSchema"_s, QJsonObject{{u"type"_s, u"object"_s}}}}, &error);
        tools.append({name, server, *definition, true});
    }
    return ToolCatalog(tools, {});
}

struct Page
{
    QStringList names;
    QJsonValue nextCursor;
    std::optional<JsonRpc::Error> error;
};

Page page(const ToolCatalog &catalog, const QJsonObject &params, int pageSize)
{
    const HostListPage result = toolsListPage(catalog, params, pageSize);
    if (result.error)
        return {{}, {}, result.error};
    QJsonParseError parseError;
    const QJsonObject object = QJsonDocument::fromJson(result.result, &parseError).object();
    if (parseError.error != QJsonParseError::NoError)
        qFatal("a page that is not JSON: %s", result.result.constData());
    Page parsed;
    for (const QJsonValue &tool : object.value(u"tools").toArray())
        parsed.names.append(tool.toObject().value(u"name").toString());
    parsed.nextCursor = object.value(u"nextCursor");
    return parsed;
}

QStringList allPages(const ToolCatalog &catalog, int pageSize, int *pages)
{
    QStringList names;
    QJsonObject params;
    *pages = 0;
    for (;;) {
        const Page next = page(catalog, params, pageSize);
        ++*pages;
        names += next.names;
        if (next.nextCursor.isUndefined())
            return names;
        params = {{u"cursor"_s, next.nextCursor}};
    }
}

ToolCallReply resultReply(const QJsonObject &result)
{
    ToolCallReply reply;
    QString wrong;
    reply.result = parseToolCallResult(result, &wrong).value();
    return reply;
}

ToolCallReply serverError(int code, const QString &message, const QJsonValue &data)
{
    ToolCallReply reply = ToolCallReply::failure(code, message);
    reply.error->data = data;
    reply.fromServer = true;
    return reply;
}

} // namespace

class TestGatewayProtocol final : public QObject
{
    Q_OBJECT

private slots:
    void negotiation_data()
    {
        QTest::addColumn<QJsonValue>("requested");
        QTest::addColumn<QString>("expected"); // empty: refused

        QTest::newRow("2025-11-25") << QJsonValue(u"2025-11-25"_s) << u"2025-11-25"_s;
        QTest::newRow("2025-06-18") << QJsonValue(u"2025-06-18"_s) << u"2025-06-18"_s;
        QTest::newRow("2025-03-26") << QJsonValue(u"2025-03-26"_s) << u"2025-03-26"_s;
        QTest::newRow("2024-11-05") << QJsonValue(u"2024-11-05"_s) << u"2024-11-05"_s;
        QTest::newRow("newer than Tether") << QJsonValue(u"2026-07-28"_s) << u"2025-11-25"_s;
        QTest::newRow("older than Tether") << QJsonValue(u"2024-10-07"_s) << u"2025-11-25"_s;
        QTest::newRow("not a date") << QJsonValue(u"latest"_s) << u"2025-11-25"_s;
        QTest::newRow("number") << QJsonValue(20251125) << QString();
        QTest::newRow("missing") << QJsonValue(QJsonValue::Undefined) << QString();
        QTest::newRow("null") << QJsonValue(QJsonValue::Null) << QString();
    }

    void negotiation()
    {
        QFETCH(QJsonValue, requested);
        QFETCH(QString, expected);
        QCOMPARE(negotiatedProtocolVersion(requested).value_or(QString()), expected);
    }

    void initializeResultAdvertisesTheCapabilitiesGiven()
    {
        const QJsonObject capabilities{{u"tools"_s, QJsonObject{{u"listChanged"_s, true}}}};
        const QJsonObject result = initializeResult(u"2025-06-18"_s, capabilities);
        QCOMPARE(result.value(u"protocolVersion").toString(), u"2025-06-18"_s);
        QCOMPARE(result.value(u"capabilities").toObject(), capabilities);
        QCOMPARE(result.value(u"serverInfo").toObject().value(u"name").toString(), u"tether"_s);
        QCOMPARE(result.value(u"serverInfo").toObject().value(u"version").toString(), QStringLiteral(TETHER_VERSION));
        QVERIFY(!result.value(u"instructions").toString().isEmpty());
    }

    void pagesCoverEveryToolOnce_data()
    {
        QTest::addColumn<int>("tools");
        QTest::addColumn<int>("pageSize");
        QTest::addColumn<int>("pages");

        QTest::newRow("none") << 0 << 5 << 1;
        QTest::newRow("fewer than a page") << 3 << 5 << 1;
        QTest::newRow("exactly a page") << 5 << 5 << 1;
        QTest::newRow("one more") << 6 << 5 << 2;
        QTest::newRow("many") << 1000 << 5 << 200;
        QTest::newRow("one per page") << 4 << 1 << 4;
    }

    void pagesCoverEveryToolOnce()
    {
        QFETCH(int, tools);
        QFETCH(int, pageSize);
        QFETCH(int, pages);
        QStringList expected;
        for (int i = 0; i < tools; ++i)
            expected.append(u"s__tool_%1"_s.arg(i, 4, 10, QChar(u'0')));
        int pagesSeen = 0;
        QCOMPARE(allPages(catalogOf(expected), pageSize, &pagesSeen), expected);
        QCOMPARE(pagesSeen, pages);
    }

    void cursorsStayPutWhileToolsChange()
    {
        const Page first = page(catalogOf({u"a__1"_s, u"b__1"_s, u"c__1"_s, u"d__1"_s, u"e__1"_s}), {}, 2);
        QCOMPARE(first.names, (QStringList{u"a__1"_s, u"b__1"_s}));
        QCOMPARE(first.nextCursor.toString(), cursorAfter(u"b__1"_s));
        // b went away and a0 came before it: the next page still starts after b.
        const Page second = page(catalogOf({u"a0__1"_s, u"a__1"_s, u"c__1"_s, u"d__1"_s, u"e__1"_s}),
                                 {{u"cursor"_s, first.nextCursor}}, 2);
        QCOMPARE(second.names, (QStringList{u"c__1"_s, u"d__1"_s}));
        QVERIFY(!second.nextCursor.isUndefined());
    }

    void badCursors_data()
    {
        QTest::addColumn<QJsonValue>("cursor");

        QTest::newRow("number") << QJsonValue(3);
        QTest::newRow("empty") << QJsonValue(u""_s);
        QTest::newRow("not base64url") << QJsonValue(u"a+b/c="_s);
        QTest::newRow("padding") << QJsonValue(cursorAfter(u"b__1"_s) + u"=="_s);
        QTest::newRow("object") << QJsonValue(QJsonObject{{u"after"_s, 1}});
        QTest::newRow("whitespace") << QJsonValue(u" "_s + cursorAfter(u"b__1"_s));
    }

    void badCursors()
    {
        QFETCH(QJsonValue, cursor);
        const Page refused = page(catalogOf({u"a__1"_s, u"b__1"_s}), {{u"cursor"_s, cursor}}, 1);
        QVERIFY(refused.error);
        QCOMPARE(refused.error->code, int(JsonRpc::InvalidParams));
        QVERIFY2(refused.error->message.startsWith(u"Invalid cursor"_s), qPrintable(refused.error->message));
    }

    void cursorRoundTrip_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("plain") << u"github__search"_s;
        QTest::newRow("hyphens and digits") << u"my-server_1__get-sum-2"_s;
        QTest::newRow("64 characters") << QString(64, u'x');
    }

    void cursorRoundTrip()
    {
        QFETCH(QString, name);
        const QString cursor = cursorAfter(name);
        QVERIFY(!cursor.contains(u'=') && !cursor.contains(u'+') && !cursor.contains(u'/'));
        QCOMPARE(nameFromCursor(cursor).value_or(QString()), name);
    }

    void nullCursorStartsAtTheBeginning()
    {
        const Page first = page(catalogOf({u"a__1"_s, u"b__1"_s}), {{u"cursor"_s, QJsonValue(QJsonValue::Null)}}, 1);
        QCOMPARE(first.names, QStringList{u"a__1"_s});
    }

    void toolCallRequests_data()
    {
        QTest::addColumn<QJsonObject>("params");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QJsonObject>("arguments");
        QTest::addColumn<QJsonValue>("progressToken");
        QTest::addColumn<bool>("valid");

        const QJsonObject args{{u"message"_s, u"hi"_s}};
        const QJsonValue none(QJsonValue::Undefined);
        QTest::newRow("name and arguments") << QJsonObject{{u"name"_s, u"demo__echo"_s}, {u"arguments"_s, args}}
                                            << u"demo__echo"_s << args << none << true;
        QTest::newRow("no arguments") << QJsonObject{{u"name"_s, u"demo__image"_s}} << u"demo__image"_s << QJsonObject()
                                      << none << true;
        QTest::newRow("null arguments") << QJsonObject{{u"name"_s, u"demo__image"_s}, {u"arguments"_s, QJsonValue::Null}}
                                        << u"demo__image"_s << QJsonObject() << none << true;
        QTest::newRow("string token")
            << QJsonObject{{u"name"_s, u"demo__sleep"_s}, {u"_meta"_s, QJsonObject{{u"progressToken"_s, u"abc"_s}}}}
            << u"demo__sleep"_s << QJsonObject() << QJsonValue(u"abc"_s) << true;
        QTest::newRow("integer token")
            << QJsonObject{{u"name"_s, u"demo__sleep"_s}, {u"_meta"_s, QJsonObject{{u"progressToken"_s, 7}}}}
            << u"demo__sleep"_s << QJsonObject() << QJsonValue(7) << true;
        QTest::newRow("token of another kind: no progress")
            << QJsonObject{{u"name"_s, u"demo__sleep"_s}, {u"_meta"_s, QJsonObject{{u"progressToken"_s, true}}}}
            << u"demo__sleep"_s << QJsonObject() << none << true;
        QTest::newRow("no name") << QJsonObject{{u"arguments"_s, args}} << QString() << QJsonObject() << none << false;
        QTest::newRow("empty name") << QJsonObject{{u"name"_s, u""_s}} << QString() << QJsonObject() << none << false;
        QTest::newRow("name not a string") << QJsonObject{{u"name"_s, 5}} << QString() << QJsonObject() << none << false;
        QTest::newRow("arguments an array") << QJsonObject{{u"name"_s, u"demo__echo"_s}, {u"arguments"_s, QJsonArray{1}}}
                                            << u"demo__echo"_s << QJsonObject() << none << false;
        QTest::newRow("arguments a string") << QJsonObject{{u"name"_s, u"demo__echo"_s}, {u"arguments"_s, u"{}"_s}}
                                            << u"demo__echo"_s << QJsonObject() << none << false;
    }

    void toolCallRequests()
    {
        QFETCH(QJsonObject, params);
        QFETCH(QString, name);
        QFETCH(QJsonObject, arguments);
        QFETCH(QJsonValue, progressToken);
        QFETCH(bool, valid);
        const ToolCallRequest request = parseToolCallRequest(params);
        QCOMPARE(!request.error.has_value(), valid);
        if (!valid) {
            QCOMPARE(request.error->code, int(JsonRpc::InvalidParams));
            return;
        }
        QCOMPARE(request.name, name);
        QCOMPARE(request.arguments, arguments);
        QCOMPARE(request.progressToken, progressToken);
    }

    // The host's _meta goes on to the server (a trace context), but for its progress token: the
    // server gets Tether's own.
    void aCallKeepsTheHostsMeta()
    {
        const QJsonObject meta{{u"traceparent"_s, u"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"_s},
                               {u"progressToken"_s, u"host-token"_s}};
        const ToolCallRequest request = parseToolCallRequest({{u"name"_s, u"demo__echo"_s}, {u"_meta"_s, meta}});
        QVERIFY(!request.error);
        QCOMPARE(request.progressToken, QJsonValue(u"host-token"_s));
        QCOMPARE(request.meta, (QJsonObject{{u"traceparent"_s, meta.value(u"traceparent")}}));
        QCOMPARE(toolCallInput(request).meta, request.meta);
        QVERIFY(toolCallInput(request).resultAsText);
    }

    void hostReplies_data()
    {
        QTest::addColumn<ToolCallReply>("reply");
        QTest::addColumn<HostToolReply::Kind>("kind");
        QTest::addColumn<QJsonObject>("result"); // Result: exactly this, or a tool error with `text`
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("errorCode");      // Error

        const QJsonObject upstream{
            {u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, u"42"_s}}}},
            {u"structuredContent"_s, QJsonObject{{u"answer"_s, 42}}},
            {u"_meta"_s, QJsonObject{{u"vendor/x"_s, true}}},
        };
        QJsonObject upstreamError = upstream;
        upstreamError.insert(u"isError"_s, true);
        using K = HostToolReply::Kind;
        QTest::newRow("result unchanged") << resultReply(upstream) << K::Result << upstream << QString() << 0;
        QTest::newRow("tool error unchanged") << resultReply(upstreamError) << K::Result << upstreamError << QString() << 0;
        QTest::newRow("server's own error") << serverError(-32602, u"Unknown tool: x"_s, QJsonObject{{u"hint"_s, 1}})
                                            << K::Error << QJsonObject() << QString() << -32602;
        QTest::newRow("server's own error with a local code")
            << serverError(JsonRpc::ConnectionClosed, u"the server says so"_s, {}) << K::Error << QJsonObject() << QString()
            << int(JsonRpc::ConnectionClosed);
        QTest::newRow("cancelled") << ToolCallReply::failure(JsonRpc::RequestCancelled, u"cancelled by host"_s) << K::Nothing
                                   << QJsonObject() << QString() << 0;
        QTest::newRow("unavailable")
            << ToolCallReply::failure(JsonRpc::ServerUnavailable,
                                      u"server 'github' is reconnecting (attempt 3/10, next retry in 4 s); waited 10 s; "
                                      "try again shortly"_s)
            << K::Result << QJsonObject()
            << u"Tool 'github__search' is unavailable: server 'github' is reconnecting (attempt 3/10, next retry in 4 s); "
               "waited 10 s; try again shortly."_s
            << 0;
        QTest::newRow("lost") << ToolCallReply::failure(JsonRpc::ConnectionClosed, u"connection closed: process exited"_s)
                              << K::Result << QJsonObject()
                              << u"Tool 'github__search' did not finish: connection closed: process exited."_s << 0;
        QTest::newRow("timeout") << ToolCallReply::failure(JsonRpc::RequestTimeout, u"timed out after 60000 ms"_s)
                                 << K::Result << QJsonObject()
                                 << u"Tool 'github__search' did not answer in time: timed out after 60000 ms."_s << 0;
        QTest::newRow("transport") << ToolCallReply::failure(JsonRpc::TransportError, u"HTTP 502 from the server"_s)
                                   << K::Result << QJsonObject()
                                   << u"Tool 'github__search' could not be called: HTTP 502 from the server."_s << 0;
    }

    void hostReplies()
    {
        QFETCH(ToolCallReply, reply);
        QFETCH(HostToolReply::Kind, kind);
        QFETCH(QJsonObject, result);
        QFETCH(QString, text);
        QFETCH(int, errorCode);
        const HostToolReply host = hostReplyFor(reply, u"github__search"_s);
        QCOMPARE(host.kind, kind);
        if (kind == HostToolReply::Kind::Error) {
            QCOMPARE(host.error.code, errorCode);
            QCOMPARE(host.error.message, reply.error->message);
            QCOMPARE(host.error.data, reply.error->data);
        } else if (kind == HostToolReply::Kind::Result) {
            QCOMPARE(host.result, text.isEmpty() ? result : toolErrorResult(text));
        }
    }

    void toolErrorResultShape()
    {
        QCOMPARE(toolErrorResult(u"no"_s),
                 (QJsonObject{{u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, u"no"_s}}}},
                              {u"isError"_s, true}}));
        const HostToolReply unknown = unknownToolReply(u"demo__nope"_s);
        QCOMPARE(unknown.kind, HostToolReply::Kind::Error);
        QCOMPARE(unknown.error.code, int(JsonRpc::InvalidParams));
        QCOMPARE(unknown.error.message, u"Unknown tool: demo__nope"_s);
    }

    void responsesWithWrittenResults_data()
    {
        QTest::addColumn<QJsonValue>("id");
        QTest::newRow("integer") << QJsonValue(3);
        QTest::newRow("zero") << QJsonValue(0);
        QTest::newRow("negative") << QJsonValue(-42);
        QTest::newRow("largest exact integer") << QJsonValue(double(qint64(1) << 53));
        QTest::newRow("beyond exact integers") << QJsonValue(1e300);
        QTest::newRow("fraction") << QJsonValue(1.5);
        QTest::newRow("string") << QJsonValue(u"a \"quoted\" id"_s);
        QTest::newRow("null") << QJsonValue(QJsonValue::Null);
    }

    void responsesWithWrittenResults()
    {
        QFETCH(QJsonValue, id);
        const QByteArray response = responseWithResultJson(id, R"({"tools":[{"name":"x"}]})");
        const QJsonObject parsed = QJsonDocument::fromJson(response).object();
        QCOMPARE(parsed, JsonRpc::makeResult(id, QJsonObject{{u"tools"_s, QJsonArray{QJsonObject{{u"name"_s, u"x"_s}}}}}));
    }
};

QTEST_GUILESS_MAIN(TestGatewayProtocol)
#include "tst_gatewayprotocol.moc"
