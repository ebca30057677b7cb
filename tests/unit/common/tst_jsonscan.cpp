// The scan that reads a JSON-RPC message's members without building an object: every text it
// takes, Qt's parser takes too, with the same members; what it refuses is only ever left to the
// parser (tst_fuzzcorpus and the stdio-lines fuzzer hold it to that on many more inputs).
#include "common/jsonscan.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Tether;

class TestJsonScan final : public QObject
{
    Q_OBJECT

private slots:
    void scan_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("taken");
        QTest::newRow("a reply") << QByteArray(R"({"jsonrpc":"2.0","id":7,"result":{"content":[]}})") << true;
        QTest::newRow("space around and inside") << QByteArray(" \r\n{ \"a\" :\t1 , \"b\":[ ] }\n") << true;
        QTest::newRow("empty object") << QByteArray("{}") << true;
        QTest::newRow("escapes in values") << QByteArray("{\"a\":\"q\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\"}") << true;
        QTest::newRow("UTF-8 of every length") << QByteArray("{\"a\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}") << true;
        QTest::newRow("numbers") << QByteArray(R"({"a":[0,-0,1.5,-2e10,3E+2,4e-02,123456789]})") << true;
        QTest::newRow("words") << QByteArray(R"({"a":[true,false,null]})") << true;
        QTest::newRow("nested") << QByteArray(R"({"a":{"b":{"c":[[{}]]}}})") << true;
        QTest::newRow("a key twice nested") << QByteArray(R"({"a":{"k":1,"k":2}})") << true;

        QTest::newRow("not an object") << QByteArray("[1]") << false;
        QTest::newRow("a key twice") << QByteArray(R"({"a":1,"a":2})") << false;
        QTest::newRow("a key with escapes") << QByteArray(R"({"\u0061":1})") << false;
        QTest::newRow("trailing comma") << QByteArray(R"({"a":1,})") << false;
        QTest::newRow("garbage after") << QByteArray(R"({"a":1} x)") << false;
        QTest::newRow("two objects") << QByteArray(R"({"a":1}{"b":2})") << false;
        QTest::newRow("unclosed") << QByteArray(R"({"a":[1,2})") << false;
        QTest::newRow("a control character") << QByteArray("{\"a\":\"x\ty\"}") << false;
        QTest::newRow("a bad escape") << QByteArray(R"({"a":"\x"})") << false;
        QTest::newRow("a short unicode escape") << QByteArray(R"({"a":"\u12"})") << false;
        QTest::newRow("invalid UTF-8") << QByteArray("{\"a\":\"\xc3\"}") << false;
        QTest::newRow("an overlong form") << QByteArray("{\"a\":\"\xc0\xaf\"}") << false;
        QTest::newRow("a surrogate in UTF-8") << QByteArray("{\"a\":\"\xed\xa0\x80\"}") << false;
        QTest::newRow("a leading zero") << QByteArray(R"({"a":01})") << false;
        QTest::newRow("a bare dot") << QByteArray(R"({"a":1.})") << false;
        QTest::newRow("plus sign") << QByteArray(R"({"a":+1})") << false;
        QTest::newRow("a word cut short") << QByteArray(R"({"a":tru})") << false;
        QTest::newRow("single quotes") << QByteArray(R"({'a':1})") << false;
        QTest::newRow("a NUL") << QByteArray("{\"a\":1\0}", 8) << false;
        QTest::newRow("a huge exponent, left to the parser") << QByteArray(R"({"a":1e999})") << false;
        QTest::newRow("too deep, left to the parser") << QByteArray(70, '[').prepend("{\"a\":") + QByteArray(70, ']') + '}'
                                                      << false;
    }

    void scan()
    {
        QFETCH(QByteArray, text);
        QFETCH(bool, taken);
        const std::optional<JsonMembersText> members = validJsonObjectMembers(text);
        QCOMPARE(members.has_value(), taken);
        if (!members)
            return;
        QJsonParseError error;
        const QJsonDocument parsed = QJsonDocument::fromJson(text, &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        const QJsonObject object = parsed.object();
        QCOMPARE(qsizetype(object.size()), members->size());
        for (const JsonMemberText &member : *members) {
            const QJsonValue value = QJsonDocument::fromJson("[" + member.value.toByteArray() + "]").array().first();
            QCOMPARE(value, object.value(QString::fromUtf8(member.key)));
        }
        // A member value that is an object is walked again without a second check.
        for (const JsonMemberText &member : *members) {
            if (member.value.startsWith('{'))
                QCOMPARE(checkedJsonObjectMembers(member.value).has_value(), !member.value.contains("\"k\""));
        }
    }

    void readsAMembersObjectInTheSamePass_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("taken");
        QTest::addColumn<int>("nestedMembers");
        QTest::newRow("a reply's result") << QByteArray(R"({"jsonrpc":"2.0","id":7,"result":{"content":[],"isError":false}})") << true << 2;
        QTest::newRow("an empty result") << QByteArray(R"({"result":{}})") << true << 0;
        QTest::newRow("no result") << QByteArray(R"({"a":1})") << true << 0;
        QTest::newRow("a result that is no object") << QByteArray(R"({"result":[{"a":1}]})") << true << 0;
        QTest::newRow("only the top level's") << QByteArray(R"({"a":{"result":{"x":1}}})") << true << 0;
        QTest::newRow("a key twice inside") << QByteArray(R"({"result":{"k":1,"k":2}})") << false << 0;
        QTest::newRow("a key with escapes inside") << QByteArray(R"({"result":{"\u006b":1}})") << false << 0;
        QTest::newRow("refused after the result") << QByteArray(R"({"result":{"a":1},})") << false << 0;
    }

    void readsAMembersObjectInTheSamePass()
    {
        QFETCH(QByteArray, text);
        QFETCH(bool, taken);
        QFETCH(int, nestedMembers);
        JsonMembersText nested;
        nested.append({"left", "over"}); // whatever it held is gone
        const std::optional<JsonMembersText> members = validJsonObjectMembers(text, "result", &nested);
        QCOMPARE(members.has_value(), taken);
        QCOMPARE(nested.size(), qsizetype(nestedMembers));
        if (!members)
            return;
        QCOMPARE(members->size(), validJsonObjectMembers(text)->size());
        const QJsonObject result = QJsonDocument::fromJson(text).object().value(QLatin1StringView("result")).toObject();
        for (const JsonMemberText &member : std::as_const(nested)) {
            const QJsonValue value = QJsonDocument::fromJson("[" + member.value.toByteArray() + "]").array().first();
            QCOMPARE(value, result.value(QString::fromUtf8(member.key)));
        }
    }

    void values()
    {
        const std::optional<JsonMembersText> members =
            validJsonObjectMembers("{\"id\":-42,\"big\":1234567890123456,\"name\":\"demo__echo\",\"esc\":\"a\\\"b\",\"f\":1.5}");
        QVERIFY(members.has_value());
        QCOMPARE(jsonInteger(memberValue(*members, "id")), std::optional<qint64>(-42));
        QCOMPARE(jsonInteger(memberValue(*members, "big")), std::nullopt); // beyond 15 digits
        QCOMPARE(jsonInteger(memberValue(*members, "f")), std::nullopt);
        QCOMPARE(jsonInteger(memberValue(*members, "name")), std::nullopt);
        QCOMPARE(plainJsonString(memberValue(*members, "name")), std::optional<QByteArrayView>("demo__echo"));
        QCOMPARE(plainJsonString(memberValue(*members, "esc")), std::nullopt);
        QCOMPARE(plainJsonString(memberValue(*members, "id")), std::nullopt);
        QVERIFY(memberValue(*members, "missing").isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestJsonScan)
#include "tst_jsonscan.moc"
