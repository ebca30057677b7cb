#pragma once

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTest>

#include <functional>
#include <optional>

namespace Tether::Testing {

// Who an SdkHost is to the server: its client name and what it declares (sampling, elicitation
// for form mode, elicitation-url for URL mode, roots), with its first roots (URIs).
struct SdkHostOptions
{
    QString name; // empty: tether-test-host
    QStringList capabilities;
    QStringList roots;

    QStringList arguments() const
    {
        QStringList arguments;
        if (!name.isEmpty())
            arguments << QStringLiteral("--name") << name;
        if (!capabilities.isEmpty())
            arguments << QStringLiteral("--capabilities") << capabilities.join(u',');
        if (!roots.isEmpty())
            arguments << QStringLiteral("--roots") << roots.join(u',');
        return arguments;
    }
};

// An MCP host made of the official TypeScript SDK client (tests/integration/gateway/sdkhost.mjs,
// run with node), which starts `program arguments` as its stdio MCP server (or, with program
// "--http", connects to the URL and token of `arguments`). The test sends it commands and waits
// for its events (one JSON object per line; see the script).
class SdkHost final
{
public:
    SdkHost(const QString &program, const QStringList &arguments,
            const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment())
        : SdkHost(SdkHostOptions(), program, arguments, environment)
    {
    }
    SdkHost(const SdkHostOptions &options, const QString &program, const QStringList &arguments,
            const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment())
    {
        m_process.setProcessEnvironment(environment);
        QObject::connect(&m_process, &QProcess::readyReadStandardOutput, &m_process, [this] { readEvents(); });
        QObject::connect(&m_process, &QProcess::readyReadStandardError, &m_process,
                         [this] { m_stderr += m_process.readAllStandardError(); });
        m_process.start(QStandardPaths::findExecutable(QStringLiteral("node")),
                        QStringList{QStringLiteral(TETHER_SDK_HOST)} + options.arguments() + QStringList{program}
                            + arguments);
    }
    ~SdkHost()
    {
        if (m_process.state() == QProcess::NotRunning)
            return;
        m_process.kill();
        m_process.waitForFinished(10000);
    }
    Q_DISABLE_COPY_MOVE(SdkHost)

    void send(const QJsonObject &command)
    {
        m_process.write(QJsonDocument(command).toJson(QJsonDocument::Compact) + '\n');
    }

    // The first event at or after `from` that `matches`, waiting up to `timeoutMs` for it; its index
    // in *index.
    std::optional<QJsonObject> waitFor(const std::function<bool(const QJsonObject &)> &matches, int timeoutMs,
                                       qsizetype from = 0, qsizetype *index = nullptr)
    {
        std::optional<QJsonObject> found;
        (void)QTest::qWaitFor([&] {
            for (qsizetype i = from; i < m_events.size(); ++i) {
                if (matches(m_events.at(i))) {
                    found = m_events.at(i);
                    if (index)
                        *index = i;
                    return true;
                }
            }
            return m_process.state() == QProcess::NotRunning;
        }, timeoutMs);
        return found;
    }

    // The event of `kind` for the command `id` (or any, when `id` is empty).
    std::optional<QJsonObject> waitForEvent(const QString &kind, const QString &id = {}, int timeoutMs = 30000,
                                            qsizetype from = 0)
    {
        return waitFor([&](const QJsonObject &event) {
            return event.value(u"event").toString() == kind && (id.isEmpty() || event.value(u"id").toString() == id);
        }, timeoutMs, from);
    }

    // A call's end: its result or its rejection.
    std::optional<QJsonObject> waitForAnswer(const QString &id, int timeoutMs = 30000)
    {
        return waitFor([&](const QJsonObject &event) {
            const QString kind = event.value(u"event").toString();
            return (kind == u"result" || kind == u"rejected") && event.value(u"id").toString() == id;
        }, timeoutMs);
    }

    // The next request of the server with `method` the host got, at or after the event `from`.
    std::optional<QJsonObject> waitForRequest(const QString &method, int timeoutMs = 30000, qsizetype from = 0,
                                              qsizetype *index = nullptr)
    {
        return waitFor([&](const QJsonObject &event) {
            return event.value(u"event").toString() == u"request" && event.value(u"method").toString() == method;
        }, timeoutMs, from, index);
    }

    // Sends `command` (which has an "id") and waits for its event of `kind`, or its rejection.
    std::optional<QJsonObject> ask(const QJsonObject &command, const QString &kind, int timeoutMs = 30000)
    {
        const QString id = command.value(u"id").toString();
        send(command);
        return waitFor([&](const QJsonObject &event) {
            const QString got = event.value(u"event").toString();
            return (got == kind || got == u"rejected") && event.value(u"id").toString() == id;
        }, timeoutMs);
    }

    // Every event of `kind` so far, from the event `from` on.
    QList<QJsonObject> eventsOf(const QString &kind, qsizetype from = 0) const
    {
        QList<QJsonObject> found;
        for (qsizetype i = from; i < m_events.size(); ++i) {
            if (m_events.at(i).value(u"event").toString() == kind)
                found.append(m_events.at(i));
        }
        return found;
    }

    // Lists every page of tools: their names, in order.
    QStringList listToolNames(const QString &id, int timeoutMs = 30000)
    {
        send({{QStringLiteral("op"), QStringLiteral("list")}, {QStringLiteral("id"), id}});
        QStringList names;
        if (const auto tools = waitForEvent(QStringLiteral("tools"), id, timeoutMs)) {
            for (const QJsonValue &tool : tools->value(u"tools").toArray())
                names.append(tool.toObject().value(u"name").toString());
        }
        return names;
    }

    // The host's errors, less the one MCP allows after a cancellation: a progress notification
    // already on its way when the host cancelled may still come (the cancellation travels on a
    // message of its own), and the SDK, which forgot the token on cancelling, calls it an error.
    QStringList unexpectedClientErrors() const
    {
        QStringList found;
        for (const QJsonObject &event : eventsOf(QStringLiteral("client_error"))) {
            const QString message = event.value(u"message").toString();
            if (!message.startsWith(u"Received a progress notification for an unknown token"))
                found.append(message);
        }
        return found;
    }

    qsizetype count(const QString &kind) const
    {
        return std::count_if(m_events.cbegin(), m_events.cend(),
                             [&](const QJsonObject &event) { return event.value(u"event").toString() == kind; });
    }

    bool stderrContains(const QString &text, qsizetype from = 0) const
    {
        for (qsizetype i = from; i < m_events.size(); ++i) {
            const QJsonObject &event = m_events.at(i);
            if (event.value(u"event").toString() == u"stderr" && event.value(u"line").toString().contains(text))
                return true;
        }
        return false;
    }

    const QList<QJsonObject> &events() const { return m_events; }
    QProcess &process() { return m_process; }
    // What node itself wrote on stderr (a crash of the script, say).
    const QByteArray &nodeStderr() const { return m_stderr; }

private:
    void readEvents()
    {
        m_pending += m_process.readAllStandardOutput();
        for (qsizetype newline = m_pending.indexOf('\n'); newline >= 0; newline = m_pending.indexOf('\n')) {
            m_events.append(QJsonDocument::fromJson(m_pending.left(newline)).object());
            m_pending.remove(0, newline + 1);
        }
    }

    QProcess m_process;
    QByteArray m_pending;
    QByteArray m_stderr;
    QList<QJsonObject> m_events;
};

} // namespace Tether::Testing
