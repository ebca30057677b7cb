#pragma once

#include "protocol/replies.h"
#include "supervisor/serverstatus.h"

#include <QDateTime>
#include <QHash>
#include <QObject>

#include <chrono>
#include <deque>

namespace Tether {

// One thing that happened to a server, as a value: what the window's Log and Timeline show.
struct ServerEvent
{
    enum class Kind {
        StateChange,
        Stderr,
        ServerLog,
        ConfigChange,
        ToolCall, // a call through the gateway or from the window: caller, tool, duration, outcome; never its arguments
    };

    QDateTime time;
    QString server;
    Kind kind = Kind::Stderr;
    QString level;   // "info", "warning", "error" … (ServerLog; StateChange derives one)
    QString text;
    ServerStatus status; // StateChange: the snapshot right after the change; ConfigChange: the status then
};

// A finished tool call as the server's log keeps it: "claude-ai called demo__echo: ok (12 ms)";
// a warning when it failed or the tool reported an error.
ServerEvent toolCallEvent(const QString &server, const QString &caller, const QString &tool,
                          const ToolCallReply &reply, std::chrono::milliseconds took);

// The recent events of every server, capped per server so memory stays bounded however long
// Tether runs and however much a server writes.
class EventLog final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EventLog)

public:
    static constexpr int DefaultCapPerServer = 2000;

    explicit EventLog(int capPerServer = DefaultCapPerServer, QObject *parent = nullptr);

    void append(ServerEvent event);
    QList<ServerEvent> events(const QString &server) const;
    // Every server's events, oldest first: the combined log.
    QList<ServerEvent> allEvents() const;
    void forget(const QString &server);

signals:
    void appended(const Tether::ServerEvent &event);

private:
    int m_cap;
    QHash<QString, std::deque<ServerEvent>> m_events;
};

} // namespace Tether
