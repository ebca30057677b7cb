#pragma once

#include "manager/eventlog.h"

#include <QList>
#include <QString>

#include <optional>

namespace Tether {

// The level of an event: the server's own for its log messages, the call's for a tool call,
// "error" for a state change to Failed and "warning" for one to Retrying, Reconnecting or
// Disconnected; "info" for the rest, stderr lines included (they carry no level).
QString eventLevel(const ServerEvent &event);
// "state", "stderr", "log", "config", "call"
QString eventKindName(const ServerEvent &event);
// The kind eventKindName() names `name`; nothing for a word it never writes.
std::optional<ServerEvent::Kind> eventKindFromName(const QString &name);
// What happened, on one line: "Retrying: connection failed: …" for a state change, the line or
// message itself otherwise. Control characters show as escapes.
QString eventText(const ServerEvent &event);

// A log line to read or grep: "2026-12-01T07:15:02.123Z  demo  warning  state  Retrying: …",
// the time in UTC.
QString eventLogLine(const ServerEvent &event);
// The same without the time: "demo  warning  state  Retrying: …".
QString eventLogLineWithoutTime(const ServerEvent &event);
// The same as one line of JSON: {"time", "server", "level", "kind", "state" (state changes
// only), "text"}.
QByteArray eventLogJsonLine(const ServerEvent &event);

enum class EventLogFormat { Text, JsonLines };

// JSON lines for a file named *.jsonl or *.ndjson, text otherwise.
EventLogFormat eventLogFormatFor(const QString &path);

// Writes `events` to `path` in `format`, whole or not at all (an existing file stays as it was
// when writing fails). False, with why in `error`, when it cannot be written.
bool saveEventLog(const QString &path, const QList<ServerEvent> &events, EventLogFormat format, QString *error);

} // namespace Tether
