#pragma once

#include "config/serverconfig.h"
#include "support/testprocess.h"

namespace Tether::Testing {

// tether-demo-server as a configured server named `name`: no heartbeat (a test that wants one
// sets it) and a 10 s request timeout, so that a call that goes wrong fails within the test.
inline ServerConfig demoServerConfig(const QString &name, const QStringList &arguments = {})
{
    ServerConfig config;
    config.name = name;
    config.command = demoServer(arguments);
    config.heartbeat.enabled = false;
    config.requestTimeout = std::chrono::seconds(10);
    return config;
}

// server-everything over stdio as a configured server named `name`, likewise without a heartbeat
// (and with a 30 s request timeout: node starts slowly on a busy machine).
inline ServerConfig serverEverythingConfig(const QString &name)
{
    ServerConfig config;
    config.name = name;
    config.command = serverEverything();
    config.heartbeat.enabled = false;
    config.requestTimeout = std::chrono::seconds(30);
    return config;
}

// A config file's document holding `servers`, as ServerManager::applyConfig takes it.
inline ConfigDocument configDocument(const QList<ServerConfig> &servers)
{
    ConfigDocument document;
    document.path = QStringLiteral("test.json");
    document.serversKey = QStringLiteral("mcpServers");
    document.servers = servers;
    return document;
}

} // namespace Tether::Testing
