#include "protocol/protocolera.h"

#include <QJsonArray>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;

class TestProtocolEra final : public QObject
{
    Q_OBJECT

private slots:
    void erasOfVersions()
    {
        QCOMPARE(eraOfVersion(u"2026-07-28"_s), ProtocolEra::Stateless);
        QCOMPARE(eraOfVersion(u"2025-11-25"_s), ProtocolEra::Handshake);
        QCOMPARE(eraOfVersion(u"2024-11-05"_s), ProtocolEra::Handshake);
        QCOMPARE(eraOfVersion(u"auto"_s), std::nullopt);
        QCOMPARE(spokenProtocolVersions().first(), u"2026-07-28"_s);
    }

    void envelopeKeepsTheCallersMeta()
    {
        const QJsonObject envelope = requestEnvelope(QJsonObject{{u"roots"_s, QJsonObject{}}},
                                                     QJsonObject{{u"name"_s, u"tether"_s}}, u"info"_s);
        const QJsonObject params = withEnvelope(QJsonObject{{u"name"_s, u"echo"_s},
                                                            {u"_meta"_s, QJsonObject{{u"traceparent"_s, u"00-ab"_s}}}},
                                                envelope);
        const QJsonObject meta = params.value(u"_meta").toObject();
        QCOMPARE(meta.value(u"traceparent").toString(), u"00-ab"_s);
        QCOMPARE(meta.value(u"io.modelcontextprotocol/protocolVersion").toString(), u"2026-07-28"_s);
        QCOMPARE(meta.value(u"io.modelcontextprotocol/clientCapabilities").toObject().keys(), QStringList{u"roots"_s});
        QCOMPARE(meta.value(u"io.modelcontextprotocol/clientInfo").toObject().value(u"name").toString(), u"tether"_s);
        QCOMPARE(meta.value(u"io.modelcontextprotocol/logLevel").toString(), u"info"_s);
        QCOMPARE(params.value(u"name").toString(), u"echo"_s);
        QVERIFY(!requestEnvelope({}, {}).contains(u"io.modelcontextprotocol/logLevel"));
    }

    void discoverResults_data()
    {
        QTest::addColumn<QJsonObject>("result");
        QTest::addColumn<QString>("version"); // empty: none
        QTest::addColumn<QString>("error");   // empty: none

        const QJsonObject serverInfo{{u"io.modelcontextprotocol/serverInfo"_s, QJsonObject{{u"name"_s, u"s"_s}, {u"version"_s, u"1"_s}}}};
        QTest::newRow("ours") << QJsonObject{{u"supportedVersions"_s, QJsonArray{u"2027-01-01"_s, u"2026-07-28"_s}},
                                             {u"capabilities"_s, QJsonObject{}}, {u"_meta"_s, serverInfo}}
                              << u"2026-07-28"_s << QString();
        QTest::newRow("none shared") << QJsonObject{{u"supportedVersions"_s, QJsonArray{u"2027-01-01"_s}},
                                                    {u"capabilities"_s, QJsonObject{}}}
                                     << QString() << QString();
        QTest::newRow("no versions") << QJsonObject{{u"capabilities"_s, QJsonObject{}}} << QString()
                                     << u"\"supportedVersions\" is missing or not an array"_s;
        QTest::newRow("no capabilities") << QJsonObject{{u"supportedVersions"_s, QJsonArray{u"2026-07-28"_s}}} << QString()
                                         << u"\"capabilities\" is missing or not an object"_s;
    }

    void discoverResults()
    {
        QFETCH(QJsonObject, result);
        QFETCH(QString, version);
        QFETCH(QString, error);
        QString wrong;
        QStringList theirs;
        const std::optional<ServerIdentity> identity = parseDiscoverResult(result, &wrong, &theirs);
        QCOMPARE(wrong, error);
        QCOMPARE(identity ? identity->protocolVersion : QString(), version);
        if (identity) {
            QCOMPARE(identity->name, u"s"_s);
            QCOMPARE(theirs.size(), 2);
        }
    }

    void unsupportedVersionErrors()
    {
        const JsonRpc::Error refused{JsonRpc::UnsupportedProtocolVersion, u"Unsupported protocol version"_s,
                                     QJsonObject{{u"supported"_s, QJsonArray{u"2026-07-28"_s}}, {u"requested"_s, u"2025-11-25"_s}}};
        QCOMPARE(versionsOfUnsupportedVersionError(refused), QStringList{u"2026-07-28"_s});
        const JsonRpc::Error other{JsonRpc::InvalidParams, u"bad"_s, QJsonObject{{u"supported"_s, QJsonArray{u"x"_s}}}};
        QVERIFY(versionsOfUnsupportedVersionError(other).isEmpty());
    }

    void resultTypes()
    {
        QCOMPARE(resultTypeOf({{u"resultType"_s, u"complete"_s}}), ResultType::Complete);
        QCOMPARE(resultTypeOf({{u"resultType"_s, u"input_required"_s}}), ResultType::InputRequired);
        QCOMPARE(resultTypeOf({{u"content"_s, QJsonArray{}}}), ResultType::Missing);
        QCOMPARE(resultTypeOf({{u"resultType"_s, u"partial"_s}}), ResultType::Unknown);
        QVERIFY(mayRequireInput(u"tools/call"));
        QVERIFY(mayRequireInput(u"resources/read"));
        QVERIFY(!mayRequireInput(u"tools/list"));
    }

    void headerValues_data()
    {
        QTest::addColumn<QString>("value");
        QTest::addColumn<QByteArray>("written");

        QTest::newRow("plain") << u"get_weather"_s << QByteArray("get_weather");
        QTest::newRow("uri") << u"file:///a b.txt"_s << QByteArray("file:///a b.txt");
        QTest::newRow("non-ASCII") << u"café"_s << QByteArray("=?base64?Y2Fmw6k=?=");
        QTest::newRow("leading space") << u" x"_s << QByteArray("=?base64?IHg=?=");
        QTest::newRow("looks encoded") << u"=?base64?x?="_s << QByteArray("=?base64?PT9iYXNlNjQ/eD89?=");
    }

    void headerValues()
    {
        QFETCH(QString, value);
        QFETCH(QByteArray, written);
        QCOMPARE(encodeMcpHeaderValue(value), written);
        QCOMPARE(decodeMcpHeaderValue(written), value);
        QCOMPARE(decodeMcpHeaderValue("=?base64?***?="), std::nullopt);
        QCOMPARE(mcpNameOf(u"resources/read", {{u"uri"_s, value}}), value);
        QCOMPARE(mcpNameOf(u"tools/list", {{u"name"_s, value}}), QString());
    }
};

QTEST_APPLESS_MAIN(TestProtocolEra)
#include "tst_protocolera.moc"
