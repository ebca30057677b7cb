#pragma once

#include "nodepeer.h"

#include <QJsonObject>

#include <memory>

namespace Tether::Testing {

// One of the sign-in test peers of tests/integration/auth/ (node scripts): the oidc-provider
// authorization server, the SDK resource server, or the scripted browser. A test using it defines
// TETHER_AUTH_PEERS (the folder of the scripts) with target_compile_definitions, as the gateway
// tests do for TETHER_SDK_HOST.
class AuthPeer final : public NodePeer
{
public:
    AuthPeer(const QString &script, const QStringList &arguments,
             const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment())
        : NodePeer(scriptPath(script), arguments, environment)
    {}

    static QString scriptPath(const QString &script)
    {
        return QStringLiteral(TETHER_AUTH_PEERS "/") + script;
    }
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
