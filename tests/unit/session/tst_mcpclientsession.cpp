#include "session/mcpclientsession.h"
#include "support/clientrequests.h"
#include "support/fakeclientside.h"
#include "support/faketransport.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>

#include <csignal>
#include <QTest>

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using Testing::FakeClient;
using Testing::FakeTransport;
using Testing::formParams;
using Testing::samplingParams;
using Testing::taskMeta;
using Testing::urlParams;

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
    // A session with its own options (the client's features, its client side, its roots).
    explicit Harness(SessionOptions options, const SecretScrubber &secrets = SecretScrubber())
    {
        auto owned = std::make_unique<FakeTransport>(secrets);
        transport = owned.get();
        session = std::make_unique<McpClientSession>(std::move(owned), std::move(options));
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

// A session that declares the client's features (sampling, elicitation, roots).
SessionOptions featureOptions(const std::shared_ptr<ClientSide> &clientSide = {}, const QJsonArray &roots = {})
{
    SessionOptions options;
    options.serverName = u"fake"_s;
    options.clientCapabilities = clientFeatureCapabilities();
    options.clientSide = clientSide;
    options.roots = roots;
    return options;
}

QJsonObject withMeta(QJsonObject params, const QJsonObject &meta)
{
    params.insert(u"_meta"_s, meta);
    return params;
}

// The last response the session sent for the server's request `id`.
std::optional<QJsonObject> responseTo(const FakeTransport &transport, const QJsonValue &id)
{
    for (auto it = transport.sent.crbegin(); it != transport.sent.crend(); ++it) {
        if (!it->contains(u"method") && it->value(u"id") == id)
            return *it;
    }
    return std::nullopt;
}

int responsesTo(const FakeTransport &transport, const QJsonValue &id)
{
    return int(std::count_if(transport.sent.cbegin(), transport.sent.cend(), [&](const QJsonObject &m) {
        return !m.contains(u"method") && m.value(u"id") == id;
    }));
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

    // A server that is gone (lost) fails the session and its requests at once, with its exit;
    // the session ends only when the transport has closed.
    void aLostServerFailsTheSessionBeforeTheTransportCloses()
    {
        Harness h;
        h.transport->closeOnRequest = false;
        QSignalSpy ready(h.session.get(), &McpClientSession::ready);
        QSignalSpy failed(h.session.get(), &McpClientSession::failed);
        QSignalSpy closed(h.session.get(), &McpClientSession::closed);
        h.session->open();
        QTRY_COMPARE(h.transport->countSent(u"initialize"_s), 1);
        h.answer(u"initialize"_s, Harness::initializeResult());
        QCOMPARE(ready.size(), 1);
        std::optional<ToolListReply> listed;
        h.session->listTools([&](const ToolListReply &reply) { listed = reply; });

        TransportClosure lost;
        lost.exitSignal = SIGKILL;
        lost.stderrTail = QStringList{u"last words"_s};
        emit h.transport->lost(lost);
        QCOMPARE(failed.size(), 1);
        const QString reason = failed.at(0).at(0).toString();
        QVERIFY2(reason.startsWith(u"connection closed: process killed by SIGKILL"_s) && reason.contains(u"last words"_s),
                 qPrintable(reason));
        QCOMPARE(h.session->transportClosure()->exitSignal, std::optional<int>(SIGKILL));
        QVERIFY(listed && listed->error);
        QCOMPARE(listed->error->code, int(JsonRpc::ConnectionClosed));
        QVERIFY(h.transport->closeRequested);
        QCOMPARE(closed.size(), 0);
        QCOMPARE(h.session->state(), McpClientSession::State::Closing);

        TransportClosure gone = lost;
        gone.requested = true;
        h.transport->finishClose(gone);
        QCOMPARE(closed.size(), 1);
        QCOMPARE(failed.size(), 1);
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

    // A server of prompts alone (no "tools" capability) may not know tools/list at all.
    void aServerWithoutToolsIsNotAskedForThem()
    {
        Harness h;
        h.session->open();
        QTRY_COMPARE(h.transport->countSent(u"initialize"_s), 1);
        QJsonObject result = Harness::initializeResult();
        result.insert(u"capabilities"_s, QJsonObject{{u"prompts"_s, QJsonObject{}}});
        h.answer(u"initialize"_s, result);
        QVERIFY(h.session->isReady());
        std::optional<ToolListReply> tools;
        h.session->listTools([&](const ToolListReply &r) { tools = r; });
        QVERIFY(!tools);
        QTRY_VERIFY(tools);
        QVERIFY(!tools->error);
        QVERIFY(tools->tools.isEmpty());
        QCOMPARE(h.transport->countSent(u"tools/list"_s), 0);
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

    void aCallCarriesItsCallersMetaWithTethersProgressToken()
    {
        Harness h;
        QVERIFY(h.openReady());
        ToolCallInput input(QJsonObject{{u"message"_s, u"hi"_s}});
        input.meta = {{u"traceparent"_s, u"00-abc-def-01"_s}};
        const qint64 id = h.session->callTool(u"echo"_s, input, [](const ToolCallReply &) {}, [](const ProgressUpdate &) {});
        const QJsonObject params = h.transport->lastSent(u"tools/call"_s).value(u"params").toObject();
        QCOMPARE(params.value(u"_meta").toObject(),
                 (QJsonObject{{u"traceparent"_s, u"00-abc-def-01"_s}, {u"progressToken"_s, id}}));
        QCOMPARE(params.value(u"arguments").toObject(), (QJsonObject{{u"message"_s, u"hi"_s}}));
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

    // --- The server's requests (sampling, elicitation, roots) and who answers them ---

    void aServerRequestGoesToTheClientWhoseRequestRuns_data()
    {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QJsonObject>("params");
        QTest::addColumn<bool>("callTool"); // the client's request is callTool with ToolCallInput::origin
        for (const bool viaCall : {false, true}) {
            const char *how = viaCall ? "during callTool" : "during request";
            QTest::addRow("sampling %s", how) << u"sampling/createMessage"_s << samplingParams() << viaCall;
            QTest::addRow("form elicitation %s", how) << u"elicitation/create"_s << formParams() << viaCall;
            QTest::addRow("url elicitation %s", how) << u"elicitation/create"_s << urlParams(u"e-1"_s) << viaCall;
        }
    }

    void aServerRequestGoesToTheClientWhoseRequestRuns()
    {
        QFETCH(QString, method);
        QFETCH(QJsonObject, params);
        QFETCH(bool, callTool);
        const auto shared = std::make_shared<FakeClient>(u"shared"_s);
        const auto client = std::make_shared<FakeClient>(u"Claude Code 2.1"_s);
        Harness h(featureOptions(shared));
        QVERIFY(h.openReady());
        if (callTool) {
            ToolCallInput input;
            input.origin = client;
            h.session->callTool(u"ask"_s, input, [](const ToolCallReply &) {});
        } else {
            h.session->request(u"prompts/get"_s, {{u"name"_s, u"p"_s}}, [](const RpcReply &) {}, {}, {}, client);
        }
        h.transport->inject(JsonRpc::makeRequest(u"srv-1"_s, method, params));
        QCOMPARE(client->requests.size(), 1);
        QVERIFY(shared->requests.isEmpty());
        const ServerRequest &asked = client->requests.first();
        QCOMPARE(asked.serverName, u"fake"_s);
        QCOMPARE(asked.method, method);
        QCOMPARE(asked.params, params);
        QVERIFY(asked.undecided.isEmpty());
        QCOMPARE(h.session->waitingServerRequestCount(), 1);
        QVERIFY(!responseTo(*h.transport, u"srv-1"_s));

        // The client's answer goes back under the server's id.
        const QJsonObject answer{{u"answered"_s, true}};
        client->replies.first()(RpcReply{answer, std::nullopt});
        const auto response = responseTo(*h.transport, u"srv-1"_s);
        QVERIFY(response);
        QCOMPARE(response->value(u"result").toObject(), answer);
        QCOMPARE(h.session->waitingServerRequestCount(), 0);
        // Exactly once.
        client->replies.first()(RpcReply{answer, std::nullopt});
        QCOMPARE(responsesTo(*h.transport, u"srv-1"_s), 1);
    }

    void aClientsRefusalGoesBackWithItsCodeAndData()
    {
        const auto client = std::make_shared<FakeClient>(u"Cursor 1.0"_s);
        Harness h(featureOptions());
        QVERIFY(h.openReady());
        h.session->request(u"tools/call"_s, {{u"name"_s, u"t"_s}}, [](const RpcReply &) {}, {}, {}, client);
        h.transport->inject(JsonRpc::makeRequest(3, u"sampling/createMessage"_s, samplingParams()));
        QCOMPARE(client->requests.size(), 1);
        RpcReply refusal = RpcReply::failure(-1, u"User rejected sampling request"_s);
        refusal.error->data = QJsonObject{{u"reason"_s, u"declined"_s}};
        client->replies.first()(refusal);
        const auto response = responseTo(*h.transport, 3);
        QVERIFY(response);
        const QJsonObject error = response->value(u"error").toObject();
        QCOMPARE(error.value(u"code").toInt(), -1);
        QCOMPARE(error.value(u"message").toString(), u"User rejected sampling request"_s);
        QCOMPARE(error.value(u"data").toObject(), (QJsonObject{{u"reason"_s, u"declined"_s}}));
    }

    // A client may answer from inside the call (a host that did not declare the feature, say).
    void anAnswerFromInsideTheCallLeavesNothingWaiting()
    {
        const auto client = std::make_shared<FakeClient>(u"Claude Code 2.1"_s);
        client->answerAtOnce = RpcReply::failure(JsonRpc::MethodNotFound, u"not declared"_s);
        Harness h(featureOptions());
        QVERIFY(h.openReady());
        h.session->request(u"tools/call"_s, {{u"name"_s, u"t"_s}}, [](const RpcReply &) {}, {}, {}, client);
        h.transport->inject(JsonRpc::makeRequest(3, u"sampling/createMessage"_s, samplingParams()));
        const auto response = responseTo(*h.transport, 3);
        QVERIFY(response);
        QCOMPARE(response->value(u"error").toObject().value(u"code").toInt(), int(JsonRpc::MethodNotFound));
        QCOMPARE(h.session->waitingServerRequestCount(), 0);
        // The id is free at once, and nothing is left to cancel when the connection ends.
        h.transport->inject(JsonRpc::makeRequest(3, u"sampling/createMessage"_s, samplingParams()));
        QCOMPARE(client->requests.size(), 2);
        h.transport->finishClose(TransportClosure{});
        QVERIFY(client->cancelled.isEmpty());
    }

    // Over Streamable HTTP a server's request comes on the stream of the request it serves: that
    // request's client answers, whoever else has requests running.
    void aRequestOnTheStreamOfOneOfOursGoesToThatRequestsClient_data()
    {
        QTest::addColumn<int>("streamOf"); // 0: the first client's request, 1: the second's
        QTest::newRow("first client's stream") << 0;
        QTest::newRow("second client's stream") << 1;
    }

    void aRequestOnTheStreamOfOneOfOursGoesToThatRequestsClient()
    {
        QFETCH(int, streamOf);
        const auto shared = std::make_shared<FakeClient>(u"shared"_s);
        const auto first = std::make_shared<FakeClient>(u"Claude Code 2.1"_s);
        const auto second = std::make_shared<FakeClient>(u"Cursor 1.0"_s);
        Harness h(featureOptions(shared));
        QVERIFY(h.openReady());
        const qint64 firstId
            = h.session->request(u"tools/call"_s, {{u"name"_s, u"a"_s}}, [](const RpcReply &) {}, {}, {}, first);
        ToolCallInput input;
        input.origin = second;
        const qint64 secondId = h.session->callTool(u"b"_s, input, [](const ToolCallReply &) {});
        QVERIFY(firstId > 0 && secondId > 0 && firstId != secondId);
        h.transport->injectRelated(JsonRpc::makeRequest(9, u"sampling/createMessage"_s, samplingParams()),
                                   QJsonValue(streamOf == 0 ? firstId : secondId));
        QCOMPARE(first->requests.size(), streamOf == 0 ? 1 : 0);
        QCOMPARE(second->requests.size(), streamOf == 1 ? 1 : 0);
        QVERIFY(shared->requests.isEmpty());
        const FakeClient &asked = streamOf == 0 ? *first : *second;
        QVERIFY(asked.requests.first().undecided.isEmpty());
    }

    // A request on the stream of a request of Tether's own (no client's: the supervisor's
    // tools/list, say) serves no client: it must not go to another client whose request happens to
    // run (the gateway never guesses between hosts), but to the session's client side.
    void aRequestOnTheStreamOfTethersOwnRequestGoesToTheClientSide()
    {
        const auto shared = std::make_shared<FakeClient>(u"shared"_s);
        const auto client = std::make_shared<FakeClient>(u"Claude Code 2.1"_s);
        Harness h(featureOptions(shared));
        QVERIFY(h.openReady());
        const qint64 own = h.session->request(u"tools/list"_s, {}, [](const RpcReply &) {});
        h.session->request(u"tools/call"_s, {{u"name"_s, u"t"_s}}, [](const RpcReply &) {}, {}, {}, client);
        h.transport->injectRelated(JsonRpc::makeRequest(9, u"sampling/createMessage"_s, samplingParams()), QJsonValue(own));
        QVERIFY2(client->requests.isEmpty(), "given to a client whose request it does not serve");
        QCOMPARE(shared->requests.size(), 1);
    }

    void twoClientsInFlightLeaveItToTheClientSideNamingBoth()
    {
        const auto shared = std::make_shared<FakeClient>(u"shared"_s);
        const auto first = std::make_shared<FakeClient>(u"Claude Code 2.1"_s);
        const auto second = std::make_shared<FakeClient>(u"Cursor 1.0"_s);
        Harness h(featureOptions(shared));
        QVERIFY(h.openReady());
        h.session->request(u"tools/call"_s, {{u"name"_s, u"a"_s}}, [](const RpcReply &) {}, {}, {}, first);
        h.session->request(u"tools/call"_s, {{u"name"_s, u"b"_s}}, [](const RpcReply &) {}, {}, {}, second);
        h.session->request(u"tools/call"_s, {{u"name"_s, u"c"_s}}, [](const RpcReply &) {}, {}, {}, first);
        h.transport->inject(JsonRpc::makeRequest(3, u"elicitation/create"_s, formParams()));
        QVERIFY(first->requests.isEmpty());
        QVERIFY(second->requests.isEmpty());
        QCOMPARE(shared->requests.size(), 1);
        QCOMPARE(shared->requests.first().undecided, (QStringList{u"Claude Code 2.1"_s, u"Cursor 1.0"_s}));
        QCOMPARE(shared->requests.first().method, u"elicitation/create"_s);
        // The client side's answer (here a refusal naming the cause) goes back to the server.
        shared->replies.first()(RpcReply::failure(JsonRpc::InternalError, u"two hosts"_s));
        const auto response = responseTo(*h.transport, 3);
        QVERIFY(response);
        QCOMPARE(response->value(u"error").toObject().value(u"message").toString(), u"two hosts"_s);
    }

    void oneClientWithTwoRequestsIsOneClient()
    {
        const auto shared = std::make_shared<FakeClient>(u"shared"_s);
        const auto client = std::make_shared<FakeClient>(u"Claude Code 2.1"_s);
        Harness h(featureOptions(shared));
        QVERIFY(h.openReady());
        h.session->request(u"tools/call"_s, {{u"name"_s, u"a"_s}}, [](const RpcReply &) {}, {}, {}, client);
        h.session->request(u"resources/read"_s, {{u"uri"_s, u"x:y"_s}}, [](const RpcReply &) {}, {}, {}, client);
        h.session->request(u"tools/list"_s, {}, [](const RpcReply &) {}); // Tether's own: no client's
        h.transport->inject(JsonRpc::makeRequest(3, u"sampling/createMessage"_s, samplingParams()));
        QCOMPARE(client->requests.size(), 1);
        QVERIFY(shared->requests.isEmpty());
    }

    // A person may take longer to fill in a form than a call may take: the call's clock stands
    // while its client answers, and starts again, whole, once it has.
    void aCallDoesNotTimeOutWhileItsClientAnswers()
    {
        const auto client = std::make_shared<FakeClient>(u"Claude Code 2.1"_s);
        SessionOptions options = featureOptions();
        options.requestTimeout = std::chrono::milliseconds(80);
        Harness h(options);
        QVERIFY(h.openReady());
        std::optional<ToolCallReply> call;
        ToolCallInput input;
        input.origin = client;
        h.session->callTool(u"ask"_s, input, [&](const ToolCallReply &reply) { call = reply; });
        h.transport->inject(JsonRpc::makeRequest(5, u"elicitation/create"_s, formParams()));
        QCOMPARE(client->requests.size(), 1);
        // A request sent later, with no client waiting, times out first: the call would have by then.
        std::optional<RpcReply> other;
        h.session->request(u"ping"_s, {}, [&](const RpcReply &reply) { other = reply; });
        QTRY_VERIFY(other);
        QVERIFY(!call);
        client->replies.first()(RpcReply{QJsonObject{{u"action"_s, u"decline"_s}}, std::nullopt});
        QTRY_VERIFY(call); // and now it does, its whole timeout after the answer
        QCOMPARE(call->error->code, int(JsonRpc::RequestTimeout));
    }

    // A session has one set of roots, whoever's request runs: its shared side's.
    void rootsAreTheSharedSidesWhoeversRequestRuns()
    {
        const auto shared = std::make_shared<FakeClient>(u"shared"_s);
        const auto client = std::make_shared<FakeClient>(u"Claude Code 2.1"_s);
        Harness h(featureOptions(shared));
        QVERIFY(h.openReady());
        ToolCallInput input;
        input.origin = client;
        h.session->callTool(u"ask"_s, input, [](const ToolCallReply &) {});
        h.transport->injectRelated(JsonRpc::makeRequest(3, u"roots/list"_s), h.idOf(u"tools/call"_s));
        QVERIFY(client->requests.isEmpty());
        QCOMPARE(shared->requests.size(), 1);
        QCOMPARE(shared->requests.first().method, u"roots/list"_s);
    }

    void withNoClientsRequestRunningTheClientSideAnswers()
    {
        const auto shared = std::make_shared<FakeClient>(u"shared"_s);
        auto gone = std::make_shared<FakeClient>(u"gone"_s);
        Harness h(featureOptions(shared));
        QVERIFY(h.openReady());
        h.session->request(u"tools/list"_s, {}, [](const RpcReply &) {});
        // A client that has gone while its request runs is no candidate.
        h.session->request(u"tools/call"_s, {{u"name"_s, u"a"_s}}, [](const RpcReply &) {}, {}, {}, std::weak_ptr<ClientSide>(gone));
        gone.reset();
        h.transport->inject(JsonRpc::makeRequest(3, u"roots/list"_s));
        QCOMPARE(shared->requests.size(), 1);
        QVERIFY(shared->requests.first().undecided.isEmpty());
    }

    // A task's requests go to whoever the task is for, which only the client side knows.
    void aTasksRequestGoesToTheClientSide()
    {
        const auto shared = std::make_shared<FakeClient>(u"shared"_s);
        const auto client = std::make_shared<FakeClient>(u"Claude Code 2.1"_s);
        Harness h(featureOptions(shared));
        QVERIFY(h.openReady());
        h.session->request(u"tools/call"_s, {{u"name"_s, u"a"_s}}, [](const RpcReply &) {}, {}, {}, client);
        h.transport->inject(
            JsonRpc::makeRequest(3, u"elicitation/create"_s, withMeta(formParams(), taskMeta(u"task-1"_s))));
        QVERIFY(client->requests.isEmpty());
        QCOMPARE(shared->requests.size(), 1);
        QVERIFY(shared->requests.first().undecided.isEmpty());
        QCOMPARE(relatedTaskId(shared->requests.first().params), u"task-1"_s);
    }

    void withoutAClientSide_data()
    {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QJsonObject>("params");
        QTest::addColumn<bool>("goneSide"); // a client side that has gone counts as none
        for (const bool gone : {false, true}) {
            const char *how = gone ? "side gone" : "no side";
            QTest::addRow("roots, %s", how) << u"roots/list"_s << QJsonObject{} << gone;
            QTest::addRow("sampling, %s", how) << u"sampling/createMessage"_s << samplingParams() << gone;
            QTest::addRow("form elicitation, %s", how) << u"elicitation/create"_s << formParams() << gone;
            QTest::addRow("url elicitation, %s", how) << u"elicitation/create"_s << urlParams(u"e-1"_s) << gone;
        }
    }

    void withoutAClientSide()
    {
        QFETCH(QString, method);
        QFETCH(QJsonObject, params);
        QFETCH(bool, goneSide);
        const QJsonArray roots{QJsonObject{{u"uri"_s, u"file:///home/me/project"_s}, {u"name"_s, u"project"_s}}};
        auto side = std::make_shared<FakeClient>(u"gone"_s);
        Harness h(featureOptions(goneSide ? side : nullptr, roots));
        side.reset();
        QVERIFY(h.openReady());
        h.transport->inject(JsonRpc::makeRequest(4, method, params));
        const auto response = responseTo(*h.transport, 4);
        QVERIFY(response);
        QCOMPARE(h.session->waitingServerRequestCount(), 0);
        if (method == u"roots/list") {
            QCOMPARE(response->value(u"result").toObject(), (QJsonObject{{u"roots"_s, roots}}));
            return;
        }
        const QJsonObject error = response->value(u"error").toObject();
        QCOMPARE(error.value(u"code").toInt(), int(JsonRpc::InternalError));
        const QString message = error.value(u"message").toString();
        QVERIFY2(message.contains(method) && message.contains(u"'fake'"_s), qPrintable(message));
        QCOMPARE(h.session->stats().refusedRequests, 1);
    }

    // What the session declared decides what reaches a client; the rest is -32601.
    void whatTheSessionDeclaredDecides_data()
    {
        QTest::addColumn<QJsonObject>("capabilities");
        QTest::addColumn<QString>("method");
        QTest::addColumn<QJsonObject>("params");
        QTest::addColumn<bool>("reaches"); // else -32601
        const QJsonObject none;
        const QJsonObject empty;
        QTest::newRow("nothing declared: sampling") << none << u"sampling/createMessage"_s << samplingParams() << false;
        QTest::newRow("nothing declared: roots") << none << u"roots/list"_s << empty << false;
        QTest::newRow("nothing declared: elicitation") << none << u"elicitation/create"_s << formParams() << false;
        QTest::newRow("form only: url elicitation")
            << QJsonObject{{u"elicitation"_s, QJsonObject{{u"form"_s, empty}}}} << u"elicitation/create"_s
            << urlParams(u"e"_s) << false;
        QTest::newRow("form only: form elicitation")
            << QJsonObject{{u"elicitation"_s, QJsonObject{{u"form"_s, empty}}}} << u"elicitation/create"_s << formParams()
            << true;
        QTest::newRow("url only: form elicitation")
            << QJsonObject{{u"elicitation"_s, QJsonObject{{u"url"_s, empty}}}} << u"elicitation/create"_s << formParams()
            << false;
        QTest::newRow("elicitation naming no mode: form (2025-06-18)")
            << QJsonObject{{u"elicitation"_s, empty}} << u"elicitation/create"_s << formParams() << true;
        QTest::newRow("elicitation naming no mode: url")
            << QJsonObject{{u"elicitation"_s, empty}} << u"elicitation/create"_s << urlParams(u"e"_s) << false;
        QTest::newRow("sampling only: roots") << QJsonObject{{u"sampling"_s, empty}} << u"roots/list"_s << empty << false;
        QTest::newRow("roots only: sampling")
            << QJsonObject{{u"roots"_s, empty}} << u"sampling/createMessage"_s << samplingParams() << false;
        QTest::newRow("roots only: elicitation")
            << QJsonObject{{u"roots"_s, empty}} << u"elicitation/create"_s << formParams() << false;
        QTest::newRow("everything: an unknown method") << clientFeatureCapabilities() << u"sing/song"_s << empty << false;
    }

    void whatTheSessionDeclaredDecides()
    {
        QFETCH(QJsonObject, capabilities);
        QFETCH(QString, method);
        QFETCH(QJsonObject, params);
        QFETCH(bool, reaches);
        const auto shared = std::make_shared<FakeClient>(u"shared"_s);
        const auto client = std::make_shared<FakeClient>(u"Claude Code 2.1"_s);
        SessionOptions options = featureOptions(shared);
        options.clientCapabilities = capabilities;
        Harness h(options);
        QVERIFY(h.openReady());
        h.session->request(u"tools/call"_s, {{u"name"_s, u"a"_s}}, [](const RpcReply &) {}, {}, {}, client);
        h.transport->inject(JsonRpc::makeRequest(11, method, params));
        QVERIFY(shared->requests.isEmpty());
        if (reaches) {
            QCOMPARE(client->requests.size(), 1);
            QVERIFY(!responseTo(*h.transport, 11));
            return;
        }
        QVERIFY(client->requests.isEmpty());
        const auto response = responseTo(*h.transport, 11);
        QVERIFY(response);
        QCOMPARE(response->value(u"error").toObject().value(u"code").toInt(), int(JsonRpc::MethodNotFound));
        QVERIFY(response->value(u"error").toObject().value(u"message").toString().contains(method));
        QCOMPARE(h.session->stats().unsupportedRequests, 1);
    }

    void malformedParamsAreInvalidParamsNamingTheField_data()
    {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QJsonObject>("params");
        QTest::addColumn<QString>("field");
        const QString sampling = u"sampling/createMessage"_s;
        const QString elicitation = u"elicitation/create"_s;
        QTest::newRow("sampling without messages") << sampling << QJsonObject{{u"maxTokens"_s, 10}} << u"\"messages\""_s;
        QTest::newRow("sampling messages not an array")
            << sampling << QJsonObject{{u"messages"_s, u"hi"_s}, {u"maxTokens"_s, 10}} << u"\"messages\""_s;
        QTest::newRow("sampling without maxTokens") << sampling << QJsonObject{{u"messages"_s, QJsonArray{}}}
                                                    << u"\"maxTokens\""_s;
        QTest::newRow("sampling maxTokens a string")
            << sampling << QJsonObject{{u"messages"_s, QJsonArray{}}, {u"maxTokens"_s, u"10"_s}} << u"\"maxTokens\""_s;
        QTest::newRow("elicitation without message")
            << elicitation << QJsonObject{{u"requestedSchema"_s, QJsonObject{}}} << u"\"message\""_s;
        QTest::newRow("form without requestedSchema") << elicitation << QJsonObject{{u"message"_s, u"m"_s}}
                                                      << u"\"requestedSchema\""_s;
        QTest::newRow("form with a schema that is no object")
            << elicitation << QJsonObject{{u"message"_s, u"m"_s}, {u"requestedSchema"_s, u"{}"_s}} << u"\"requestedSchema\""_s;
        QTest::newRow("a mode that is none")
            << elicitation << QJsonObject{{u"mode"_s, u"pigeon"_s}, {u"message"_s, u"m"_s}} << u"\"mode\""_s;
        QTest::newRow("url mode without url")
            << elicitation
            << QJsonObject{{u"mode"_s, u"url"_s}, {u"message"_s, u"m"_s}, {u"elicitationId"_s, u"e"_s}} << u"\"url\""_s;
        QTest::newRow("url mode with an empty url")
            << elicitation
            << QJsonObject{{u"mode"_s, u"url"_s}, {u"message"_s, u"m"_s}, {u"url"_s, u""_s}, {u"elicitationId"_s, u"e"_s}}
            << u"\"url\""_s;
        QTest::newRow("url mode without elicitationId")
            << elicitation
            << QJsonObject{{u"mode"_s, u"url"_s}, {u"message"_s, u"m"_s}, {u"url"_s, u"https://example.com/x"_s}}
            << u"\"elicitationId\""_s;
    }

    void malformedParamsAreInvalidParamsNamingTheField()
    {
        QFETCH(QString, method);
        QFETCH(QJsonObject, params);
        QFETCH(QString, field);
        const auto client = std::make_shared<FakeClient>(u"Claude Code 2.1"_s);
        Harness h(featureOptions());
        QVERIFY(h.openReady());
        h.session->request(u"tools/call"_s, {{u"name"_s, u"a"_s}}, [](const RpcReply &) {}, {}, {}, client);
        h.transport->inject(JsonRpc::makeRequest(12, method, params));
        QVERIFY(client->requests.isEmpty());
        const auto response = responseTo(*h.transport, 12);
        QVERIFY(response);
        const QJsonObject error = response->value(u"error").toObject();
        QCOMPARE(error.value(u"code").toInt(), int(JsonRpc::InvalidParams));
        QVERIFY2(error.value(u"message").toString().contains(field), qPrintable(error.value(u"message").toString()));
        QVERIFY(error.value(u"message").toString().contains(method));
        QCOMPARE(h.session->stats().refusedRequests, 1);
        QCOMPARE(h.session->waitingServerRequestCount(), 0);
    }

    void aReusedIdIsRefused()
    {
        const auto client = std::make_shared<FakeClient>(u"Claude Code 2.1"_s);
        Harness h(featureOptions());
        QVERIFY(h.openReady());
        h.session->request(u"tools/call"_s, {{u"name"_s, u"a"_s}}, [](const RpcReply &) {}, {}, {}, client);
        h.transport->inject(JsonRpc::makeRequest(5, u"sampling/createMessage"_s, samplingParams()));
        QCOMPARE(client->requests.size(), 1);
        h.transport->inject(JsonRpc::makeRequest(5, u"sampling/createMessage"_s, samplingParams()));
        QCOMPARE(client->requests.size(), 1);
        QJsonObject last = h.transport->sent.last();
        QCOMPARE(last.value(u"id").toInt(), 5);
        QCOMPARE(last.value(u"error").toObject().value(u"code").toInt(), int(JsonRpc::InvalidRequest));
        QVERIFY(last.value(u"error").toObject().value(u"message").toString().contains(u"5"_s));
        QCOMPARE(h.session->waitingServerRequestCount(), 1);
        // "5" is another id than 5.
        h.transport->inject(JsonRpc::makeRequest(u"5"_s, u"sampling/createMessage"_s, samplingParams()));
        QCOMPARE(client->requests.size(), 2);
        // Once answered, the id is free again.
        client->replies.first()(RpcReply{QJsonObject{{u"model"_s, u"m"_s}}, std::nullopt});
        h.transport->inject(JsonRpc::makeRequest(5, u"sampling/createMessage"_s, samplingParams()));
        QCOMPARE(client->requests.size(), 3);
    }

    void moreThan32WaitingAreRefused()
    {
        const auto client = std::make_shared<FakeClient>(u"Claude Code 2.1"_s);
        Harness h(featureOptions());
        QVERIFY(h.openReady());
        h.session->request(u"tools/call"_s, {{u"name"_s, u"a"_s}}, [](const RpcReply &) {}, {}, {}, client);
        for (int id = 1; id <= 32; ++id)
            h.transport->inject(JsonRpc::makeRequest(id, u"sampling/createMessage"_s, samplingParams()));
        QCOMPARE(client->requests.size(), 32);
        QCOMPARE(h.session->waitingServerRequestCount(), 32);
        h.transport->inject(JsonRpc::makeRequest(33, u"sampling/createMessage"_s, samplingParams()));
        QCOMPARE(client->requests.size(), 32);
        const auto refused = responseTo(*h.transport, 33);
        QVERIFY(refused);
        QCOMPARE(refused->value(u"error").toObject().value(u"code").toInt(), int(JsonRpc::InternalError));
        QVERIFY(refused->value(u"error").toObject().value(u"message").toString().contains(u"32"_s));
        QCOMPARE(h.session->stats().refusedRequests, 1);
        // One answered, one more may wait.
        client->replies.first()(RpcReply{QJsonObject{{u"roots"_s, QJsonArray{}}}, std::nullopt});
        h.transport->inject(JsonRpc::makeRequest(34, u"sampling/createMessage"_s, samplingParams()));
        QCOMPARE(client->requests.size(), 33);
        QCOMPARE(h.session->waitingServerRequestCount(), 32);
    }

    void theServersCancellationReachesTheAnswererAndALateAnswerIsDropped()
    {
        const auto client = std::make_shared<FakeClient>(u"Claude Code 2.1"_s);
        Harness h(featureOptions());
        QVERIFY(h.openReady());
        h.session->request(u"tools/call"_s, {{u"name"_s, u"a"_s}}, [](const RpcReply &) {}, {}, {}, client);
        h.transport->inject(JsonRpc::makeRequest(6, u"sampling/createMessage"_s, samplingParams()));
        h.transport->inject(JsonRpc::makeRequest(7, u"sampling/createMessage"_s, samplingParams()));
        QCOMPARE(client->requests.size(), 2);
        h.transport->inject(JsonRpc::makeNotification(u"notifications/cancelled"_s,
                                                      {{u"requestId"_s, 7}, {u"reason"_s, u"the user gave up"_s}}));
        QCOMPARE(client->cancelled.size(), 1);
        QCOMPARE(client->cancelled.first().first, quint64(102));
        const QString reason = client->cancelled.first().second;
        QVERIFY2(reason.contains(u"the user gave up"_s) && reason.contains(u"'fake'"_s), qPrintable(reason));
        QCOMPARE(h.session->waitingServerRequestCount(), 1);
        const qsizetype sent = h.transport->sent.size();
        client->replies.at(1)(RpcReply{QJsonObject{{u"model"_s, u"late"_s}}, std::nullopt});
        QCOMPARE(h.transport->sent.size(), sent);
        // Cancelling what nobody waits for, or with an id that is none, changes nothing.
        h.transport->inject(JsonRpc::makeNotification(u"notifications/cancelled"_s, {{u"requestId"_s, 7}}));
        h.transport->inject(JsonRpc::makeNotification(u"notifications/cancelled"_s, {{u"requestId"_s, 99}}));
        h.transport->inject(JsonRpc::makeNotification(u"notifications/cancelled"_s, {{u"requestId"_s, 6.5}}));
        h.transport->inject(JsonRpc::makeNotification(u"notifications/cancelled"_s, {{u"requestId"_s, u"6"_s}}));
        QCOMPARE(client->cancelled.size(), 1);
        QCOMPARE(h.session->waitingServerRequestCount(), 1);
        client->replies.at(0)(RpcReply{QJsonObject{{u"roots"_s, QJsonArray{}}}, std::nullopt});
        QVERIFY(responseTo(*h.transport, 6));
    }

    // A server may use the id of a request it cancelled again: the late answer to the first must
    // not answer the second.
    void aLateAnswerDoesNotAnswerTheNextRequestWithTheSameId()
    {
        const auto client = std::make_shared<FakeClient>(u"Claude Code 2.1"_s);
        Harness h(featureOptions());
        QVERIFY(h.openReady());
        h.session->request(u"tools/call"_s, {{u"name"_s, u"a"_s}}, [](const RpcReply &) {}, {}, {}, client);
        h.transport->inject(JsonRpc::makeRequest(7, u"sampling/createMessage"_s, samplingParams()));
        h.transport->inject(JsonRpc::makeNotification(u"notifications/cancelled"_s, {{u"requestId"_s, 7}}));
        h.transport->inject(JsonRpc::makeRequest(7, u"sampling/createMessage"_s, samplingParams()));
        QCOMPARE(client->requests.size(), 2);
        client->replies.at(0)(RpcReply{QJsonObject{{u"model"_s, u"old"_s}}, std::nullopt});
        QVERIFY2(!responseTo(*h.transport, 7), "the cancelled request's late answer answered its successor");
        client->replies.at(1)(RpcReply{QJsonObject{{u"model"_s, u"new"_s}}, std::nullopt});
        const auto response = responseTo(*h.transport, 7);
        QVERIFY(response);
        QCOMPARE(response->value(u"result").toObject().value(u"model").toString(), u"new"_s);
    }

    void progressGoesBackWithTheServersTokenOnlyIncreasing()
    {
        const auto client = std::make_shared<FakeClient>(u"Claude Code 2.1"_s);
        Harness h(featureOptions());
        QVERIFY(h.openReady());
        h.session->request(u"tools/call"_s, {{u"name"_s, u"a"_s}}, [](const RpcReply &) {}, {}, {}, client);
        h.transport->inject(JsonRpc::makeRequest(
            8, u"sampling/createMessage"_s, withMeta(samplingParams(), {{u"progressToken"_s, u"srv-tok"_s}})));
        QCOMPARE(client->progress.size(), 1);
        QVERIFY(client->progress.first());
        const ProgressHandler report = client->progress.first();
        report(ProgressUpdate{1, std::nullopt, {}});
        report(ProgressUpdate{1, std::nullopt, {}});
        report(ProgressUpdate{0.5, std::nullopt, {}});
        report(ProgressUpdate{2, 4.0, u"half way"_s});
        QList<QJsonObject> progress;
        for (const QJsonObject &message : std::as_const(h.transport->sent)) {
            if (message.value(u"method").toString() == u"notifications/progress")
                progress.append(message.value(u"params").toObject());
        }
        QCOMPARE(progress.size(), 2);
        QCOMPARE(progress.at(0), (QJsonObject{{u"progressToken"_s, u"srv-tok"_s}, {u"progress"_s, 1}}));
        QCOMPARE(progress.at(1), (QJsonObject{{u"progressToken"_s, u"srv-tok"_s},
                                              {u"progress"_s, 2},
                                              {u"total"_s, 4},
                                              {u"message"_s, u"half way"_s}}));
        // Answered, the request reports no more.
        client->replies.first()(RpcReply{QJsonObject{{u"model"_s, u"m"_s}}, std::nullopt});
        report(ProgressUpdate{3, std::nullopt, {}});
        QCOMPARE(h.transport->countSent(u"notifications/progress"_s), 2);
    }

    void progressOfARequestThatAskedForNoneIsNotSent()
    {
        const auto client = std::make_shared<FakeClient>(u"Claude Code 2.1"_s);
        Harness h(featureOptions());
        QVERIFY(h.openReady());
        h.session->request(u"tools/call"_s, {{u"name"_s, u"a"_s}}, [](const RpcReply &) {}, {}, {}, client);
        h.transport->inject(JsonRpc::makeRequest(8, u"sampling/createMessage"_s, samplingParams()));
        QCOMPARE(client->progress.size(), 1);
        if (client->progress.first())
            client->progress.first()(ProgressUpdate{1, std::nullopt, {}});
        QCOMPARE(h.transport->countSent(u"notifications/progress"_s), 0);
    }

    void closingCancelsEveryWaitingRequestAtItsAnswerer_data()
    {
        QTest::addColumn<int>("how");
        QTest::newRow("the connection drops") << 0;
        QTest::newRow("close()") << 1;
        QTest::newRow("the session is destroyed") << 2;
    }

    void closingCancelsEveryWaitingRequestAtItsAnswerer()
    {
        QFETCH(int, how);
        const auto shared = std::make_shared<FakeClient>(u"shared"_s);
        const auto client = std::make_shared<FakeClient>(u"Claude Code 2.1"_s);
        Harness h(featureOptions(shared));
        QVERIFY(h.openReady());
        h.session->request(u"tools/call"_s, {{u"name"_s, u"a"_s}}, [](const RpcReply &) {}, {}, {}, client);
        h.transport->inject(JsonRpc::makeRequest(1, u"sampling/createMessage"_s, samplingParams()));
        h.transport->inject(JsonRpc::makeRequest(2, u"elicitation/create"_s, formParams()));
        h.transport->inject(JsonRpc::makeRequest(3, u"roots/list"_s, {{u"_meta"_s, taskMeta(u"t"_s)}}));
        QCOMPARE(client->requests.size(), 2);
        QCOMPARE(shared->requests.size(), 1);
        FakeTransport *transport = h.transport;
        switch (how) {
        case 0:
            transport->finishClose(TransportClosure{});
            break;
        case 1:
            h.session->close();
            break;
        default:
            h.session.reset();
            transport = nullptr;
            break;
        }
        QCOMPARE(client->cancelled.size(), 2);
        QCOMPARE((QList<quint64>{client->cancelled.at(0).first, client->cancelled.at(1).first}),
                 (QList<quint64>{101, 102}));
        QCOMPARE(shared->cancelled.size(), 1);
        QCOMPARE(shared->cancelled.first().first, quint64(101));
        for (const auto &cancelled : client->cancelled + shared->cancelled)
            QVERIFY2(cancelled.second.contains(u"connection closed"_s), qPrintable(cancelled.second));
        if (h.session)
            QCOMPARE(h.session->waitingServerRequestCount(), 0);
        // Late answers go nowhere.
        const qsizetype sent = transport ? transport->sent.size() : 0;
        client->replies.first()(RpcReply{QJsonObject{}, std::nullopt});
        shared->replies.first()(RpcReply{QJsonObject{}, std::nullopt});
        if (transport)
            QCOMPARE(transport->sent.size(), sent);
    }

    void anElicitationsCompletionGoesToTheClientAskedElseTheClientSide()
    {
        const auto shared = std::make_shared<FakeClient>(u"shared"_s);
        const auto client = std::make_shared<FakeClient>(u"Claude Code 2.1"_s);
        Harness h(featureOptions(shared));
        QVERIFY(h.openReady());
        std::optional<RpcReply> call;
        const qint64 callId = h.session->request(u"tools/call"_s, {{u"name"_s, u"a"_s}},
                                                 [&](const RpcReply &reply) { call = reply; }, {}, {}, client);
        h.transport->inject(JsonRpc::makeRequest(20, u"elicitation/create"_s, urlParams(u"e-1"_s)));
        QCOMPARE(client->requests.size(), 1);
        client->replies.first()(RpcReply{QJsonObject{{u"action"_s, u"accept"_s}}, std::nullopt});
        h.transport->inject(JsonRpc::makeResult(callId, textResult(u"done"_s)));
        QVERIFY(call);
        // The client's request has ended; the completion still goes where the elicitation went.
        const QJsonObject complete{{u"elicitationId"_s, u"e-1"_s}};
        h.transport->inject(JsonRpc::makeNotification(u"notifications/elicitation/complete"_s, complete));
        QCOMPARE(client->notifications.size(), 1);
        QCOMPARE(client->notifications.first().serverName, u"fake"_s);
        QCOMPARE(client->notifications.first().method, u"notifications/elicitation/complete"_s);
        QCOMPARE(client->notifications.first().params, complete);
        QVERIFY(shared->notifications.isEmpty());
        // One nobody was asked, and the same one again, go to the client side.
        h.transport->inject(JsonRpc::makeNotification(u"notifications/elicitation/complete"_s,
                                                      {{u"elicitationId"_s, u"e-2"_s}}));
        h.transport->inject(JsonRpc::makeNotification(u"notifications/elicitation/complete"_s, complete));
        QCOMPARE(client->notifications.size(), 1);
        QCOMPARE(shared->notifications.size(), 2);
        QCOMPARE(shared->notifications.at(0).params.value(u"elicitationId").toString(), u"e-2"_s);
    }

    void notificationsForHostsReachTheClientSideScrubbed_data()
    {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QJsonObject>("params");
        QTest::addColumn<QJsonObject>("expected");
        const QString secret = u"SECRET-TOKEN-123"_s;
        QTest::newRow("a log message")
            << u"notifications/message"_s
            << QJsonObject{{u"level"_s, u"error"_s}, {u"logger"_s, u"auth"_s},
                           {u"data"_s, QJsonObject{{u"header"_s, QString(u"Bearer "_s + secret)}}}}
            << QJsonObject{{u"level"_s, u"error"_s}, {u"logger"_s, u"auth"_s},
                           {u"data"_s, QJsonObject{{u"header"_s, u"Bearer …"_s}}}};
        QTest::newRow("a resource update") << u"notifications/resources/updated"_s
                                           << QJsonObject{{u"uri"_s, QString(u"file:///tmp/"_s + secret + u".txt"_s)}}
                                           << QJsonObject{{u"uri"_s, u"file:///tmp/….txt"_s}};
        QTest::newRow("a task's status")
            << u"notifications/tasks/status"_s
            << QJsonObject{{u"taskId"_s, u"t1"_s}, {u"status"_s, u"failed"_s},
                           {u"statusMessage"_s, QString(u"token "_s + secret + u" refused"_s)}}
            << QJsonObject{{u"taskId"_s, u"t1"_s}, {u"status"_s, u"failed"_s}, {u"statusMessage"_s, u"token … refused"_s}};
    }

    void notificationsForHostsReachTheClientSideScrubbed()
    {
        QFETCH(QString, method);
        QFETCH(QJsonObject, params);
        QFETCH(QJsonObject, expected);
        const auto shared = std::make_shared<FakeClient>(u"shared"_s);
        const auto client = std::make_shared<FakeClient>(u"Claude Code 2.1"_s);
        Harness h(featureOptions(shared), SecretScrubber({u"SECRET-TOKEN-123"_s}));
        QVERIFY(h.openReady());
        h.session->request(u"tools/call"_s, {{u"name"_s, u"a"_s}}, [](const RpcReply &) {}, {}, {}, client);
        h.transport->inject(JsonRpc::makeNotification(method, params));
        QVERIFY(client->notifications.isEmpty());
        QCOMPARE(shared->notifications.size(), 1);
        QCOMPARE(shared->notifications.first().serverName, u"fake"_s);
        QCOMPARE(shared->notifications.first().method, method);
        QCOMPARE(shared->notifications.first().params, expected);
    }

    void otherNotificationsAreNotPassedOn()
    {
        const auto shared = std::make_shared<FakeClient>(u"shared"_s);
        Harness h(featureOptions(shared));
        QVERIFY(h.openReady());
        for (const QString &method : {u"notifications/tools/list_changed"_s, u"notifications/resources/list_changed"_s,
                                      u"notifications/prompts/list_changed"_s, u"notifications/progress"_s,
                                      u"notifications/cancelled"_s, u"notifications/whatever"_s})
            h.transport->inject(JsonRpc::makeNotification(method, {{u"progressToken"_s, 99}, {u"requestId"_s, 99}}));
        QVERIFY(shared->notifications.isEmpty());
    }

    void initializeDeclaresTheClientCapabilities_data()
    {
        QTest::addColumn<QJsonObject>("capabilities");
        QTest::newRow("none") << QJsonObject{};
        QTest::newRow("the client's features") << clientFeatureCapabilities();
        QTest::newRow("roots only") << QJsonObject{{u"roots"_s, QJsonObject{{u"listChanged"_s, true}}}};
    }

    void initializeDeclaresTheClientCapabilities()
    {
        QFETCH(QJsonObject, capabilities);
        SessionOptions options = featureOptions();
        options.clientCapabilities = capabilities;
        Harness h(options);
        h.session->open();
        QTRY_COMPARE(h.transport->countSent(u"initialize"_s), 1);
        const QJsonObject params = h.transport->lastSent(u"initialize"_s).value(u"params").toObject();
        QVERIFY(params.value(u"capabilities").isObject());
        QCOMPARE(params.value(u"capabilities").toObject(), capabilities);
    }

    void theClientsFeaturesAreSamplingElicitationAndRoots()
    {
        const QJsonObject empty;
        QCOMPARE(clientFeatureCapabilities(),
                 (QJsonObject{{u"sampling"_s, QJsonObject{{u"tools"_s, empty}}},
                              {u"elicitation"_s, QJsonObject{{u"form"_s, empty}, {u"url"_s, empty}}},
                              {u"roots"_s, QJsonObject{{u"listChanged"_s, true}}}}));
    }

    void rootsChangedOnlyWhenDeclaredAndReady_data()
    {
        QTest::addColumn<QJsonObject>("capabilities");
        QTest::addColumn<int>("stage"); // 0: not opened, 1: initializing, 2: ready, 3: closed
        QTest::addColumn<int>("sent");
        const QJsonObject roots{{u"roots"_s, QJsonObject{{u"listChanged"_s, true}}}};
        QTest::newRow("declared, ready") << clientFeatureCapabilities() << 2 << 1;
        QTest::newRow("roots alone declared, ready") << roots << 2 << 1;
        QTest::newRow("declared, not opened") << clientFeatureCapabilities() << 0 << 0;
        QTest::newRow("declared, initializing") << clientFeatureCapabilities() << 1 << 0;
        QTest::newRow("declared, closed") << clientFeatureCapabilities() << 3 << 0;
        QTest::newRow("nothing declared, ready") << QJsonObject{} << 2 << 0;
        QTest::newRow("sampling alone declared, ready") << QJsonObject{{u"sampling"_s, QJsonObject{}}} << 2 << 0;
    }

    void rootsChangedOnlyWhenDeclaredAndReady()
    {
        QFETCH(QJsonObject, capabilities);
        QFETCH(int, stage);
        QFETCH(int, sent);
        SessionOptions options = featureOptions();
        options.clientCapabilities = capabilities;
        Harness h(options);
        if (stage == 1) {
            h.session->open();
            QTRY_COMPARE(h.transport->countSent(u"initialize"_s), 1);
        } else if (stage >= 2) {
            QVERIFY(h.openReady());
        }
        if (stage == 3)
            h.session->close();
        h.session->notifyRootsChanged();
        QCOMPARE(h.transport->countSent(u"notifications/roots/list_changed"_s), sent);
    }

    void pingIsStillAnsweredWithAnEmptyResult()
    {
        const auto shared = std::make_shared<FakeClient>(u"shared"_s);
        const auto client = std::make_shared<FakeClient>(u"Claude Code 2.1"_s);
        Harness h(featureOptions(shared));
        QVERIFY(h.openReady());
        h.session->request(u"tools/call"_s, {{u"name"_s, u"a"_s}}, [](const RpcReply &) {}, {}, {}, client);
        h.transport->inject(JsonRpc::makeRequest(u"p-1"_s, u"ping"_s));
        const auto response = responseTo(*h.transport, u"p-1"_s);
        QVERIFY(response);
        QCOMPARE(response->value(u"result").toObject(), QJsonObject());
        QVERIFY(client->requests.isEmpty());
        QVERIFY(shared->requests.isEmpty());
        QCOMPARE(h.session->waitingServerRequestCount(), 0);
    }

    // A session pinned to the stateless era: server/discover opens it, every request carries the
    // envelope, a result without resultType is refused, and a list the server lets be kept for a
    // while (and tells no changes of) is listed again when that while is over.
    void statelessSessionSpeaksTheEnvelope()
    {
        SessionOptions options{u"fake"_s, std::chrono::milliseconds(60000)};
        options.pinnedEra = ProtocolEra::Stateless;
        options.clientCapabilities = QJsonObject{{u"roots"_s, QJsonObject{}}};
        Harness h(options);
        h.session->open();
        QTRY_COMPARE(h.transport->countSent(u"server/discover"_s), 1);
        QCOMPARE(h.transport->countSent(u"initialize"_s), 0);
        const QJsonObject probe = h.transport->lastSent(u"server/discover"_s).value(u"params").toObject();
        const QJsonObject meta = probe.value(u"_meta").toObject();
        QCOMPARE(meta.value(u"io.modelcontextprotocol/protocolVersion").toString(), u"2026-07-28"_s);
        QCOMPARE(meta.value(u"io.modelcontextprotocol/clientCapabilities").toObject(), options.clientCapabilities);
        QCOMPARE(meta.value(u"io.modelcontextprotocol/clientInfo").toObject().value(u"name").toString(), u"tether"_s);
        h.answer(u"server/discover"_s,
                 QJsonObject{{u"supportedVersions"_s, QJsonArray{u"2026-07-28"_s}},
                             {u"capabilities"_s, QJsonObject{{u"tools"_s, QJsonObject{}}}},
                             {u"resultType"_s, u"complete"_s},
                             {u"_meta"_s, QJsonObject{{u"io.modelcontextprotocol/serverInfo"_s,
                                                       QJsonObject{{u"name"_s, u"stateless"_s}, {u"version"_s, u"1"_s}}}}}});
        QVERIFY(h.session->isReady());
        QCOMPARE(h.session->era(), ProtocolEra::Stateless);
        QCOMPARE(h.session->serverIdentity().name, u"stateless"_s);
        QCOMPARE(h.transport->countSent(u"subscriptions/listen"_s), 0); // the server tells no changes

        QSignalSpy changed(h.session.get(), &McpClientSession::toolsListChanged);
        std::optional<ToolListReply> listed;
        h.session->listTools([&](const ToolListReply &reply) { listed = reply; });
        QTRY_COMPARE(h.transport->countSent(u"tools/list"_s), 1);
        QVERIFY(h.transport->lastSent(u"tools/list"_s).value(u"params").toObject().value(u"_meta").toObject().contains(
            u"io.modelcontextprotocol/protocolVersion"));
        h.answer(u"tools/list"_s, QJsonObject{{u"tools"_s, QJsonArray{tool(u"a"_s)}}, {u"resultType"_s, u"complete"_s},
                                              {u"ttlMs"_s, 1000}, {u"cacheScope"_s, u"private"_s}});
        QTRY_VERIFY(listed.has_value());
        QVERIFY(!listed->error);
        QCOMPARE(listed->tools.size(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 1, 5000);

        // A result that says nothing of its type is the server's protocol error.
        std::optional<RpcReply> read;
        h.session->request(u"completion/complete"_s, {}, [&](const RpcReply &reply) { read = reply; });
        QTRY_COMPARE(h.transport->countSent(u"completion/complete"_s), 1);
        h.answer(u"completion/complete"_s, QJsonObject{{u"completion"_s, QJsonObject{}}});
        QTRY_VERIFY(read.has_value());
        QVERIFY(read->error);
        QVERIFY2(read->error->message.contains(u"no \"resultType\", which protocol 2026-07-28 requires"_s),
                 qPrintable(read->error->message));

        // logging/setLevel is the envelope's from then on, and no request of its own.
        std::optional<RpcReply> set;
        h.session->request(u"logging/setLevel"_s, {{u"level"_s, u"debug"_s}}, [&](const RpcReply &reply) { set = reply; });
        QTRY_VERIFY(set.has_value());
        QVERIFY(set->ok());
        QCOMPARE(h.transport->countSent(u"logging/setLevel"_s), 0);
        h.session->ping([](const RpcReply &) {});
        QTRY_COMPARE(h.transport->countSent(u"server/discover"_s), 2);
        QCOMPARE(h.transport->lastSent(u"server/discover"_s).value(u"params").toObject().value(u"_meta").toObject()
                     .value(u"io.modelcontextprotocol/logLevel").toString(),
                 u"debug"_s);
        QCOMPARE(h.transport->countSent(u"ping"_s), 0);
    }
};

QTEST_GUILESS_MAIN(TestMcpClientSession)
#include "tst_mcpclientsession.moc"
