#include "common/displaytext.h"
#include "common/jsontext.h"
#include "protocol/jsonrpc.h"

#include <QJsonDocument>
#include <QTest>

#include <limits>

using namespace Qt::StringLiterals;
using namespace Tether;
using JsonRpc::MessageKind;

Q_DECLARE_METATYPE(JsonRpc::MessageKind)

static QJsonObject parse(const char *json)
{
    return QJsonDocument::fromJson(json).object();
}

class TestJsonRpc final : public QObject
{
    Q_OBJECT

private slots:
    void classifies_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<MessageKind>("kind");

        QTest::newRow("request") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"ping"})") << MessageKind::Request;
        QTest::newRow("request with string id") << QByteArray(R"({"jsonrpc":"2.0","id":"a","method":"ping","params":{}})")
                                                << MessageKind::Request;
        QTest::newRow("notification") << QByteArray(R"({"jsonrpc":"2.0","method":"notifications/initialized"})")
                                      << MessageKind::Notification;
        QTest::newRow("response") << QByteArray(R"({"jsonrpc":"2.0","id":3,"result":{}})") << MessageKind::Response;
        QTest::newRow("null result is a response") << QByteArray(R"({"jsonrpc":"2.0","id":3,"result":null})")
                                                    << MessageKind::Response;
        QTest::newRow("error response") << QByteArray(R"({"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"x"}})")
                                        << MessageKind::ErrorResponse;
        QTest::newRow("error with null id") << QByteArray(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}})")
                                            << MessageKind::ErrorResponse;
        QTest::newRow("no version") << QByteArray(R"({"id":1,"method":"ping"})") << MessageKind::Invalid;
        QTest::newRow("wrong version") << QByteArray(R"({"jsonrpc":"1.0","id":1,"method":"ping"})") << MessageKind::Invalid;
        QTest::newRow("only version") << QByteArray(R"({"jsonrpc":"2.0"})") << MessageKind::Invalid;
        QTest::newRow("method not a string") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":5})") << MessageKind::Invalid;
        QTest::newRow("fractional id") << QByteArray(R"({"jsonrpc":"2.0","id":1.5,"method":"x"})") << MessageKind::Invalid;
        QTest::newRow("object id") << QByteArray(R"({"jsonrpc":"2.0","id":{},"result":{}})") << MessageKind::Invalid;
        QTest::newRow("params not an object") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"x","params":[1]})")
                                              << MessageKind::Invalid;
        QTest::newRow("response without result or error") << QByteArray(R"({"jsonrpc":"2.0","id":1})")
                                                          << MessageKind::Invalid;
        QTest::newRow("error not an object") << QByteArray(R"({"jsonrpc":"2.0","id":1,"error":"bad"})")
                                             << MessageKind::Invalid;
    }

    void classifies()
    {
        QFETCH(QByteArray, json);
        QFETCH(MessageKind, kind);
        const JsonRpc::Message message = JsonRpc::classify(parse(json.constData()));
        QCOMPARE(message.kind, kind);
        QCOMPARE(message.invalidReason.isEmpty(), kind != MessageKind::Invalid);
    }

    void readsFields()
    {
        const auto request = JsonRpc::classify(parse(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}})"));
        QCOMPARE(request.id.toInteger(), 7);
        QCOMPARE(request.method, u"tools/call"_s);
        QCOMPARE(request.params.value(u"name").toString(), u"x"_s);

        const auto error = JsonRpc::classify(parse(R"({"jsonrpc":"2.0","id":"k","error":{"code":-32602,"message":"bad","data":[1]}})"));
        QCOMPARE(error.id.toString(), u"k"_s);
        QCOMPARE(error.error.code, -32602);
        QCOMPARE(error.error.message, u"bad"_s);
        QVERIFY(error.error.data.isArray());
    }

    void decodesPayloads_data()
    {
        QTest::addColumn<QByteArray>("payload");
        QTest::addColumn<int>("messages");
        QTest::addColumn<QString>("errorPart");

        QTest::newRow("object") << QByteArray(R"({"jsonrpc":"2.0","method":"a"})") << 1 << QString();
        QTest::newRow("batch") << QByteArray(R"([{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}])") << 2
                               << QString();
        QTest::newRow("text") << QByteArray("this is not json") << 0 << u"not JSON"_s;
        QTest::newRow("truncated") << QByteArray(R"({"jsonrpc":"2.0",)") << 0 << u"not JSON"_s;
        QTest::newRow("number array") << QByteArray("[1,2,3]") << 0 << u"no message object"_s;
        QTest::newRow("invalid utf-8") << QByteArray("{\"a\":\"\xff\xfe\"}") << 0 << u"not JSON"_s;
    }

    void decodesPayloads()
    {
        QFETCH(QByteArray, payload);
        QFETCH(int, messages);
        QFETCH(QString, errorPart);
        const JsonRpc::DecodedPayload decoded = JsonRpc::decodePayload(payload);
        QCOMPARE(decoded.messages.size(), messages);
        if (errorPart.isEmpty())
            QCOMPARE(decoded.error, QString());
        else
            QVERIFY2(decoded.error.contains(errorPart), qPrintable(decoded.error));
    }

    void recoversTheIdOfADamagedReply_data()
    {
        QTest::addColumn<QByteArray>("payload");
        QTest::addColumn<QJsonValue>("id"); // undefined: none can be told

        const QByteArray deep = QByteArray(5000, '[') + QByteArray(5000, ']');
        const QJsonValue none(QJsonValue::Undefined);
        QTest::newRow("invalid utf-8") << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"text\":\"caf\xe9\"}}")
                                       << QJsonValue(7);
        QTest::newRow("nul after it") << QByteArray(QByteArray(R"({"id": "call-1" ,"result":{"text":"a"}})") + '\0')
                             << QJsonValue(u"call-1"_s);
        QTest::newRow("too deep, id after it") << QByteArray(R"({"jsonrpc":"2.0","result":{"a":)" + deep + R"(},"id":12})")
                                               << QJsonValue(12);
        QTest::newRow("cut short") << QByteArray(R"({"jsonrpc":"2.0","id":-3,"result":{"content":[)") << QJsonValue(-3);
        QTest::newRow("escaped quotes before") << QByteArray("{\"result\":{\"t\":\"say \\\"id\\\": 1\"},\"id\":2,") << QJsonValue(2);
        QTest::newRow("nested id only") << QByteArray(R"({"jsonrpc":"2.0","result":{"id":5,"x":tru}})") << none;
        QTest::newRow("request of the server") << QByteArray(R"({"jsonrpc":"2.0","id":4,"method":"ping","params":{"x":tru}})")
                                               << none;
        QTest::newRow("method after the damage") << QByteArray(R"({"id":4,"params":{"x":tru},"method":"ping"})") << none;
        QTest::newRow("id twice") << QByteArray(R"({"id":4,"id":5,"result":tru})") << none;
        QTest::newRow("fractional id") << QByteArray(R"({"id":4.5,"result":tru})") << none;
        QTest::newRow("object id") << QByteArray(R"({"id":{"n":4},"result":tru})") << none;
        QTest::newRow("damaged string id") << QByteArray("{\"id\":\"\xff\",\"result\":{}}") << none;
        QTest::newRow("not an object") << QByteArray(R"([{"id":4,"result":tru}])") << none;
        QTest::newRow("text") << QByteArray("id: 4") << none;
    }

    void recoversTheIdOfADamagedReply()
    {
        QFETCH(QByteArray, payload);
        QFETCH(QJsonValue, id);
        const JsonRpc::DecodedPayload decoded = JsonRpc::decodePayload(payload);
        QVERIFY(!decoded.error.isEmpty());
        QCOMPARE(decoded.damagedReplyId, id);
    }

    void damagedReplyErrorSaysWhatCame()
    {
        const JsonRpc::Message answer = JsonRpc::classify(
            JsonRpc::makeDamagedReplyError(7, u"a line on stdout that is not JSON (illegal UTF8 string)"_s));
        QCOMPARE(answer.kind, MessageKind::ErrorResponse);
        QCOMPARE(answer.id, QJsonValue(7));
        QCOMPARE(answer.error.code, int(JsonRpc::InvalidReply));
        QVERIFY2(answer.error.message.contains(u"answered with a line on stdout that is not JSON (illegal UTF8 string)"_s),
                 qPrintable(answer.error.message));
    }

    void excerptIsShortAndOneLine()
    {
        QCOMPARE(excerpt("abc"), u"'abc'"_s);
        QCOMPARE(excerpt("a\nb"), u"'a b'"_s);
        const QString longExcerpt = excerpt(QByteArray(1000, 'x'), 10);
        QVERIFY(longExcerpt.startsWith(u"'xxxxxxxxxx…'"_s));
        QVERIFY(longExcerpt.contains(u"1000 bytes"_s));
    }

    void buildsMessages()
    {
        QCOMPARE(JsonRpc::serialize(JsonRpc::makeRequest(1, u"ping"_s)), QByteArray(R"({"id":1,"jsonrpc":"2.0","method":"ping"})"));
        QCOMPARE(JsonRpc::serialize(JsonRpc::makeNotification(u"n"_s, {{u"a"_s, 1}})),
                 QByteArray(R"({"jsonrpc":"2.0","method":"n","params":{"a":1}})"));
        QCOMPARE(JsonRpc::serialize(JsonRpc::makeError(u"x"_s, -32601, u"nope"_s)),
                 QByteArray(R"({"error":{"code":-32601,"message":"nope"},"id":"x","jsonrpc":"2.0"})"));
    }

    void requestsWrittenAroundTheirParamsAreWhatTheWriterWrites_data()
    {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QJsonObject>("params");
        QTest::newRow("no params") << u"ping"_s << QJsonObject{};
        QTest::newRow("tool call") << u"tools/call"_s
                                   << QJsonObject{{u"name"_s, u"echo"_s}, {u"arguments"_s, QJsonObject{{u"message"_s, u"hi"_s}}}};
        QTest::newRow("a method to escape") << u"odd\"method\\\n\t\u0001é✓"_s << QJsonObject{{u"a"_s, 1}};
    }

    void requestsWrittenAroundTheirParamsAreWhatTheWriterWrites()
    {
        QFETCH(QString, method);
        QFETCH(QJsonObject, params);
        const QByteArray written = params.isEmpty() ? QByteArray() : JsonRpc::serialize(params);
        QCOMPARE(JsonRpc::serializeRequest(42, method, written), JsonRpc::serialize(JsonRpc::makeRequest(42, method, params)));
    }

    void stringsAreWrittenAsTheWriterWritesThem_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("plain") << u"echo"_s;
        QTest::newRow("empty") << QString();
        QTest::newRow("quotes and backslashes") << u"say \"hi\" \\ bye"_s;
        QTest::newRow("short escapes") << u"\b\f\n\r\t"_s;
        QTest::newRow("other control characters") << u"\u0000\u0001\u001f\u007f"_s;
        QTest::newRow("beyond ASCII") << u"grüße ✓ 😀"_s;
        QTest::newRow("slash") << u"a/b"_s;
    }

    void stringsAreWrittenAsTheWriterWritesThem()
    {
        QFETCH(QString, text);
        QByteArray alone;
        appendJsonString(alone, text);
        QCOMPARE(alone, jsonText(text).toUtf8());
        // Appended, it keeps what the buffer held.
        QByteArray written("{\"name\":");
        written.reserve(64);
        appendJsonString(written, text);
        QCOMPARE(written, "{\"name\":" + jsonText(text).toUtf8());
    }

    void integersAreWrittenAsTheWriterWritesThem_data()
    {
        QTest::addColumn<qint64>("value");
        QTest::newRow("zero") << qint64(0);
        QTest::newRow("one digit") << qint64(7);
        QTest::newRow("negative") << qint64(-42);
        QTest::newRow("the largest exact double") << (qint64(1) << 53);
        QTest::newRow("the largest") << std::numeric_limits<qint64>::max();
        QTest::newRow("the smallest") << std::numeric_limits<qint64>::min();
    }

    void integersAreWrittenAsTheWriterWritesThem()
    {
        QFETCH(qint64, value);
        QByteArray written("\"id\":");
        appendInteger(written, value);
        QCOMPARE(written, "\"id\":" + QByteArray::number(value));
        if (qAbs(double(value)) <= double(qint64(1) << 53)) {
            QCOMPARE(JsonRpc::serializeRequest(value, u"ping"_s, {}),
                     JsonRpc::serialize(JsonRpc::makeRequest(value, u"ping"_s, {})));
        }
    }

    // Plain string literals: moc does not read raw ones.
    void findsTheTextOfAMember_data()
    {
        QTest::addColumn<QByteArray>("object");
        QTest::addColumn<QByteArray>("expected");
        QTest::addColumn<bool>("found");
        QTest::newRow("an object") << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}") << QByteArray("{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}") << true;
        QTest::newRow("spaces around") << QByteArray(" { \"id\" : 1 ,\n \"result\" :\t[1, {\"a\": [2]}] } ") << QByteArray("[1, {\"a\": [2]}]") << true;
        QTest::newRow("a scalar, last") << QByteArray("{\"a\":\"}\",\"result\":-1.5e3}") << QByteArray("-1.5e3") << true;
        QTest::newRow("brackets and quotes in strings") << QByteArray("{\"x\":\"a\\\"}]{[\",\"result\":{\"t\":\"\\\\\\\"}\"}}") << QByteArray("{\"t\":\"\\\\\\\"}\"}") << true;
        QTest::newRow("the name nested only") << QByteArray("{\"error\":{\"result\":1}}") << QByteArray("") << false;
        QTest::newRow("written twice") << QByteArray("{\"result\":1,\"result\":2}") << QByteArray("") << false;
        QTest::newRow("a key with escapes") << QByteArray("{\"res\\u0075lt\":1,\"result\":2}") << QByteArray("") << false;
        QTest::newRow("not an object") << QByteArray("[{\"result\":1}]") << QByteArray("") << false;
        QTest::newRow("cut short") << QByteArray("{\"result\":{\"a\":1") << QByteArray("") << false;
        QTest::newRow("empty") << QByteArray("") << QByteArray("") << false;
    }

    void findsTheTextOfAMember()
    {
        QFETCH(QByteArray, object);
        QFETCH(QByteArray, expected);
        QFETCH(bool, found);
        const std::optional<QByteArrayView> text = jsonMemberText(object, "result"_L1);
        QCOMPARE(text.has_value(), found);
        if (found)
            QCOMPARE(text->toByteArray(), expected);
    }

    void keepsTheTextOfALoneMessage()
    {
        const QByteArray line = R"({"jsonrpc":"2.0","id":1,"result":{}})";
        QCOMPARE(JsonRpc::decodePayload(line).text, line);
        QVERIFY(JsonRpc::decodePayload(R"([{"jsonrpc":"2.0","method":"a"}])").text.isEmpty()); // a batch
    }
};

QTEST_APPLESS_MAIN(TestJsonRpc)
#include "tst_jsonrpc.moc"
