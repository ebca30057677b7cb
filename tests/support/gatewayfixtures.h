#pragma once

// The configs and helpers of the tests of Tether's gateway (tetherctl serve over stdio and HTTP):
// the demo server and server-everything as config entries, the SDK host's commands, and what a
// process still has running.
#include "support/testfiles.h"
#include "support/testprocess.h"

#include <QDir>
#include <QTemporaryDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace Tether::Testing {

using namespace Qt::StringLiterals;

// The tools of the demo server (those that ask the client something are listed whatever it declares).
inline const QStringList DemoTools{u"add"_s,    u"crash"_s, u"echo"_s,  u"elicit"_s, u"elicit-url"_s, u"fail"_s,
                                   u"format"_s, u"hang"_s,  u"image"_s, u"roots"_s,  u"sample"_s,     u"sleep"_s};

// The demo server as an entry of the config: quick retries, no heartbeat.
inline QJsonObject demoEntry(const QJsonObject &extra = {})
{
    QJsonObject entry{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)},
                      {u"heartbeat"_s, QJsonObject{{u"enabled"_s, false}}},
                      {u"reconnect"_s, QJsonObject{{u"initialDelayMs"_s, 300}, {u"jitter"_s, 0}}}};
    for (auto it = extra.constBegin(); it != extra.constEnd(); ++it)
        entry.insert(it.key(), it.value());
    return entry;
}

inline QJsonObject everythingEntry()
{
    return {{u"command"_s, serverEverything().program}, {u"args"_s, QJsonArray{serverEverythingScript(), u"stdio"_s}}};
}

inline QByteArray configText(const QJsonObject &servers, const QJsonObject &gateway = {})
{
    QJsonObject root{{u"mcpServers"_s, servers}};
    if (!gateway.isEmpty())
        root.insert(u"gateway"_s, gateway);
    return QJsonDocument(root).toJson();
}

inline QString resultText(const QJsonObject &event)
{
    return event.value(u"result").toObject().value(u"content").toArray().at(0).toObject().value(u"text").toString();
}

inline QJsonObject call(const QString &id, const QString &name, const QJsonObject &arguments, bool progress = false)
{
    return {{u"op"_s, u"call"_s}, {u"id"_s, id}, {u"name"_s, name}, {u"arguments"_s, arguments}, {u"progress"_s, progress}};
}

// The processes `pid` started and still has.
inline QList<qint64> childrenOf(qint64 pid)
{
    QList<qint64> children;
    const QDir tasks(u"/proc/%1/task"_s.arg(pid));
    for (const QString &task : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        const QByteArray list = readFile(tasks.filePath(task + u"/children"_s));
        for (const QByteArray &child : list.split(' ')) {
            if (!child.trimmed().isEmpty())
                children.append(child.trimmed().toLongLong());
        }
    }
    return children;
}


// The tools of server-everything (as pinned in package-lock.json), by their own names.
// Those that need sampling, elicitation or roots are there because Tether's client declares them.
inline const QStringList EverythingTools{
    u"echo"_s, u"get-annotated-message"_s, u"get-env"_s, u"get-resource-links"_s, u"get-resource-reference"_s,
    u"get-roots-list"_s, u"get-structured-content"_s, u"get-sum"_s, u"get-tiny-image"_s, u"gzip-file-as-resource"_s,
    u"simulate-research-query"_s, u"toggle-simulated-logging"_s, u"toggle-subscriber-updates"_s,
    u"trigger-elicitation-request"_s, u"trigger-long-running-operation"_s, u"trigger-sampling-request"_s,
    u"trigger-url-elicitation"_s};

// The gateway's names of a server's tools: "<server>__<tool>".
inline QStringList publicNames(const QString &server, const QStringList &tools)
{
    QStringList names;
    for (const QString &tool : tools)
        names.append(server + u"__"_s + tool);
    return names;
}

// `text` written as servers.json in `dir`: its path.
inline QString writeServersFile(const QTemporaryDir &dir, const QByteArray &text)
{
    const QString path = dir.filePath(u"servers.json"_s);
    if (!writeFile(path, text))
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

} // namespace Tether::Testing
