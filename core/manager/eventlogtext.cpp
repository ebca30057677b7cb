#include "eventlogtext.h"

#include "manager/eventlog.h"

#include "common/displaytext.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

QString stateLevel(ServerState state)
{
    switch (state) {
    case ServerState::Failed: return u"error"_s;
    case ServerState::Retrying:
    case ServerState::Reconnecting:
    case ServerState::Disconnected:
    case ServerState::SignInNeeded: return u"warning"_s;
    default: return u"info"_s;
    }
}

} // namespace

QString eventLevel(const ServerEvent &event)
{
    switch (event.kind) {
    case ServerEvent::Kind::StateChange:
        return stateLevel(event.status.state);
    case ServerEvent::Kind::Stderr:
        return u"info"_s;
    case ServerEvent::Kind::ServerLog:
    case ServerEvent::Kind::ConfigChange:
    case ServerEvent::Kind::ToolCall:
        return event.level.isEmpty() ? u"info"_s : event.level;
    }
    return u"info"_s;
}

QString eventKindName(const ServerEvent &event)
{
    switch (event.kind) {
    case ServerEvent::Kind::StateChange: return u"state"_s;
    case ServerEvent::Kind::Stderr: return u"stderr"_s;
    case ServerEvent::Kind::ServerLog: return u"log"_s;
    case ServerEvent::Kind::ConfigChange: return u"config"_s;
    case ServerEvent::Kind::ToolCall: return u"call"_s;
    }
    return {};
}

std::optional<ServerEvent::Kind> eventKindFromName(const QString &name)
{
    for (const auto kind : {ServerEvent::Kind::StateChange, ServerEvent::Kind::Stderr, ServerEvent::Kind::ServerLog,
                            ServerEvent::Kind::ConfigChange, ServerEvent::Kind::ToolCall}) {
        ServerEvent event;
        event.kind = kind;
        if (eventKindName(event) == name)
            return kind;
    }
    return std::nullopt;
}

QString eventText(const ServerEvent &event)
{
    QString text = event.text;
    if (event.kind == ServerEvent::Kind::StateChange)
        text = text.isEmpty() ? stateName(event.status.state) : stateName(event.status.state) + u": "_s + text;
    return withVisibleControls(text);
}

QString eventLogLine(const ServerEvent &event)
{
    return event.time.toUTC().toString(Qt::ISODateWithMs) + u"  "_s + eventLogLineWithoutTime(event);
}

QString eventLogLineWithoutTime(const ServerEvent &event)
{
    return QStringList{withVisibleControls(event.server), eventLevel(event), eventKindName(event), eventText(event)}
        .join(u"  "_s);
}

QByteArray eventLogJsonLine(const ServerEvent &event)
{
    QJsonObject line{{u"time"_s, event.time.toUTC().toString(Qt::ISODateWithMs)},
                     {u"server"_s, event.server},
                     {u"level"_s, eventLevel(event)},
                     {u"kind"_s, eventKindName(event)},
                     {u"text"_s, event.text}};
    if (event.kind == ServerEvent::Kind::StateChange)
        line.insert(u"state"_s, stateName(event.status.state));
    return QJsonDocument(line).toJson(QJsonDocument::Compact);
}

EventLogFormat eventLogFormatFor(const QString &path)
{
    return path.endsWith(u".jsonl"_s, Qt::CaseInsensitive) || path.endsWith(u".ndjson"_s, Qt::CaseInsensitive)
               ? EventLogFormat::JsonLines
               : EventLogFormat::Text;
}

bool saveEventLog(const QString &path, const QList<ServerEvent> &events, EventLogFormat format, QString *error)
{
    QSaveFile file(path);
    const auto fail = [&] {
        *error = u"cannot write the log to %1: %2; choose a file in a folder you can write to"_s.arg(
            path, file.errorString());
        return false;
    };
    if (!file.open(QIODevice::WriteOnly))
        return fail();
    for (const ServerEvent &event : events) {
        file.write(format == EventLogFormat::JsonLines ? eventLogJsonLine(event) : eventLogLine(event).toUtf8());
        file.write("\n");
    }
    return file.commit() || fail();
}

} // namespace Tether
