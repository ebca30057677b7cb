// Two Tether processes sharing one sign-in, as two SignInService objects over the same store,
// index and lock (QLockFile refuses a second holder in the same process as in another): a token
// refused to both is refreshed once at the real authorization server, since a rotated refresh
// token works once, and both then send the same new token.
#include "auth/filesecretstore.h"
#include "auth/signinservice.h"
#include "config/serverconfig.h"

#include "support/authpeers.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

ServerConfig docsAt(const QString &url)
{
    ServerConfig docs;
    docs.name = u"docs"_s;
    docs.transport = TransportKind::StreamableHttp;
    docs.url = url;
    return docs;
}

} // namespace

class TestSignInService final : public QObject
{
    Q_OBJECT

private slots:
    // Sign in again while a sign-in waits for its browser: the first ends, its caller told once,
    // and the second signs in.
    void signingInAgainEndsTheFirst()
    {
        SignInPeers peers;
        QVERIFY(peers.start());
        const ServerConfig docs = docsAt(peers.mcpUrl());
        QTemporaryDir dir;
        SignInService service(std::make_unique<FileSecretStore>(dir.filePath(u"credentials.json"_s)),
                              {dir.filePath(u"signins.json"_s), dir.filePath(u"auth.lock"_s)});

        QList<std::pair<bool, QString>> firstEnded;
        bool browserShown = false;
        service.signIn(
            docs, {}, [&browserShown](const QUrl &) { browserShown = true; }, // nobody follows it
            [&firstEnded](bool ok, const QString &message) { firstEnded.append({ok, message}); });
        QTRY_VERIFY_WITH_TIMEOUT(browserShown, 20000);

        std::unique_ptr<AuthPeer> browser;
        std::optional<std::pair<bool, QString>> secondEnded;
        service.signIn(
            docs, {}, [&browser](const QUrl &authorization) {
                browser = std::make_unique<AuthPeer>(u"oauth-browser.mjs"_s, QStringList{authorization.toString(QUrl::FullyEncoded)});
            },
            [&secondEnded](bool ok, const QString &message) { secondEnded = {ok, message}; });
        QCOMPARE(firstEnded, (QList<std::pair<bool, QString>>{{false, u"sign-in to docs started again"_s}}));
        QTRY_VERIFY_WITH_TIMEOUT(secondEnded.has_value(), 30000);
        QVERIFY2(secondEnded->first, qPrintable(secondEnded->second));
        QCOMPARE(firstEnded.size(), 1);
        QCOMPARE(service.info(docs).state, SignInInfo::State::SignedIn);
    }

    void twoProcessesRefreshOnce()
    {
        SignInPeers peers;
        QVERIFY(peers.start());
        const ServerConfig docs = docsAt(peers.mcpUrl());

        QTemporaryDir dir;
        const SignInService::Paths paths{dir.filePath(u"signins.json"_s), dir.filePath(u"auth.lock"_s)};
        const auto service = [&] {
            return std::make_unique<SignInService>(std::make_unique<FileSecretStore>(dir.filePath(u"credentials.json"_s)),
                                                   paths);
        };
        const std::unique_ptr<SignInService> first = service();
        const std::unique_ptr<SignInService> second = service();

        std::unique_ptr<AuthPeer> browser;
        std::optional<std::pair<bool, QString>> signedIn;
        first->signIn(
            docs, {}, [&browser](const QUrl &authorization) {
                browser = std::make_unique<AuthPeer>(u"oauth-browser.mjs"_s, QStringList{authorization.toString(QUrl::FullyEncoded)});
            },
            [&signedIn](bool ok, const QString &message) { signedIn = {ok, message}; });
        QTRY_VERIFY_WITH_TIMEOUT(signedIn.has_value(), 30000);
        QVERIFY2(signedIn->first, qPrintable(signedIn->second));

        const std::shared_ptr<ServerCredentials> firstCredentials = first->credentialsFor(docs);
        const std::shared_ptr<ServerCredentials> secondCredentials = second->credentialsFor(docs);
        const QByteArray signedInWith = firstCredentials->authorization();
        QVERIFY(signedInWith.startsWith("Bearer "));
        // The second reads what the first stored.
        QTRY_COMPARE(secondCredentials->authorization(), signedInWith);

        const auto refreshes = [&peers] {
            const QList<QJsonObject> &lines = peers.authServer->lines;
            return std::count_if(lines.begin(), lines.end(), [](const QJsonObject &line) {
                return line.value(u"grant_type"_s) == u"refresh_token"_s;
            });
        };
        QCOMPARE(refreshes(), 0);
        // The server refuses the token to both at once.
        QList<ServerCredentials::Renewal> renewals;
        const auto collect = [&renewals](ServerCredentials::Renewal renewal, const QString &) { renewals.append(renewal); };
        BearerChallenge expired;
        expired.status = 401;
        expired.error = u"invalid_token"_s;
        firstCredentials->renew(expired, signedInWith, collect);
        secondCredentials->renew(expired, signedInWith, collect);
        QTRY_COMPARE_WITH_TIMEOUT(renewals.size(), 2, 30000);
        QCOMPARE(renewals, (QList<ServerCredentials::Renewal>{ServerCredentials::Renewal::Renewed,
                                                              ServerCredentials::Renewal::Renewed}));
        QCOMPARE(refreshes(), 1);
        QVERIFY(firstCredentials->authorization() != signedInWith);
        QCOMPARE(secondCredentials->authorization(), firstCredentials->authorization());
    }
};

QTEST_GUILESS_MAIN(TestSignInService)
#include "tst_signinservice.moc"
