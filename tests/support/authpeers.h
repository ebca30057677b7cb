#pragma once

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTest>

#include <memory>

namespace Tether::Testing {

// One of the sign-in test peers of tests/integration/auth/ (node scripts): the oidc-provider
// authorization server, the SDK resource server, or the scripted browser. A server peer prints
// one JSON line when it listens (`ready()`), then one JSON line per event it reports (`events`).
// Killed when it goes out of scope. A test using it defines TETHER_AUTH_PEERS (the folder of
// the scripts) with target_compile_definitions, as the gateway tests do for TETHER_SDK_HOST.
class AuthPeer final
{
public:
    AuthPeer(const QString &script, const QStringList &arguments,
             const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment())
    {
        m_process.setProcessEnvironment(environment);
        QObject::connect(&m_process, &QProcess::readyReadStandardOutput, &m_process, [this] { readLines(); });
        QObject::connect(&m_process, &QProcess::readyReadStandardError, &m_process,
                         [this] { stderrText += QString::fromUtf8(m_process.readAllStandardError()); });
        m_process.start(QStandardPaths::findExecutable(QStringLiteral("node")),
                        QStringList{scriptPath(script)} + arguments);
    }
    ~AuthPeer()
    {
        if (m_process.state() == QProcess::NotRunning)
            return;
        m_process.kill();
        m_process.waitForFinished(10000);
    }
    Q_DISABLE_COPY_MOVE(AuthPeer)

    static QString scriptPath(const QString &script)
    {
        return QStringLiteral(TETHER_AUTH_PEERS "/") + script;
    }

    // The first line the peer printed (its addresses), once it is listening; empty when it
    // exited or printed nothing within 20 s (stderrText then says why).
    QJsonObject ready()
    {
        if (!QTest::qWaitFor([this] { return !lines.isEmpty() || m_process.state() == QProcess::NotRunning; }, 20000))
            return {};
        return lines.value(0);
    }

    // Everything the peer printed, one object per line, the ready line first.
    QList<QJsonObject> lines;
    QString stderrText;

private:
    void readLines()
    {
        m_pending += m_process.readAllStandardOutput();
        qsizetype end = 0;
        while ((end = m_pending.indexOf('\n')) >= 0) {
            const QByteArray line = m_pending.left(end);
            m_pending.remove(0, end + 1);
            lines.append(QJsonDocument::fromJson(line).object());
        }
    }

    QProcess m_process;
    QByteArray m_pending;
};

// What a sign-in talks to: the authorization server and, in front of it, the resource server.
struct SignInPeers
{
    std::unique_ptr<AuthPeer> authServer;
    std::unique_ptr<AuthPeer> resourceServer;
    QString issuer;
    QJsonObject endpoints; // {"mcp": …, "sse": …}

    // Starts both with the scripts' arguments; false, with why in a warning, when one did not.
    bool start(const QStringList &authArguments = {}, const QStringList &resourceArguments = {})
    {
        authServer = std::make_unique<AuthPeer>(QStringLiteral("oauth-server.mjs"),
                                                QStringList{QStringLiteral("--resource"), QStringLiteral("loopback")}
                                                    + authArguments);
        issuer = authServer->ready().value(QStringLiteral("issuer")).toString();
        if (issuer.isEmpty()) {
            qWarning("the authorization server did not start: %s", qPrintable(authServer->stderrText));
            return false;
        }
        resourceServer = std::make_unique<AuthPeer>(QStringLiteral("mcp-resource-server.mjs"),
                                                    QStringList{QStringLiteral("--issuer"), issuer} + resourceArguments);
        endpoints = resourceServer->ready();
        if (endpoints.isEmpty()) {
            qWarning("the resource server did not start: %s", qPrintable(resourceServer->stderrText));
            return false;
        }
        return true;
    }

    QString mcpUrl() const { return endpoints.value(QStringLiteral("mcp")).toString(); }
};

} // namespace Tether::Testing
