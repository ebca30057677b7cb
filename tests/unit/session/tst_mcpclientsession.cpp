#include "session/mcpclientsession.h"
#include "support/faketransport.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using Testing::FakeTransport;

namespace {

struct Harness
{
    explicit Harness(std::chrono::milliseconds timeout = std::chrono::milliseconds(60000),
                     const SecretScrubber &secrets = SecretScrubber())
    {
        auto owned = std::make_unique<FakeTransport>(secrets);
        transport = owned.get();
        session = std::make_unique<McpClientSession>(std::move(owned), SessionOptions{u"fake"_s, timeout});
    }

    // The id of the last request sent with `method`.
    QJsonValue idOf(const QString &method) const { return transport->lastSent(method).value(u"id"); }

    void answer(const QString &method, const QJsonValue &result)
    {
        transport->inject(JsonRpc::makeResult(idOf(method), result));
    }

    static QJsonObject initializeResult(const QString &version = u"2025-11-25"_s)
    {
        return {{u"protocolVersion"_s, version},
                {u"capabilities"_s, QJsonObject{{u"tools"_s, QJsonObject{{u"listChanged"_s, true}}},
                                                {u"resources"_s, QJsonObject{{u"listChanged"_s, true}}},
                                                {u"prompts"_s, QJsonObject{}}}},
                {u"serverInfo"_s, QJsonObject{{u"name"_s, u"fake-server"_s}, {u"version"_s, u"9.1"_s}}}};
    }

    bool openReady()
    {
        session->open();
        if (!QTest::qWaitFor([&] { return transport->countSent(u"initialize"_s) == 1; }, 5000))
            return false;
        answer(u"initialize"_s, initializeResult());
        return session->isReady();
    }

    FakeTransport *transport = nullptr;
    std::unique_ptr<McpClientSession> session;
};

QJsonObject textResult(const QString &text, bool isError = false)
{
    return {{u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, text}}}}, {u"isError"_s, isError}};
}

QJsonObject resource(const QString &uri)
{
    return {{u"uri"_s, uri}, {u"name"_s, uri.section(u'/', -1)}, {u"mimeType"_s, u"text/plain"_s}};
}

QJsonObject tool(const QString &name)
{
    return {{u"name"_s, name}, {u"description"_s, QString(u"the "_s + name + u" tool"_s)},
            {u"inputSchema"_s, QJsonObject{{u"type"_s, u"object"_s}}}};
}

} // namespace

class TestMcpClientSession final : public QObject
{
    Q_OBJECT

private slots:
    void handshakeNegotiatesVersionAndSendsInitialized()
    {
        Harness h;
        QSignalSpy ready(h.session.get(), &McpClientSession::ready);
        h.session->open();
        QTRY_COMPARE(h.transport->countSent(u"initialize"_s), 1);
        const QJsonObject params = h.transport->lastSent(u"initialize"_s).value(u"params").toObject();
        QCOMPARE(params.value(u"protocolVersion").toString(), u"2025-11-25"_s);
        QCOMPARE(params.value(u"clientInfo").toObject().value(u"name").toString(), u"tether"_s);
        QVERIFY(!params.value(u"clientInfo").toObject().value(u"version").toString().isEmpty());
        QVERIFY(params.value(u"capabilities").isObject());
        QCOMPARE(h.transport->countSent(u"notifications/initialized"_s), 0);

        h.answer(u"initialize"_s, Harness::initializeResult(u"2024-11-05"_s));
        QCOMPARE(ready.size(), 1);
        QCOMPARE(h.transport->countSent(u"notifications/initialized"_s), 1);
        QCOMPARE(h.session->serverIdentity().protocolVersion, u"2024-11-05"_s);
        QCOMPARE(h.session->serverIdentity().name, u"fake-server"_s);
        QCOMPARE(h.session->serverIdentity().version, u"9.1"_s);
    }

    void unknownProtocolVersionFailsNamingBoth()
    {
        Harness h;
        QSignalSpy failed(h.session.get(), &McpClientSession::failed);
        QSignalSpy closed(h.session.get(), &McpClientSession::closed);
        h.session->open();
        QTRY_COMPARE(h.transport->countSent(u"initialize"_s), 1);
        h.answer(u"initialize"_s, Harness::initializeResult(u"1999-01-01"_s));
        QCOMPARE(failed.size(), 1);
        const QString reason = failed.at(0).at(0).toString();
        QVERIFY2(reason.contains(u"1999-01-01"_s) && reason.contains(u"2025-11-25"_s) && reason.contains(u"'fake'"_s),
                 qPrintable(reason));
        QVERIFY(h.transport->closeRequested);
        QCOMPARE(closed.size(), 1);
        QCOMPARE(closed.at(0).at(0).value<SessionClosure>().failure, reason);
        QVERIFY(!closed.at(0).at(0).value<SessionClosure>().wasReady);
        QCOMPARE(h.transport->countSent(u"notifications/initialized"_s), 0);
    }

    void initializeErrorFails()
    {
        Harness h;
        QSignalSpy failed(h.session.get(), &McpClientSession::failed);
        h.session->open();
        QTRY_COMPARE(h.transport->countSent(u"initialize"_s), 1);
        h.transport->inject(JsonRpc::makeError(h.idOf(u"initialize"_s), -32602, u"unsupported client"_s));
        QCOMPARE(failed.size(), 1);
        QVERIFY(failed.at(0).at(0).toString().contains(u"unsupported client"_s));
        QVERIFY(!h.session->isReady());
    }

    void handshakeTimesOut()
    {
        Harness h(std::chrono::milliseconds(50));
        QSignalSpy failed(h.session.get(), &McpClientSession::failed);
        h.session->open();
        QTRY_COMPARE(failed.size(), 1);
        QVERIFY2(failed.at(0).at(0).toString().contains(u"timed out after 50 ms"_s), qPrintable(failed.at(0).at(0).toString()));
        QCOMPARE(h.transport->countSent(u"notifications/cancelled"_s), 1);
        QVERIFY(h.transport->closeRequested);
    }

    void transportClosingDuringHandshakeFailsWithStderr()
    {
        Harness h;
        h.transport->closeOnRequest = false;
        QSignalSpy failed(h.session.get(), &McpClientSession::failed);
        QSignalSpy closed(h.session.get(), &McpClientSession::closed);
        h.session->open();
        QTRY_COMPARE(h.transport->countSent(u"initialize"_s), 1);
        TransportClosure closure;
        closure.exitCode = 3;
        closure.stderrTail = QStringList{u"first"_s, u"boom: no config"_s};
        h.transport->finishClose(closure);
        QCOMPARE(failed.size(), 1);
        const QString reason = failed.at(0).at(0).toString();
        QVERIFY2(reason.contains(u"during initialize"_s) && reason.contains(u"code 3"_s)
                     && reason.contains(u"boom: no config"_s),
                 qPrintable(reason));
        QCOMPARE(closed.size(), 1);
        QCOMPARE(h.session->state(), McpClientSession::State::Closed);
    }

    void earlyListChangedNeitherBreaksNorDuplicates()
    {
        Harness h;
        QSignalSpy changed(h.session.get(), &McpClientSession::toolsListChanged);
        QSignalSpy ready(h.session.get(), &McpClientSession::ready);
        h.session->open();
        QTRY_COMPARE(h.transport->countSent(u"initialize"_s), 1);
        h.transport->inject(JsonRpc::makeNotification(u"notifications/tools/list_changed"_s));
        h.transport->inject(JsonRpc::makeNotification(u"notifications/message"_s,
                                                      {{u"level"_s, u"info"_s}, {u"data"_s, u"early"_s}}));
        h.answer(u"initialize"_s, Harness::initializeResult());
        QCOMPARE(ready.size(), 1);
        QCOMPARE(changed.size(), 0);
        h.transport->inject(JsonRpc::makeNotification(u"notifications/tools/list_changed"_s));
        QCOMPARE(changed.size(), 1);
    }

    void correlatesOutOfOrderReplies()
    {
        Harness h;
        QVERIFY(h.openReady());
        QStringList order;
        const qint64 first = h.session->request(u"a/first"_s, {}, [&](const RpcReply &r) {
            order.append(r.result.toObject().value(u"who").toString());
        });
        const qint64 second = h.session->request(u"a/second"_s, {}, [&](const RpcReply &r) {
            order.append(r.result.toObject().value(u"who").toString());
        });
        QVERIFY(first != second);
        h.transport->inject(JsonRpc::makeResult(second, QJsonObject{{u"who"_s, u"second"_s}}));
        h.transport->inject(JsonRpc::makeResult(first, QJsonObject{{u"who"_s, u"first"_s}}));
        QCOMPARE(order, (QStringList{u"second"_s, u"first"_s}));
        QCOMPARE(h.session->pendingRequestCount(), 0);
        // A second reply to the same id has nobody waiting for it.
        h.transport->inject(JsonRpc::makeResult(first, QJsonObject{}));
        QCOMPARE(h.session->stats().unknownResponses, 1);
        QCOMPARE(order.size(), 2);
    }

    void timeoutSendsCancelledAndFails()
    {
        Harness h(std::chrono::milliseconds(80));
        QVERIFY(h.openReady());
        std::optional<RpcReply> reply;
        const qint64 id = h.session->request(u"tools/call"_s, {{u"name"_s, u"hang"_s}}, [&](const RpcReply &r) { reply = r; });
        QTRY_VERIFY(reply.has_value());
        QCOMPARE(reply->error->code, int(JsonRpc::RequestTimeout));
        QVERIFY(reply->error->message.contains(u"'tools/call'"_s));
        QVERIFY(reply->error->message.contains(u"timed out after 80 ms"_s));
        const QJsonObject cancelled = h.transport->lastSent(u"notifications/cancelled"_s);
        QCOMPARE(cancelled.value(u"params").toObject().value(u"requestId").toInteger(), id);
        // The late reply is inert.
        h.transport->inject(JsonRpc::makeResult(id, QJsonObject{}));
        QCOMPARE(h.session->stats().unknownResponses, 1);
        QVERIFY(h.session->isReady());
    }

    void eachRequestTimesOutAtItsOwnDeadline()
    {
        // One timer serves every deadline: a short one after a long one is kept, and one due
        // after an answered request that was due earlier still ends on time, not before.
        Harness h(std::chrono::milliseconds(60000));
        QVERIFY(h.openReady());
        std::optional<RpcReply> slow;
        std::optional<RpcReply> answered;
        std::optional<RpcReply> quick;
        h.session->request(u"tools/call"_s, {{u"name"_s, u"hang"_s}}, [&](const RpcReply &r) { slow = r; });
        h.session->ping([&](const RpcReply &r) { answered = r; }, std::chrono::milliseconds(150));
        h.answer(u"ping"_s, QJsonObject{});
        QVERIFY(answered && answered->ok());
        QElapsedTimer clock;
        clock.start();
        h.session->ping([&](const RpcReply &r) { quick = r; }, std::chrono::milliseconds(200));
        QTRY_VERIFY(quick.has_value());
        QVERIFY2(clock.elapsed() >= 190, qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(quick->error->code, int(JsonRpc::RequestTimeout));
        QVERIFY(!slow.has_value());
        QCOMPARE(h.session->stats().unknownResponses, 0);
    }

    void cancelFailsLocallyAndTellsTheServer()
    {
        Harness h;
        QVERIFY(h.openReady());
        std::optional<RpcReply> reply;
        const qint64 id = h.session->request(u"tools/call"_s, {}, [&](const RpcReply &r) { reply = r; });
        h.session->cancel(id, u"user pressed Cancel"_s);
        QVERIFY(reply.has_value());
        QCOMPARE(reply->error->code, int(JsonRpc::RequestCancelled));
        const QJsonObject params = h.transport->lastSent(u"notifications/cancelled"_s).value(u"params").toObject();
        QCOMPARE(params.value(u"requestId").toInteger(), id);
        QCOMPARE(params.value(u"reason").toString(), u"user pressed Cancel"_s);
    }

    void closingFailsEveryPendingRequestAtOnce()
    {
        Harness h;
        QVERIFY(h.openReady());
        h.transport->closeOnRequest = false;
        QStringList errors;
        for (int i = 0; i < 5; ++i)
            h.session->request(u"tools/call"_s, {}, [&](const RpcReply &r) { errors.append(r.error->message); });
        QSignalSpy failed(h.session.get(), &McpClientSession::failed);
        TransportClosure closure;
        closure.exitSignal = 9;
        h.transport->finishClose(closure);
        QCOMPARE(errors.size(), 5);
        for (const QString &error : std::as_const(errors))
            QVERIFY2(error.contains(u"connection closed"_s) && error.contains(u"SIGKILL"_s), qPrintable(error));
        QCOMPARE(failed.size(), 1);
        QCOMPARE(h.session->pendingRequestCount(), 0);
    }

    void requestedCloseFailsPendingWithoutFailure()
    {
        Harness h;
        QVERIFY(h.openReady());
        QSignalSpy failed(h.session.get(), &McpClientSession::failed);
        QSignalSpy closed(h.session.get(), &McpClientSession::closed);
        std::optional<RpcReply> reply;
        h.session->request(u"tools/call"_s, {}, [&](const RpcReply &r) { reply = r; });
        h.session->close();
        QVERIFY(reply.has_value());
        QCOMPARE(reply->error->code, int(JsonRpc::ConnectionClosed));
        QCOMPARE(failed.size(), 0);
        QCOMPARE(closed.size(), 1);
        QVERIFY(closed.at(0).at(0).value<SessionClosure>().wasReady);
    }

    void requestsBeforeReadyFailWithoutReentrance()
    {
        Harness h;
        std::optional<RpcReply> reply;
        h.session->request(u"tools/list"_s, {}, [&](const RpcReply &r) { reply = r; });
        QVERIFY(!reply.has_value());
        QTRY_VERIFY(reply.has_value());
        QVERIFY(reply->error->message.contains(u"not connected"_s));
    }

    void answersServerPingAndRejectsUnsupportedRequests()
    {
        Harness h;
        QVERIFY(h.openReady());
        h.transport->inject(JsonRpc::makeRequest(u"srv-1"_s, u"ping"_s));
        QJsonObject last = h.transport->sent.last();
        QCOMPARE(last.value(u"id").toString(), u"srv-1"_s);
        QCOMPARE(last.value(u"result").toObject(), QJsonObject());

        for (const QString &method : {u"sampling/createMessage"_s, u"roots/list"_s, u"elicitation/create"_s}) {
            h.transport->inject(JsonRpc::makeRequest(7, method));
            last = h.transport->sent.last();
            QCOMPARE(last.value(u"id").toInt(), 7);
            QCOMPARE(last.value(u"error").toObject().value(u"code").toInt(), -32601);
            QVERIFY(last.value(u"error").toObject().value(u"message").toString().contains(method));
        }
        QCOMPARE(h.session->stats().unsupportedRequests, 3);
    }

    void serverPingBeforeReadyIsAnswered()
    {
        Harness h;
        h.session->open();
        QTRY_COMPARE(h.transport->countSent(u"initialize"_s), 1);
        h.transport->inject(JsonRpc::makeRequest(42, u"ping"_s));
        QCOMPARE(h.transport->sent.last().value(u"id").toInt(), 42);
        QVERIFY(h.transport->sent.last().contains(u"result"));
    }

    void skipsInvalidMessages()
    {
        Harness h;
        QVERIFY(h.openReady());
        h.transport->inject(QJsonObject{{u"jsonrpc"_s, u"2.0"_s}});
        h.transport->inject(QJsonObject{{u"hello"_s, u"world"_s}});
        QCOMPARE(h.session->stats().skippedInput, 2);
        QVERIFY(h.session->isReady());
    }

    void listToolsFollowsCursors()
    {
        Harness h;
        QVERIFY(h.openReady());
        std::optional<ToolListReply> reply;
        h.session->listTools([&](const ToolListReply &r) { reply = r; });
        QVERIFY(!h.transport->lastSent(u"tools/list"_s).value(u"params").toObject().contains(u"cursor"));
        h.answer(u"tools/list"_s, QJsonObject{{u"tools"_s, QJsonArray{tool(u"a"_s), tool(u"b"_s)}}, {u"nextCursor"_s, u"p2"_s}});
        QCOMPARE(h.transport->lastSent(u"tools/list"_s).value(u"params").toObject().value(u"cursor").toString(), u"p2"_s);
        h.answer(u"tools/list"_s, QJsonObject{{u"tools"_s, QJsonArray{tool(u"c"_s), QJsonObject{{u"description"_s, u"nameless"_s}}}},
                                              {u"nextCursor"_s, u"p3"_s}});
        QVERIFY(!reply.has_value());
        h.answer(u"tools/list"_s, QJsonObject{{u"tools"_s, QJsonArray{tool(u"d"_s), tool(u"a"_s)}}});
        QVERIFY(reply.has_value());
        QVERIFY(!reply->error);
        QStringList names;
        for (const ToolDefinition &definition : std::as_const(reply->tools))
            names.append(definition.name);
        QCOMPARE(names, (QStringList{u"a"_s, u"b"_s, u"c"_s, u"d"_s}));
        QCOMPARE(reply->warnings.size(), 2); // the nameless entry and the second 'a'
        QCOMPARE(reply->tools.at(0).description, u"the a tool"_s);
    }

    void listToolsKeepsTheFirstOfANameListedTwice_data()
    {
        QTest::addColumn<QList<QStringList>>("pages");
        QTest::addColumn<QStringList>("kept");
        QTest::addColumn<QStringList>("twice"); // in the order they came

        QTest::newRow("within a page") << QList<QStringList>{{u"a"_s, u"b"_s, u"a"_s}} << QStringList{u"a"_s, u"b"_s}
                                       << QStringList{u"a"_s};
        QTest::newRow("across pages") << QList<QStringList>{{u"a"_s, u"b"_s}, {u"c"_s}, {u"b"_s, u"d"_s}}
                                      << QStringList{u"a"_s, u"b"_s, u"c"_s, u"d"_s} << QStringList{u"b"_s};
        QTest::newRow("three times") << QList<QStringList>{{u"x"_s}, {u"x"_s, u"y"_s}, {u"x"_s}}
                                     << QStringList{u"x"_s, u"y"_s} << QStringList{u"x"_s, u"x"_s};
        // Names are compared as the server wrote them: public names sort out the rest.
        QTest::newRow("case and punctuation differ") << QList<QStringList>{{u"read"_s, u"Read"_s}, {u"a.b"_s, u"a_b"_s}}
                                                     << QStringList{u"read"_s, u"Read"_s, u"a.b"_s, u"a_b"_s} << QStringList{};
    }

    void listToolsKeepsTheFirstOfANameListedTwice()
    {
        QFETCH(QList<QStringList>, pages);
        QFETCH(QStringList, kept);
        QFETCH(QStringList, twice);
        Harness h;
        QVERIFY(h.openReady());
        std::optional<ToolListReply> reply;
        h.session->listTools([&](const ToolListReply &r) { reply = r; });
        // Each entry says where it was, so the one kept can be told from the others.
        const auto place = [](qsizetype page, qsizetype entry) { return u"page %1, entry %2"_s.arg(page).arg(entry); };
        QHash<QString, QString> firstPlace;
        for (qsizetype page = 0; page < pages.size(); ++page) {
            QJsonArray entries;
            for (qsizetype entry = 0; entry < pages.at(page).size(); ++entry) {
                const QString name = pages.at(page).at(entry);
                QJsonObject definition = tool(name);
                definition.insert(u"description"_s, place(page, entry));
                entries.append(definition);
                if (!firstPlace.contains(name))
                    firstPlace.insert(name, place(page, entry));
            }
            QJsonObject result{{u"tools"_s, entries}};
            if (page + 1 < pages.size())
                result.insert(u"nextCursor"_s, u"p%1"_s.arg(page + 1));
            h.answer(u"tools/list"_s, result);
        }
        QVERIFY(reply.has_value());
        QVERIFY(!reply->error);
        QStringList names;
        for (const ToolDefinition &definition : std::as_const(reply->tools)) {
            names.append(definition.name);
            QCOMPARE(definition.description, firstPlace.value(definition.name));
        }
        QCOMPARE(names, kept);
        QStringList warnings;
        for (const QString &name : twice)
            warnings.append(u"the tool '%1' is listed twice; the first one is kept"_s.arg(name));
        QCOMPARE(reply->warnings, warnings);
    }

    void listToolsStopsOnARepeatedCursor()
    {
        Harness h;
        QVERIFY(h.openReady());
        std::optional<ToolListReply> reply;
        h.session->listTools([&](const ToolListReply &r) { reply = r; });
        h.answer(u"tools/list"_s, QJsonObject{{u"tools"_s, QJsonArray{tool(u"a"_s)}}, {u"nextCursor"_s, u"same"_s}});
        h.answer(u"tools/list"_s, QJsonObject{{u"tools"_s, QJsonArray{}}, {u"nextCursor"_s, u"same"_s}});
        QVERIFY(reply.has_value());
        QVERIFY(reply->error.has_value());
        QVERIFY2(reply->error->message.contains(u"never ends"_s), qPrintable(reply->error->message));
    }

    void listToolsStopsAtThePageLimit()
    {
        Harness h;
        QVERIFY(h.openReady());
        // A server whose every page has a next one, each with a new cursor.
        int pages = 0;
        QObject::connect(h.transport, &FakeTransport::messageSent, h.transport, [&](const QJsonObject &message) {
            if (message.value(u"method").toString() != u"tools/list")
                return;
            ++pages;
            const QJsonObject page{{u"tools"_s, QJsonArray{tool(u"t"_s + QString::number(pages))}},
                                   {u"nextCursor"_s, QString::number(pages + 1)}};
            QMetaObject::invokeMethod(h.transport, [&h, id = message.value(u"id"), page] {
                h.transport->inject(JsonRpc::makeResult(id, page));
            }, Qt::QueuedConnection);
        });
        std::optional<ToolListReply> reply;
        h.session->listTools([&](const ToolListReply &r) { reply = r; });
        QTRY_VERIFY_WITH_TIMEOUT(reply.has_value(), 20000);
        QCOMPARE(pages, 1000);
        QVERIFY(reply->error.has_value());
        QCOMPARE(reply->error->code, int(JsonRpc::InvalidReply));
        QVERIFY2(reply->error->message.contains(u"still gave a next cursor after 1000 pages, the most Tether reads"_s),
                 qPrintable(reply->error->message));
        QVERIFY2(!reply->error->message.contains(u"again"_s), qPrintable(reply->error->message));
    }

    void nullCursorEndsTheList()
    {
        Harness h;
        QVERIFY(h.openReady());
        std::optional<ToolListReply> reply;
        h.session->listTools([&](const ToolListReply &r) { reply = r; });
        h.answer(u"tools/list"_s, QJsonObject{{u"tools"_s, QJsonArray{tool(u"a"_s)}}, {u"nextCursor"_s, QJsonValue::Null}});
        QVERIFY(reply.has_value());
        QVERIFY(!reply->error);
        QCOMPARE(reply->tools.size(), 1);
    }

    void resultsOfTheWrongShapeAreProtocolErrors_data()
    {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QJsonValue>("result");
        QTest::addColumn<QString>("saying");

        const QJsonArray content{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, u"x"_s}}};
        QTest::newRow("tools not an array") << u"tools/list"_s << QJsonValue(QJsonObject{{u"tools"_s, u"not-a-list"_s}})
                                            << u"\"tools\" is a string, not an array"_s;
        QTest::newRow("no tools") << u"tools/list"_s << QJsonValue(QJsonObject{}) << u"\"tools\" is missing"_s;
        QTest::newRow("tools/list result an array") << u"tools/list"_s << QJsonValue(QJsonArray{})
                                                    << u"the result is an array, not an object"_s;
        QTest::newRow("cursor a number") << u"tools/list"_s
                                         << QJsonValue(QJsonObject{{u"tools"_s, QJsonArray{}}, {u"nextCursor"_s, 2}})
                                         << u"\"nextCursor\" is a number, not a string"_s;
        QTest::newRow("content not an array") << u"tools/call"_s << QJsonValue(QJsonObject{{u"content"_s, u"x"_s}})
                                              << u"\"content\" is a string, not an array"_s;
        QTest::newRow("no content") << u"tools/call"_s << QJsonValue(QJsonObject{{u"isError"_s, true}})
                                    << u"\"content\" is missing"_s;
        QTest::newRow("isError a string") << u"tools/call"_s
                                          << QJsonValue(QJsonObject{{u"content"_s, content}, {u"isError"_s, u"yes"_s}})
                                          << u"\"isError\" is a string, not a boolean"_s;
        QTest::newRow("structuredContent an array")
            << u"tools/call"_s << QJsonValue(QJsonObject{{u"content"_s, content}, {u"structuredContent"_s, QJsonArray{1}}})
            << u"\"structuredContent\" is an array, not an object"_s;
        QTest::newRow("tools/call result null") << u"tools/call"_s << QJsonValue(QJsonValue::Null)
                                                << u"the result is null, not an object"_s;
        QTest::newRow("resources an object") << u"resources/list"_s
                                             << QJsonValue(QJsonObject{{u"resources"_s, QJsonObject{}}})
                                             << u"\"resources\" is an object, not an array"_s;
        QTest::newRow("no resourceTemplates") << u"resources/templates/list"_s
                                              << QJsonValue(QJsonObject{{u"templates"_s, QJsonArray{}}})
                                              << u"\"resourceTemplates\" is missing"_s;
        QTest::newRow("resources cursor an object")
            << u"resources/list"_s
            << QJsonValue(QJsonObject{{u"resources"_s, QJsonArray{}}, {u"nextCursor"_s, QJsonObject{}}})
            << u"\"nextCursor\" is an object, not a string"_s;
        QTest::newRow("no contents") << u"resources/read"_s << QJsonValue(QJsonObject{{u"text"_s, u"x"_s}})
                                     << u"\"contents\" is missing"_s;
        QTest::newRow("contents entry a string") << u"resources/read"_s
                                                 << QJsonValue(QJsonObject{{u"contents"_s, QJsonArray{u"x"_s}}})
                                                 << u"contents[0] is a string, not an object"_s;
        QTest::newRow("contents entry without uri")
            << u"resources/read"_s << QJsonValue(QJsonObject{{u"contents"_s, QJsonArray{QJsonObject{{u"text"_s, u"x"_s}}}}})
            << u"contents[0]: \"uri\" is missing"_s;
        QTest::newRow("neither text nor blob")
            << u"resources/read"_s
            << QJsonValue(QJsonObject{{u"contents"_s, QJsonArray{QJsonObject{{u"uri"_s, u"a:b"_s}}}}})
            << u"contents[0] has neither \"text\" nor \"blob\""_s;
        QTest::newRow("both text and blob")
            << u"resources/read"_s
            << QJsonValue(QJsonObject{{u"contents"_s, QJsonArray{QJsonObject{
                                          {u"uri"_s, u"a:b"_s}, {u"text"_s, u"x"_s}, {u"blob"_s, u"eA=="_s}}}}})
            << u"contents[0] has both \"text\" and \"blob\""_s;
        QTest::newRow("text a number")
            << u"resources/read"_s
            << QJsonValue(QJsonObject{{u"contents"_s, QJsonArray{QJsonObject{{u"uri"_s, u"a:b"_s}, {u"text"_s, 3}}}}})
            << u"contents[0]: \"text\" is a number, not a string"_s;
        QTest::newRow("blob not base64")
            << u"resources/read"_s
            << QJsonValue(QJsonObject{{u"contents"_s, QJsonArray{QJsonObject{{u"uri"_s, u"a:b"_s}, {u"blob"_s, u"*!*"_s}}}}})
            << u"contents[0] has a \"blob\" that is not base64"_s;
        QTest::newRow("prompts a string") << u"prompts/list"_s << QJsonValue(QJsonObject{{u"prompts"_s, u"p"_s}})
                                          << u"\"prompts\" is a string, not an array"_s;
        QTest::newRow("no messages") << u"prompts/get"_s << QJsonValue(QJsonObject{{u"description"_s, u"d"_s}})
                                     << u"\"messages\" is missing"_s;
        QTest::newRow("description a number")
            << u"prompts/get"_s << QJsonValue(QJsonObject{{u"messages"_s, QJsonArray{}}, {u"description"_s, 1}})
            << u"\"description\" is a number, not a string"_s;
        QTest::newRow("message without role")
            << u"prompts/get"_s
            << QJsonValue(QJsonObject{{u"messages"_s, QJsonArray{QJsonObject{{u"content"_s, QJsonObject{}}}}}})
            << u"messages[0]: \"role\" is missing"_s;
        QTest::newRow("message content a string")
            << u"prompts/get"_s
            << QJsonValue(QJsonObject{{u"messages"_s, QJsonArray{QJsonObject{{u"role"_s, u"user"_s}, {u"content"_s, u"hi"_s}}}}})
            << u"messages[0]: \"content\" is a string, not an object"_s;
        QTest::newRow("message a number") << u"prompts/get"_s
                                          << QJsonValue(QJsonObject{{u"messages"_s, QJsonArray{7}}})
                                          << u"messages[0] is a number, not an object"_s;
    }

    void resultsOfTheWrongShapeAreProtocolErrors()
    {
        QFETCH(QString, method);
        QFETCH(QJsonValue, result);
        QFETCH(QString, saying);
        Harness h;
        QVERIFY(h.openReady());
        std::optional<JsonRpc::Error> error;
        bool answered = false;
        const auto onReply = [&](const auto &r) {
            answered = true;
            error = r.error;
        };
        if (method == u"tools/list")
            h.session->listTools(onReply);
        else if (method == u"tools/call")
            h.session->callTool(u"echo"_s, {}, onReply);
        else if (method.startsWith(u"resources/") && method.endsWith(u"/list"))
            h.session->listResources(onReply);
        else if (method == u"resources/read")
            h.session->readResource(u"a:b"_s, onReply);
        else if (method == u"prompts/list")
            h.session->listPrompts(onReply);
        else
            h.session->getPrompt(u"p"_s, {}, onReply);
        if (method == u"resources/templates/list")
            h.answer(u"resources/list"_s, QJsonObject{{u"resources"_s, QJsonArray{}}});
        h.answer(method, result);
        QVERIFY(answered);
        QVERIFY(error.has_value());
        QCOMPARE(error->code, int(JsonRpc::InvalidReply));
        QVERIFY2(error->message.contains(u"server 'fake' answered '%1' with a result of the wrong shape (%2): a protocol "
                                         "error of the server"_s.arg(method, saying)),
                 qPrintable(error->message));
        QVERIFY(h.session->isReady()); // one bad result fails its request, not the connection
    }

    void resourcesAndTemplatesFollowCursorsAndKeepTheFirstOfAUri()
    {
        Harness h;
        QVERIFY(h.openReady());
        std::optional<ResourceListReply> reply;
        h.session->listResources([&](const ResourceListReply &r) { reply = r; });
        h.answer(u"resources/list"_s, QJsonObject{{u"resources"_s, QJsonArray{resource(u"a:1"_s), resource(u"a:2"_s)}},
                                                  {u"nextCursor"_s, u"r2"_s}});
        QCOMPARE(h.transport->lastSent(u"resources/list"_s).value(u"params").toObject().value(u"cursor").toString(), u"r2"_s);
        h.answer(u"resources/list"_s, QJsonObject{{u"resources"_s, QJsonArray{resource(u"a:1"_s), QJsonObject{{u"name"_s, u"no uri"_s}},
                                                                             resource(u"a:3"_s)}}});
        QCOMPARE(h.transport->countSent(u"resources/templates/list"_s), 1);
        const QJsonObject textTemplate{{u"uriTemplate"_s, u"a:text/{id}"_s}, {u"name"_s, u"text"_s}};
        h.answer(u"resources/templates/list"_s, QJsonObject{{u"resourceTemplates"_s, QJsonArray{textTemplate}},
                                                            {u"nextCursor"_s, u"t2"_s}});
        QVERIFY(!reply);
        h.answer(u"resources/templates/list"_s,
                 QJsonObject{{u"resourceTemplates"_s, QJsonArray{QJsonObject{{u"uriTemplate"_s, u"a:blob/{id}"_s},
                                                                             {u"name"_s, u"blob"_s},
                                                                             {u"mimeType"_s, u"image/png"_s}}}}});
        QVERIFY(reply);
        QVERIFY(!reply->error);
        QStringList uris;
        for (const ResourceDefinition &definition : std::as_const(reply->resources))
            uris.append(definition.uri);
        QCOMPARE(uris, (QStringList{u"a:1"_s, u"a:2"_s, u"a:3"_s}));
        QCOMPARE(reply->resources.at(1).name, u"a:2"_s);
        QCOMPARE(reply->templates.size(), 2);
        QCOMPARE(reply->templates.at(0).uriTemplate, u"a:text/{id}"_s);
        QCOMPARE(reply->templates.at(1).mimeType, u"image/png"_s);
        QCOMPARE(reply->warnings, (QStringList{u"the resource 'a:1' is listed twice; the first one is kept"_s,
                                               u"a resource entry has no \"uri\""_s}));
    }

    void entriesOfTheWrongShapeAreSkippedWithAWarning_data()
    {
        QTest::addColumn<QJsonValue>("entry");
        QTest::addColumn<QString>("warning");
        QTest::newRow("not an object") << QJsonValue(u"p"_s) << u"a prompt entry is a string, not an object"_s;
        QTest::newRow("no name") << QJsonValue(QJsonObject{{u"description"_s, u"d"_s}})
                                 << u"a prompt entry has no \"name\""_s;
        QTest::newRow("name a number") << QJsonValue(QJsonObject{{u"name"_s, 4}})
                                       << u"a prompt entry has no \"name\" (\"name\" is a number, not a string)"_s;
        QTest::newRow("description an array")
            << QJsonValue(QJsonObject{{u"name"_s, u"p"_s}, {u"description"_s, QJsonArray{}}})
            << u"a prompt entry 'p' is unusable: \"description\" is an array, not a string"_s;
        QTest::newRow("arguments an object")
            << QJsonValue(QJsonObject{{u"name"_s, u"p"_s}, {u"arguments"_s, QJsonObject{}}})
            << u"the prompt 'p' is unusable: \"arguments\" is an object, not an array"_s;
        QTest::newRow("an argument without a name")
            << QJsonValue(QJsonObject{{u"name"_s, u"p"_s}, {u"arguments"_s, QJsonArray{QJsonObject{{u"required"_s, true}}}}})
            << u"the prompt 'p' has an unusable argument: \"name\" is missing"_s;
        QTest::newRow("required a string")
            << QJsonValue(QJsonObject{{u"name"_s, u"p"_s},
                                      {u"arguments"_s, QJsonArray{QJsonObject{{u"name"_s, u"a"_s}, {u"required"_s, u"yes"_s}}}}})
            << u"the prompt 'p' has an unusable argument: \"required\" is a string, not a boolean"_s;
    }

    void entriesOfTheWrongShapeAreSkippedWithAWarning()
    {
        QFETCH(QJsonValue, entry);
        QFETCH(QString, warning);
        Harness h;
        QVERIFY(h.openReady());
        std::optional<PromptListReply> reply;
        h.session->listPrompts([&](const PromptListReply &r) { reply = r; });
        const QJsonObject good{{u"name"_s, u"good"_s},
                               {u"arguments"_s, QJsonArray{QJsonObject{{u"name"_s, u"city"_s}, {u"required"_s, true}},
                                                           QJsonObject{{u"name"_s, u"state"_s}}}}};
        h.answer(u"prompts/list"_s, QJsonObject{{u"prompts"_s, QJsonArray{entry, good}}});
        QVERIFY(reply);
        QVERIFY(!reply->error);
        QCOMPARE(reply->warnings, QStringList{warning});
        QCOMPARE(reply->prompts.size(), 1);
        QCOMPARE(reply->prompts.first().arguments,
                 (QList<PromptArgument>{{u"city"_s, {}, {}, true}, {u"state"_s, {}, {}, false}}));
    }

    void promptListStopsOnARepeatedCursor()
    {
        Harness h;
        QVERIFY(h.openReady());
        std::optional<PromptListReply> reply;
        h.session->listPrompts([&](const PromptListReply &r) { reply = r; });
        h.answer(u"prompts/list"_s, QJsonObject{{u"prompts"_s, QJsonArray{}}, {u"nextCursor"_s, u"again"_s}});
        h.answer(u"prompts/list"_s, QJsonObject{{u"prompts"_s, QJsonArray{}}, {u"nextCursor"_s, u"again"_s}});
        QVERIFY(reply);
        QVERIFY(reply->error);
        QCOMPARE(reply->error->code, int(JsonRpc::InvalidReply));
        QVERIFY2(reply->error->message.startsWith(u"prompts/list failed: server 'fake' returned the cursor 'again' again"_s),
                 qPrintable(reply->error->message));
    }

    void readsTextAndBlobContents()
    {
        Harness h;
        QVERIFY(h.openReady());
        std::optional<ResourceReadReply> reply;
        h.session->readResource(u"a:1"_s, [&](const ResourceReadReply &r) { reply = r; });
        QCOMPARE(h.transport->lastSent(u"resources/read"_s).value(u"params").toObject().value(u"uri").toString(), u"a:1"_s);
        h.answer(u"resources/read"_s,
                 QJsonObject{{u"contents"_s, QJsonArray{QJsonObject{{u"uri"_s, u"a:1"_s}, {u"text"_s, u"hello"_s}},
                                                        QJsonObject{{u"uri"_s, u"a:1#png"_s}, {u"mimeType"_s, u"image/png"_s},
                                                                    {u"blob"_s, u"iVBORw=="_s}}}}});
        QVERIFY(reply);
        QVERIFY(!reply->error);
        QCOMPARE(reply->contents.size(), 2);
        QCOMPARE(reply->contents.at(0).text, std::optional<QString>(u"hello"_s));
        QVERIFY(!reply->contents.at(0).isImage());
        QCOMPARE(reply->contents.at(1).blob, QByteArray("\x89PNG"));
        QVERIFY(reply->contents.at(1).isImage());
    }

    void getsAPromptWithItsArguments()
    {
        Harness h;
        QVERIFY(h.openReady());
        std::optional<PromptReply> reply;
        h.session->getPrompt(u"weather"_s, {{u"city"_s, u"Paris"_s}}, [&](const PromptReply &r) { reply = r; });
        const QJsonObject params = h.transport->lastSent(u"prompts/get"_s).value(u"params").toObject();
        QCOMPARE(params.value(u"name").toString(), u"weather"_s);
        QCOMPARE(params.value(u"arguments").toObject(), (QJsonObject{{u"city"_s, u"Paris"_s}}));
        const QJsonObject text{{u"type"_s, u"text"_s}, {u"text"_s, u"What's the weather in Paris?"_s}};
        h.answer(u"prompts/get"_s, QJsonObject{{u"description"_s, u"Weather"_s},
                                               {u"messages"_s, QJsonArray{QJsonObject{{u"role"_s, u"user"_s}, {u"content"_s, text}}}}});
        QVERIFY(reply);
        QVERIFY(!reply->error);
        QCOMPARE(reply->result.description, u"Weather"_s);
        QCOMPARE(renderPromptMessages(reply->result.messages), u"user: What's the weather in Paris?"_s);
    }

    // A server that does not advertise resources or prompts is never asked for them.
    void asksOnlyForWhatTheServerOffers()
    {
        Harness h;
        h.session->open();
        QTRY_COMPARE(h.transport->countSent(u"initialize"_s), 1);
        QJsonObject result = Harness::initializeResult();
        result.insert(u"capabilities"_s, QJsonObject{{u"tools"_s, QJsonObject{}}});
        h.answer(u"initialize"_s, result);
        QVERIFY(h.session->isReady());
        QVERIFY(!h.session->offers(u"resources"));
        std::optional<ResourceListReply> resources;
        std::optional<PromptListReply> prompts;
        std::optional<ResourceReadReply> read;
        std::optional<PromptReply> prompt;
        h.session->listResources([&](const ResourceListReply &r) { resources = r; });
        h.session->listPrompts([&](const PromptListReply &r) { prompts = r; });
        h.session->readResource(u"a:1"_s, [&](const ResourceReadReply &r) { read = r; });
        h.session->getPrompt(u"p"_s, {}, [&](const PromptReply &r) { prompt = r; });
        QVERIFY(!resources); // answered later, never from inside the call
        QTRY_VERIFY(resources && prompts && read && prompt);
        QVERIFY(!resources->error && resources->resources.isEmpty() && resources->templates.isEmpty());
        QVERIFY(!prompts->error && prompts->prompts.isEmpty());
        QCOMPARE(read->error->code, int(JsonRpc::MethodNotFound));
        QCOMPARE(read->error->message,
                 u"server 'fake' offers no resources: its initialize result does not advertise the \"resources\" capability"_s);
        QVERIFY(prompt->error->message.contains(u"offers no prompts"_s));
        for (const QString &method : {u"resources/list"_s, u"resources/templates/list"_s, u"resources/read"_s,
                                      u"prompts/list"_s, u"prompts/get"_s})
            QCOMPARE(h.transport->countSent(method), 0);
    }

    void templatesUnknownToTheServerAreNone()
    {
        Harness h;
        QVERIFY(h.openReady());
        std::optional<ResourceListReply> reply;
        h.session->listResources([&](const ResourceListReply &r) { reply = r; });
        h.answer(u"resources/list"_s, QJsonObject{{u"resources"_s, QJsonArray{resource(u"a:1"_s)}}});
        h.transport->inject(JsonRpc::makeError(h.idOf(u"resources/templates/list"_s), JsonRpc::MethodNotFound, u"no"_s));
        QVERIFY(reply);
        QVERIFY(!reply->error);
        QCOMPARE(reply->resources.size(), 1);
        QVERIFY(reply->templates.isEmpty());
    }

    void listChangedOfResourcesAndPromptsIsSignalledOnceReady()
    {
        Harness h;
        QSignalSpy resources(h.session.get(), &McpClientSession::resourcesListChanged);
        QSignalSpy prompts(h.session.get(), &McpClientSession::promptsListChanged);
        h.session->open();
        QTRY_COMPARE(h.transport->countSent(u"initialize"_s), 1);
        h.transport->inject(JsonRpc::makeNotification(u"notifications/resources/list_changed"_s));
        h.answer(u"initialize"_s, Harness::initializeResult());
        QCOMPARE(resources.size(), 0); // the first listing covers it
        h.transport->inject(JsonRpc::makeNotification(u"notifications/resources/list_changed"_s));
        h.transport->inject(JsonRpc::makeNotification(u"notifications/prompts/list_changed"_s));
        QCOMPARE(resources.size(), 1);
        QCOMPARE(prompts.size(), 1);
    }

    void initializeResultOfTheWrongShapeFails_data()
    {
        QTest::addColumn<QJsonValue>("result");
        QTest::addColumn<QString>("saying");

        const QJsonObject good = Harness::initializeResult();
        QJsonObject noVersion = good;
        noVersion.remove(u"protocolVersion");
        QJsonObject numberVersion = good;
        numberVersion.insert(u"protocolVersion", 20251125);
        QJsonObject noCapabilities = good;
        noCapabilities.remove(u"capabilities");
        QJsonObject infoString = good;
        infoString.insert(u"serverInfo", u"fake-server"_s);
        QTest::newRow("no protocolVersion") << QJsonValue(noVersion) << u"\"protocolVersion\" is missing"_s;
        QTest::newRow("protocolVersion a number") << QJsonValue(numberVersion)
                                                  << u"\"protocolVersion\" is a number, not a string"_s;
        QTest::newRow("no capabilities") << QJsonValue(noCapabilities) << u"\"capabilities\" is missing"_s;
        QTest::newRow("serverInfo a string") << QJsonValue(infoString) << u"\"serverInfo\" is a string, not an object"_s;
        QTest::newRow("not an object") << QJsonValue(u"2025-11-25"_s) << u"the result is a string, not an object"_s;
    }

    void initializeResultOfTheWrongShapeFails()
    {
        QFETCH(QJsonValue, result);
        QFETCH(QString, saying);
        Harness h;
        QSignalSpy failed(h.session.get(), &McpClientSession::failed);
        h.session->open();
        QTRY_COMPARE(h.transport->countSent(u"initialize"_s), 1);
        h.answer(u"initialize"_s, result);
        QCOMPARE(failed.size(), 1);
        QVERIFY2(failed.first().first().toString().contains(
                     u"server 'fake' answered 'initialize' with a result of the wrong shape (%1)"_s.arg(saying)),
                 qPrintable(failed.first().first().toString()));
        QVERIFY(!h.session->isReady());
        QCOMPARE(h.transport->countSent(u"notifications/initialized"_s), 0);
    }

    void callToolReturnsContentAndIsError()
    {
        Harness h;
        QVERIFY(h.openReady());
        std::optional<ToolCallReply> reply;
        h.session->callTool(u"fail"_s, {{u"message"_s, u"nope"_s}}, [&](const ToolCallReply &r) { reply = r; });
        const QJsonObject params = h.transport->lastSent(u"tools/call"_s).value(u"params").toObject();
        QCOMPARE(params.value(u"name").toString(), u"fail"_s);
        QCOMPARE(params.value(u"arguments").toObject().value(u"message").toString(), u"nope"_s);
        QVERIFY(!params.contains(u"_meta"));
        h.answer(u"tools/call"_s, textResult(u"nope"_s, true));
        QVERIFY(reply.has_value());
        QVERIFY(!reply->error);
        QVERIFY(reply->result.isError);
        QCOMPARE(renderContent(reply->result.content), u"nope"_s);
    }

    void aRelayedCallGoesAndComesBackAsText()
    {
        Harness h;
        QVERIFY(h.openReady());
        std::optional<ToolCallReply> reply;
        // The host's arguments go out as it wrote them, spacing and key order included.
        const QByteArray arguments = R"({ "z":1,"a" : [true, "\u00e9"] })";
        h.session->callTool(u"echo"_s, ToolCallInput::relayed(arguments), [&](const ToolCallReply &r) { reply = r; });
        const QByteArray params = ",\"params\":{\"arguments\":" + arguments + ",\"name\":\"echo\"}";
        QVERIFY2(h.transport->sentJson.last().contains(params), h.transport->sentJson.last().constData());
        const QByteArray id = QByteArray::number(h.idOf(u"tools/call"_s).toInteger());

        // The result comes back as the server wrote it, unparsed: content is not read.
        const QByteArray result = R"({"content" : [{"type":"text","text":"caf\u00e9"}], "isError":false})";
        h.transport->injectLine("{\"result\":" + result + ",\"id\":" + id + ",\"jsonrpc\":\"2.0\"}");
        QVERIFY(reply.has_value());
        QVERIFY(!reply->error);
        QCOMPARE(reply->result.json, result);
        QVERIFY(!reply->result.isError);
        QVERIFY(reply->result.content.isEmpty());
    }

    void aRelayedCallsOddReplyIsJudgedAsEver_data()
    {
        QTest::addColumn<QByteArray>("line");   // ID stands for the request's id
        QTest::addColumn<QString>("error");      // the reply's error, empty: a result
        QTest::addColumn<bool>("isError");
        QTest::addColumn<QByteArray>("json");
        QTest::newRow("an error result") << QByteArray(R"({"jsonrpc":"2.0","id":ID,"result":{"content":[],"isError":true}})")
                                         << QString() << true << QByteArray(R"({"content":[],"isError":true})");
        QTest::newRow("no content") << QByteArray(R"({"jsonrpc":"2.0","id":ID,"result":{"isError":false}})")
                                    << u"answered 'tools/call' with a result of the wrong shape"_s << false << QByteArray();
        QTest::newRow("isError not a boolean") << QByteArray(R"({"jsonrpc":"2.0","id":ID,"result":{"content":[],"isError":"yes"}})")
                                               << u"answered 'tools/call' with a result of the wrong shape"_s << false << QByteArray();
        QTest::newRow("an error reply") << QByteArray(R"({"jsonrpc":"2.0","id":ID,"error":{"code":-32602,"message":"no such tool"}})")
                                        << u"no such tool"_s << false << QByteArray();
        QTest::newRow("a member more") << QByteArray(R"({"jsonrpc":"2.0","id":ID,"result":{"content":[]},"extra":1})")
                                       << QString() << false << QByteArray(R"({"content":[]})");
    }

    void aRelayedCallsOddReplyIsJudgedAsEver()
    {
        QFETCH(QByteArray, line);
        QFETCH(QString, error);
        QFETCH(bool, isError);
        QFETCH(QByteArray, json);
        Harness h;
        QVERIFY(h.openReady());
        std::optional<ToolCallReply> reply;
        h.session->callTool(u"echo"_s, ToolCallInput::relayed("{}"), [&](const ToolCallReply &r) { reply = r; });
        h.transport->injectLine(line.replace("ID", QByteArray::number(h.idOf(u"tools/call"_s).toInteger())));
        QVERIFY(reply.has_value());
        QCOMPARE(reply->error.has_value(), !error.isEmpty());
        if (reply->error)
            QVERIFY2(reply->error->message.contains(error), qPrintable(reply->error->message));
        QCOMPARE(reply->result.isError, isError);
        QCOMPARE(reply->result.json, json);
    }

    void aRelayedErrorResultOfAServerWithSecretsIsScrubbed()
    {
        const QString secret = u"hunter2-secret"_s;
        Harness h(std::chrono::milliseconds(60000), SecretScrubber({secret}));
        QVERIFY(h.openReady());
        std::optional<ToolCallReply> reply;
        h.session->callTool(u"echo"_s, ToolCallInput::relayed("{}"), [&](const ToolCallReply &r) { reply = r; });
        const QByteArray id = QByteArray::number(h.idOf(u"tools/call"_s).toInteger());
        h.transport->injectLine("{\"jsonrpc\":\"2.0\",\"id\":" + id
                                + ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"denied for hunter2-secret\"}],"
                                  "\"isError\":true}}");
        QVERIFY(reply.has_value());
        QVERIFY(reply->result.isError);
        QVERIFY(reply->result.json.isEmpty()); // never the server's text: it holds the secret
        QVERIFY(!renderContent(reply->result.content).contains(secret));
    }

    void progressReachesTheCall()
    {
        Harness h;
        QVERIFY(h.openReady());
        QList<ProgressUpdate> updates;
        QSignalSpy notified(h.session.get(), &McpClientSession::progressNotified);
        const qint64 id = h.session->callTool(u"sleep"_s, {}, [](const ToolCallReply &) {},
                                              [&](const ProgressUpdate &u) { updates.append(u); });
        const QJsonValue token = h.transport->lastSent(u"tools/call"_s)
                                     .value(u"params").toObject().value(u"_meta").toObject().value(u"progressToken");
        QCOMPARE(token.toInteger(), id);
        h.transport->inject(JsonRpc::makeNotification(u"notifications/progress"_s,
            {{u"progressToken"_s, token}, {u"progress"_s, 50}, {u"total"_s, 100}, {u"message"_s, u"half"_s}}));
        QCOMPARE(updates.size(), 1);
        QCOMPARE(updates.at(0).progress, 50.0);
        QCOMPARE(updates.at(0).total, std::optional<double>(100.0));
        QCOMPARE(updates.at(0).message, u"half"_s);
        QCOMPARE(notified.size(), 1);
    }

    void deliversLogMessages()
    {
        Harness h;
        QVERIFY(h.openReady());
        QSignalSpy logged(h.session.get(), &McpClientSession::logMessage);
        h.transport->inject(JsonRpc::makeNotification(u"notifications/message"_s,
            {{u"level"_s, u"warning"_s}, {u"logger"_s, u"db"_s}, {u"data"_s, u"slow query"_s}}));
        QCOMPARE(logged.size(), 1);
        QCOMPARE(logged.at(0).at(0).toString(), u"warning"_s);
        QCOMPARE(logged.at(0).at(1).toString(), u"db"_s);
        QCOMPARE(logged.at(0).at(2).value<QJsonValue>().toString(), u"slow query"_s);
    }

    // What a server says may quote the token it was sent or its own environment: error
    // messages and their data, error results, progress and log notifications, and skipped
    // input lose the server's secrets before anyone sees them. A tool's result is its data.
    void scrubsTheServersSecretsFromWhatItSays()
    {
        const QString secret = u"SECRET-TOKEN-123"_s;
        Harness h(std::chrono::milliseconds(60000), SecretScrubber({secret}));
        QVERIFY(h.openReady());
        const auto warnings = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(8);
        spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", warnings));

        std::optional<RpcReply> refused;
        h.session->request(u"resources/list"_s, {}, [&](const RpcReply &r) { refused = r; });
        h.transport->inject({{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, h.idOf(u"resources/list"_s)},
                             {u"error"_s, QJsonObject{{u"code"_s, -32600},
                                                      {u"message"_s, QString(u"bad key X-Api-Key: "_s + secret)},
                                                      {u"data"_s, QJsonObject{{u"headers"_s, QJsonArray{secret}}}}}}});
        QVERIFY(refused && refused->error);
        QCOMPARE(refused->error->message, u"bad key X-Api-Key: …"_s);
        QCOMPARE(refused->error->data, QJsonValue(QJsonObject{{u"headers"_s, QJsonArray{u"…"_s}}}));

        QList<ProgressUpdate> updates;
        std::optional<ToolCallReply> failedCall;
        h.session->callTool(u"fail"_s, {}, [&](const ToolCallReply &r) { failedCall = r; },
                            [&](const ProgressUpdate &u) { updates.append(u); });
        const QJsonValue token = h.idOf(u"tools/call"_s);
        h.transport->inject(JsonRpc::makeNotification(u"notifications/progress"_s,
            {{u"progressToken"_s, token}, {u"progress"_s, 1}, {u"message"_s, QString(u"using "_s + secret)}}));
        h.answer(u"tools/call"_s, textResult(u"denied for "_s + secret, true));
        QCOMPARE(updates.size(), 1);
        QCOMPARE(updates.at(0).message, u"using …"_s);
        QVERIFY(failedCall && failedCall->result.isError);
        QCOMPARE(renderContent(failedCall->result.content), u"denied for …"_s);
        QVERIFY(!QJsonDocument(failedCall->result.raw).toJson().contains(secret.toUtf8()));

        std::optional<ToolCallReply> call;
        h.session->callTool(u"env"_s, {}, [&](const ToolCallReply &r) { call = r; });
        h.answer(u"tools/call"_s, textResult(u"TOKEN="_s + secret));
        QVERIFY(call && !call->result.isError);
        QCOMPARE(renderContent(call->result.content), QString(u"TOKEN="_s + secret));

        QSignalSpy logged(h.session.get(), &McpClientSession::logMessage);
        h.transport->inject(JsonRpc::makeNotification(u"notifications/message"_s,
            {{u"level"_s, u"info"_s}, {u"logger"_s, secret}, {u"data"_s, QJsonObject{{u"token"_s, secret}}}}));
        QCOMPARE(logged.size(), 1);
        QCOMPARE(logged.at(0).at(1).toString(), u"…"_s);
        QCOMPARE(logged.at(0).at(2).value<QJsonValue>(), QJsonValue(QJsonObject{{u"token"_s, u"…"_s}}));

        h.transport->inject({{u"token"_s, secret}}); // not JSON-RPC: skipped, with an excerpt
        QCOMPARE(h.session->stats().skippedInput, 1);
        const std::vector<std::string> lines = warnings->last_formatted();
        QVERIFY(!lines.empty());
        for (const std::string &line : lines)
            QVERIFY2(line.find(secret.toStdString()) == std::string::npos, line.c_str());
    }
};

QTEST_GUILESS_MAIN(TestMcpClientSession)
#include "tst_mcpclientsession.moc"
