#include "transport/bearerchallenge.h"

#include <QTest>

using namespace Tether;
using namespace Qt::StringLiterals;

// "error|error_description|scope|resource_metadata" per Bearer challenge, so that a whole
// header's outcome compares as one list.
static QStringList render(const QList<BearerChallenge> &challenges)
{
    QStringList rendered;
    for (const BearerChallenge &challenge : challenges)
        rendered.append(challenge.error + u'|' + challenge.errorDescription + u'|' + challenge.scope + u'|'
                        + challenge.resourceMetadata.toString());
    return rendered;
}

class TestBearerChallenge final : public QObject
{
    Q_OBJECT

private slots:
    void parses_data()
    {
        QTest::addColumn<QByteArrayList>("headers");
        QTest::addColumn<QStringList>("expected");

        QTest::newRow("the SDK's 401") << QByteArrayList{
            "Bearer error=\"invalid_token\", error_description=\"Missing Authorization header\", "
            "resource_metadata=\"http://127.0.0.1:4000/.well-known/oauth-protected-resource/mcp\", scope=\"mcp:read\""}
            << QStringList{u"invalid_token|Missing Authorization header|mcp:read|"
                           "http://127.0.0.1:4000/.well-known/oauth-protected-resource/mcp"_s};
        QTest::newRow("bare scheme") << QByteArrayList{"Bearer"} << QStringList{u"|||"_s};
        QTest::newRow("scheme and names in any case")
            << QByteArrayList{"bEARER Scope=\"a b\", ERROR=insufficient_scope"}
            << QStringList{u"insufficient_scope||a b|"_s};
        QTest::newRow("token values and spaces around =")
            << QByteArrayList{"Bearer error = invalid_token ,scope=files.read"}
            << QStringList{u"invalid_token||files.read|"_s};
        QTest::newRow("token value with a character no token holds")
            << QByteArrayList{"Bearer error=invalid_token, scope=files:read"} << QStringList{u"invalid_token|||"_s};
        QTest::newRow("commas and escapes inside quotes")
            << QByteArrayList{"Bearer error_description=\"a, b=\\\"c\\\" and \\\\ d\", scope=\"x,y\""}
            << QStringList{u"|a, b=\"c\" and \\ d|x,y|"_s};
        QTest::newRow("other schemes before and after, one header")
            << QByteArrayList{"Basic realm=\"a, error=x, Bearer y\", Bearer error=\"invalid_token\", DPoP algs=\"ES256\""}
            << QStringList{u"invalid_token|||"_s};
        QTest::newRow("the RFC 9110 example") << QByteArrayList{
            "Newauth realm=\"apps\", type=1, title=\"Login to \\\"apps\\\"\", Basic realm=\"simple\""} << QStringList{};
        QTest::newRow("token68 before the Bearer challenge")
            << QByteArrayList{"Negotiate YIIBhwYGKwYBBQUCoIIBezCCAXeg==, Bearer scope=\"s\""}
            << QStringList{u"||s|"_s};
        QTest::newRow("Bearer with token68 only") << QByteArrayList{"Bearer abc.def~=="} << QStringList{u"|||"_s};
        QTest::newRow("schemes without parameters in a row")
            << QByteArrayList{"Basic, Bearer, Digest"} << QStringList{u"|||"_s};
        QTest::newRow("empty list elements") << QByteArrayList{", ,Bearer ,, scope=\"s\" ,,"}
                                             << QStringList{u"||s|"_s};
        QTest::newRow("one challenge per header, two Bearer")
            << QByteArrayList{"Basic realm=\"r\"", "Bearer error=\"invalid_token\"", "Bearer scope=\"admin\""}
            << QStringList{u"invalid_token|||"_s, u"||admin|"_s};
        QTest::newRow("a parameter given twice counts as first given")
            << QByteArrayList{"Bearer scope=\"first\", scope=\"second\""} << QStringList{u"||first|"_s};
        QTest::newRow("unknown parameters ignored")
            << QByteArrayList{"Bearer realm=\"example\", foo=bar, error=\"invalid_token\""}
            << QStringList{u"invalid_token|||"_s};
        QTest::newRow("UTF-8 in a quoted string")
            << QByteArrayList{"Bearer error_description=\"caf\xc3\xa9\""} << QStringList{u"|café||"_s};
        QTest::newRow("resource_metadata that is not an absolute http(s) url")
            << QByteArrayList{"Bearer resource_metadata=\"/relative\", scope=\"s\"",
                              "Bearer resource_metadata=\"ftp://host/x\"", "Bearer resource_metadata=\"http://\""}
            << QStringList{u"||s|"_s, u"|||"_s, u"|||"_s};
        QTest::newRow("unterminated quote keeps what came before")
            << QByteArrayList{"Bearer scope=\"s\", error=\"invalid"} << QStringList{u"||s|"_s};
        QTest::newRow("broken header, next header still read")
            << QByteArrayList{"Bearer scope=\"s\" junk, Bearer error=\"x\"", "Bearer error=\"y\""}
            << QStringList{u"|||"_s, u"y|||"_s};
        QTest::newRow("parameter without value") << QByteArrayList{"Bearer scope=, error=\"x\""}
                                                 << QStringList{u"|||"_s};
        QTest::newRow("no challenge at all") << QByteArrayList{"", "   ", "=", "\"Bearer\""} << QStringList{};
    }

    void parses()
    {
        QFETCH(QByteArrayList, headers);
        QFETCH(QStringList, expected);
        QCOMPARE(render(parseBearerChallenges(headers)), expected);
    }
};

QTEST_GUILESS_MAIN(TestBearerChallenge)
#include "tst_bearerchallenge.moc"
