#pragma once

#include "config/configcontext.h"
#include "config/serverconfig.h"

#include <QByteArray>
#include <QString>

struct QJsonParseError;

namespace Tether {

// A config file is a few kilobytes; anything this large is not one, and reading it whole would stall.
inline constexpr qint64 MaxConfigBytes = 16 * 1024 * 1024;

// Reads a config file's bytes: every server judged, with ${env:NAME} and ${tether:bindir}
// expanded from `context`. `path` names the file in messages, and a relative envFile is found
// next to it. A problem with one server makes that server invalid, not the others.
ConfigDocument parseConfig(const QByteArray &bytes, const QString &path, const ConfigContext &context);

// How messages name a member of a JSON object: "mcpServers.demo" for plain names,
// "mcpServers[\"my server\"]" when a dot or space would mislead.
QString memberPath(const QString &parent, const QString &key);

// "mcpServers.demo is defined 2 times (lines 3 and 9)": how messages name a key written more than
// once in an object, where JSON keeps only the last.
QString definedMoreThanOnce(const QString &at, const QList<int> &lines);

// What rewriting a file of key order `order` would drop: each top-level key and each server name
// (under "mcpServers" or "servers") written more than once, named by definedMoreThanOnce.
QStringList definitionsLostByRewrite(const JsonKeyOrder &order);

// Nothing but blanks, perhaps after a byte order mark: a file as `touch` leaves it.
bool isBlankConfig(const QByteArray &bytes);
// Where and why `bytes` stopped parsing as JSON: "line 4, column 7 (unterminated object)",
// counting columns in characters, with a hint when a comment is the cause.
QString parseErrorLocation(const QByteArray &bytes, const QJsonParseError &error);

} // namespace Tether
