#include "protocol/clientside.h"
#include "protocol/jsonrpcpeer.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;

namespace {

// What an OutgoingRequests wrote, parsed back, with the request each belongs with.
struct Wire
{
    QList<QJsonObject> messages;
    QList<QJsonValue> related;

    OutgoingRequests::Writer writer()
    {
        return [this](const QByteArray &message, const QJsonValue &relatedTo) {
            messages.append(QJsonDocument::fromJson(message).object());
            related.append(relatedTo);
        };
    }
};

class TestClient final : public ClientSide
{
public:
    explicit TestClient(QString label)
        : m_label(std::move(label))
    {
    }
    QString clientLabel() const override { return m_label; }
    quint64 serverRequest(const ServerRequest &, ReplyHandler, ProgressHandler) override { return 0; }
    void cancelServerRequest(quint64, const QString &) override {}

private:
    QString m_label;
};

} // namespace

class TestJsonRpcPeer final : public QObject
{
    Q_OBJECT

private slots:
    void requestIdKeysTellNumbersFromStrings()
    {
        QCOMPARE(requestIdKey(QJsonValue(1)), u"n:1"_s);
        QCOMPARE(requestIdKey(QJsonValue(u"1"_s)), u"s:1"_s);
        QVERIFY(isRequestId(QJsonValue(7)));
        QVERIFY(isRequestId(QJsonValue(u"x"_s)));
        QVERIFY(!isRequestId(QJsonValue(1.5)));
        QVERIFY(!isRequestId(QJsonValue(QJsonValue::Null)));
    }

    void progressKeepsTheToken_data()
    {
        QTest::addColumn<QJsonValue>("token");
        QTest::newRow("string") << QJsonValue(u"host-token"_s);
        QTest::newRow("integer") << QJsonValue(12);
    }

    void progressKeepsTheToken()
    {
        QFETCH(QJsonValue, token);
        QCOMPARE(progressParams(token, {150, 5000.0, u"slept 150 of 5000 ms"_s}),
                 (QJsonObject{{u"progressToken"_s, token}, {u"progress"_s, 150}, {u"total"_s, 5000},
                              {u"message"_s, u"slept 150 of 5000 ms"_s}}));
        QCOMPARE(progressParams(token, {0.5, std::nullopt, {}}),
                 (QJsonObject{{u"progressToken"_s, token}, {u"progress"_s, 0.5}}));
        const ProgressUpdate back = progressUpdateOf(progressParams(token, {3, 9.0, u"three"_s}));
        QCOMPARE(back.progress, 3.0);
        QCOMPARE(back.total, std::optional<double>(9.0));
        QCOMPARE(back.message, u"three"_s);
    }

    void eachRequestIsAnsweredOnceByItsReply()
    {
        Wire wire;
        OutgoingRequests sent(u"host 'h'"_s, std::chrono::seconds(60), wire.writer());
        QList<RpcReply> replies;
        const qint64 id = sent.send(u"roots/list"_s, {}, [&](const RpcReply &reply) { replies.append(reply); },
                                    {{}, {}, false, QJsonValue(u"call-7"_s), {}});
        QCOMPARE(wire.messages.size(), 1);
        QCOMPARE(wire.messages.first().value(u"method").toString(), u"roots/list"_s);
        QCOMPARE(wire.messages.first().value(u"id").toInteger(), id);
        QCOMPARE(wire.related.first(), QJsonValue(u"call-7"_s));
        QVERIFY(sent.contains(id));
        QVERIFY(sent.complete(id, RpcReply{QJsonObject{{u"roots"_s, QJsonArray{}}}, std::nullopt}));
        QVERIFY(!sent.complete(id, RpcReply{QJsonObject{}, std::nullopt})); // answered already
        QCOMPARE(replies.size(), 1);
        QVERIFY(replies.first().ok());
        QVERIFY(sent.isEmpty());
    }

    void aCancelTellsTheOtherEndAndAnswersAtOnce()
    {
        Wire wire;
        OutgoingRequests sent(u"host 'h'"_s, std::chrono::seconds(60), wire.writer());
        QList<RpcReply> replies;
        const qint64 id = sent.send(u"sampling/createMessage"_s, "{}", [&](const RpcReply &reply) { replies.append(reply); },
                                    {{}, {}, false, QJsonValue(3), {}});
        QVERIFY(sent.cancel(id, u"the server gave up"_s));
        QCOMPARE(replies.size(), 1);
        QCOMPARE(replies.first().error->code, int(JsonRpc::RequestCancelled));
        const QJsonObject cancelled = wire.messages.last();
        QCOMPARE(cancelled.value(u"method").toString(), u"notifications/cancelled"_s);
        QCOMPARE(cancelled.value(u"params").toObject().value(u"requestId").toInteger(), id);
        QCOMPARE(cancelled.value(u"params").toObject().value(u"reason").toString(), u"the server gave up"_s);
        QCOMPARE(wire.related.last(), QJsonValue(3)); // on the stream the request went on
        QVERIFY(!sent.cancel(id, u"again"_s));
    }

    void aTimeoutNamesThePeerAndCancels()
    {
        Wire wire;
        OutgoingRequests sent(u"host 'slow'"_s, std::chrono::milliseconds(30), wire.writer());
        QList<RpcReply> replies;
        sent.send(u"elicitation/create"_s, "{}", [&](const RpcReply &reply) { replies.append(reply); });
        QTRY_COMPARE(replies.size(), 1);
        QCOMPARE(replies.first().error->code, int(JsonRpc::RequestTimeout));
        QVERIFY2(replies.first().error->message.contains(u"'elicitation/create' to host 'slow' timed out after 30 ms"_s),
                 qPrintable(replies.first().error->message));
        QCOMPARE(wire.messages.last().value(u"method").toString(), u"notifications/cancelled"_s);
    }

    void aHeldRequestDoesNotTimeOutAndGetsItsWholeTimeoutBack()
    {
        Wire wire;
        OutgoingRequests sent(u"server 'slow'"_s, std::chrono::milliseconds(60), wire.writer());
        std::optional<RpcReply> held;
        std::optional<RpcReply> other;
        const qint64 id = sent.send(u"tools/call"_s, "{}", [&](const RpcReply &answer) { held = answer; });
        sent.hold(id);
        sent.hold(id); // two questions of the server at once
        // A request sent after it, and not held, times out first: by then the held one would have.
        sent.send(u"tools/call"_s, "{}", [&](const RpcReply &answer) { other = answer; });
        QTRY_VERIFY(other);
        QVERIFY(!held);
        sent.release(id);
        std::optional<RpcReply> second;
        sent.send(u"ping"_s, {}, [&](const RpcReply &answer) { second = answer; });
        QTRY_VERIFY(second);
        QVERIFY(!held); // one hold is left
        QElapsedTimer released;
        released.start();
        sent.release(id);
        QTRY_VERIFY(held);
        QVERIFY(released.elapsed() >= 55); // the whole timeout again, from the last release
        QCOMPARE(held->error->code, int(JsonRpc::RequestTimeout));
    }

    void failAllAnswersEveryRequestInOrder()
    {
        Wire wire;
        OutgoingRequests sent(u"x"_s, std::chrono::seconds(60), wire.writer());
        QStringList order;
        sent.send(u"a"_s, {}, [&](const RpcReply &reply) { order.append(u"a:"_s + reply.error->message); });
        sent.send(u"b"_s, {}, [&](const RpcReply &reply) { order.append(u"b:"_s + reply.error->message); });
        sent.failAll(JsonRpc::ConnectionClosed, u"gone"_s);
        QCOMPARE(order, (QStringList{u"a:gone"_s, u"b:gone"_s}));
        QVERIFY(sent.isEmpty());
    }

    void progressGoesToTheRequestThatAskedForIt()
    {
        Wire wire;
        OutgoingRequests sent(u"x"_s, std::chrono::seconds(60), wire.writer());
        QList<double> seen;
        const qint64 id = sent.send(u"tools/call"_s, {}, [](const RpcReply &) {},
                                    {[&](const ProgressUpdate &update) { seen.append(update.progress); }, {}, false, {}, {}});
        QVERIFY(sent.progress(QJsonValue(id), {0.5, std::nullopt, {}}));
        QVERIFY(!sent.progress(QJsonValue(id + 1), {0.5, std::nullopt, {}}));
        QCOMPARE(seen, QList<double>{0.5});
    }

    void originsAreTheLiveClientsOnce()
    {
        Wire wire;
        OutgoingRequests sent(u"x"_s, std::chrono::seconds(60), wire.writer());
        auto first = std::make_shared<TestClient>(u"first"_s);
        auto second = std::make_shared<TestClient>(u"second"_s);
        const qint64 a = sent.send(u"tools/call"_s, {}, [](const RpcReply &) {}, {{}, {}, false, {}, first});
        sent.send(u"tools/call"_s, {}, [](const RpcReply &) {}, {{}, {}, false, {}, first});
        sent.send(u"tools/call"_s, {}, [](const RpcReply &) {}, {{}, {}, false, {}, second});
        sent.send(u"ping"_s, {}, [](const RpcReply &) {});
        QCOMPARE(sent.origins().size(), size_t(2));
        QCOMPARE(sent.origin(a), std::shared_ptr<ClientSide>(first));
        second.reset(); // a client that left is nobody's to answer
        QCOMPARE(sent.origins().size(), size_t(1));
        QCOMPARE(sent.origins().front()->clientLabel(), u"first"_s);
    }

    void aPlainReplyIsTakenAsText()
    {
        Wire wire;
        OutgoingRequests sent(u"x"_s, std::chrono::seconds(60), wire.writer());
        std::optional<RpcReply> answer;
        const qint64 id = sent.send(u"tools/call"_s, {}, [&](const RpcReply &reply) { answer = reply; },
                                    {{}, {}, true, {}, {}});
        const auto judge = [](const JsonMembersText &, RpcReply *reply) {
            reply->textResultIsError = true;
            return true;
        };
        QVERIFY(!sent.takeReplyText(R"({"jsonrpc":"2.0","id":999,"result":{"content":[]}})", judge));
        QVERIFY(!sent.takeReplyText(R"({"jsonrpc":"2.0","id":)" + QByteArray::number(id) + R"(,"error":{"code":1}})", judge));
        QVERIFY(sent.takeReplyText(R"({"result":{"content":[]},"jsonrpc":"2.0","id":)" + QByteArray::number(id) + "}", judge));
        QVERIFY(answer);
        QVERIFY(answer->result.isUndefined());
        QCOMPARE(answer->resultJson, QByteArray(R"({"content":[]})"));
        QVERIFY(answer->textResultIsError);
    }

    void incomingRequestsRefuseAReusedIdAndProgressOnlyGrows()
    {
        IncomingRequests<QString> received;
        const QJsonValue id(5);
        QVERIFY(received.begin(id, requestIdKey(id), u"work"_s, QJsonValue(u"t"_s)));
        QVERIFY(!received.begin(id, requestIdKey(id), u"again"_s));
        QVERIFY(received.begin(QJsonValue(u"5"_s), requestIdKey(QJsonValue(u"5"_s)), u"string id"_s));
        QVERIFY(received.progressFor(requestIdKey(id), {1, std::nullopt, {}}));
        QVERIFY(!received.progressFor(requestIdKey(id), {1, std::nullopt, {}}));
        QCOMPARE(received.progressFor(requestIdKey(id), {2, 4.0, {}})->value(u"progressToken"), QJsonValue(u"t"_s));
        QVERIFY(!received.progressFor(requestIdKey(QJsonValue(u"5"_s)), {1, std::nullopt, {}})); // asked for none
        QCOMPARE(received.take(requestIdKey(id))->work, u"work"_s);
        QVERIFY(!received.take(requestIdKey(id)));
        QCOMPARE(received.size(), 1);
        QVERIFY(reusedRequestIdMessage(id).contains(u"the id 5 belongs to a request still in flight"_s));
    }

    void clientFeatureRequestsAreJudged_data()
    {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QJsonObject>("params");
        QTest::addColumn<QString>("wrong");
        QTest::newRow("sampling") << u"sampling/createMessage"_s
                                  << QJsonObject{{u"messages"_s, QJsonArray{}}, {u"maxTokens"_s, 10}} << QString();
        QTest::newRow("sampling without messages") << u"sampling/createMessage"_s
                                                   << QJsonObject{{u"maxTokens"_s, 10}}
                                                   << u"\"messages\" is missing or not an array"_s;
        QTest::newRow("sampling without maxTokens") << u"sampling/createMessage"_s
                                                    << QJsonObject{{u"messages"_s, QJsonArray{}}}
                                                    << u"\"maxTokens\" is missing or not a number"_s;
        QTest::newRow("form") << u"elicitation/create"_s
                              << QJsonObject{{u"message"_s, u"?"_s}, {u"requestedSchema"_s, QJsonObject{}}} << QString();
        QTest::newRow("form without schema") << u"elicitation/create"_s << QJsonObject{{u"message"_s, u"?"_s}}
                                             << u"\"requestedSchema\" is missing or not an object, as form mode needs"_s;
        QTest::newRow("url") << u"elicitation/create"_s
                             << QJsonObject{{u"mode"_s, u"url"_s}, {u"message"_s, u"?"_s},
                                            {u"url"_s, u"https://x"_s}, {u"elicitationId"_s, u"e1"_s}}
                             << QString();
        QTest::newRow("url without id") << u"elicitation/create"_s
                                        << QJsonObject{{u"mode"_s, u"url"_s}, {u"message"_s, u"?"_s},
                                                       {u"url"_s, u"https://x"_s}}
                                        << u"\"elicitationId\" is missing or not a string, as URL mode needs"_s;
        QTest::newRow("unknown mode") << u"elicitation/create"_s
                                      << QJsonObject{{u"mode"_s, u"telepathy"_s}, {u"message"_s, u"?"_s}}
                                      << u"\"mode\" is \"telepathy\"; it is \"form\" or \"url\""_s;
        QTest::newRow("roots") << u"roots/list"_s << QJsonObject{} << QString();
    }

    void clientFeatureRequestsAreJudged()
    {
        QFETCH(QString, method);
        QFETCH(QJsonObject, params);
        QFETCH(QString, wrong);
        QVERIFY(isClientFeatureRequest(method));
        QCOMPARE(malformedServerRequest(method, params).value_or(QString()), wrong);
    }

    void declaredFeaturesCoverTheirRequests()
    {
        const QJsonObject all = clientFeatureCapabilities();
        const QJsonObject url{{u"mode"_s, u"url"_s}};
        QVERIFY(declaresClientFeature(all, u"sampling/createMessage", {}));
        QVERIFY(declaresClientFeature(all, u"elicitation/create", {}));
        QVERIFY(declaresClientFeature(all, u"elicitation/create", url));
        QVERIFY(declaresClientFeature(all, u"roots/list", {}));
        QVERIFY(!declaresClientFeature({}, u"roots/list", {}));
        // An elicitation capability that names no mode is form mode's alone.
        const QJsonObject formOnly{{u"elicitation"_s, QJsonObject{}}};
        QVERIFY(declaresClientFeature(formOnly, u"elicitation/create", {}));
        QVERIFY(!declaresClientFeature(formOnly, u"elicitation/create", url));
        QVERIFY(!isClientFeatureRequest(u"tools/call"));
    }

    void aRelatedTaskIsReadFromMeta()
    {
        const QJsonObject params{
            {u"_meta"_s, QJsonObject{{u"io.modelcontextprotocol/related-task"_s, QJsonObject{{u"taskId"_s, u"t-1"_s}}}}}};
        QCOMPARE(relatedTaskId(params), u"t-1"_s);
        QCOMPARE(relatedTaskId({}), QString());
    }
};

QTEST_GUILESS_MAIN(TestJsonRpcPeer)
#include "tst_jsonrpcpeer.moc"
