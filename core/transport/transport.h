#pragma once

#include "common/displaytext.h"
#include "credentials.h"

#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace Tether {

// How a transport ended. For stdio, a closure exists only once the process has really exited.
struct TransportClosure
{
    bool requested = false;     // Tether asked for the close
    QString error;              // what went wrong, when something did (start failure, protocol error)
    std::optional<int> exitCode;
    std::optional<int> exitSignal;
    QStringList stderrTail;     // the last lines the server wrote to stderr
    std::optional<int> startErrno; // stdio: the program could not be started, with this errno of its exec
    // The server could not be reached at all: its program did not start, or nothing answered at
    // its address (refused, unknown host, failed TLS). No connection was open to be closed.
    bool unreached = false;
    QString program;            // stdio: the program that was (or could not be) started
    // HTTP: the server asks for a sign-in that no silent renewal could give; `error` says
    // "<url> asks for sign-in (scope …)".
    std::optional<SignInRequired> signIn;

    QString lastStderrLine() const { return stderrTail.isEmpty() ? QString() : stderrTail.last(); }
    // One line for people: "process exited with code 3", "protocol error: …; process killed by SIGKILL".
    QString describe() const;
};

// A limit on what a server may send or leave unread, as messages name it: "16 MiB", "1000 bytes".
QString byteLimitText(qsizetype bytes);

// A connection to one MCP server that carries JSON-RPC messages both ways. A transport is used
// for one connection only; every attempt builds a fresh one.
class Transport : public QObject
{
    Q_OBJECT

public:
    explicit Transport(SecretScrubber secrets = SecretScrubber(), QObject *parent = nullptr)
        : QObject(parent)
        , m_secrets(std::move(secrets))
    {
    }

    virtual void start() = 0;
    virtual void send(const QJsonObject &message) = 0;
    // A message already written as compact JSON (JsonRpc::serializeRequest). A transport that
    // writes bytes takes it as it is; the others read it back into an object.
    virtual void sendJson(const QByteArray &json);
    // Bounded close; closed() follows once the connection is really gone.
    virtual void close() = 0;
    // Ends a connection known to be unresponsive at once, with no grace for a peer that cannot
    // use it (a stdio server's group is killed); closed() follows as after close().
    virtual void abort() { close(); }

    virtual bool isOpen() const = 0;
    virtual qint64 processId() const { return 0; }
    // Whether the connection carries Tether's own sign-in (OAuth), whose refusals it reports.
    virtual bool signsIn() const { return false; }
    // "stdio: node server.js", for messages and the window.
    virtual QString description() const = 0;

    // Sees each payload before it is parsed and may take it as text (a reply passed on unread);
    // a payload it takes goes no further. The stdio transport asks it; the others parse all.
    using PayloadTaker = std::function<bool(const QByteArray &payload)>;
    void setPayloadTaker(PayloadTaker taker) { m_payloadTaker = std::move(taker); }
    // The server's secrets. What this transport emits of the server's own text (stderr lines,
    // error bodies) is scrubbed of them already; the session scrubs what the messages say.
    virtual const SecretScrubber &secrets() const { return m_secrets; }

signals:
    void started();
    // `text` is the message as it came, when it came alone (not in a batch) and as JSON.
    // `related`: the id of the client's request on whose HTTP stream it came, if any (a server's
    // request made while it serves that one).
    void messageReceived(const QJsonObject &message, const QByteArray &text = {},
                         const QJsonValue &related = QJsonValue(QJsonValue::Undefined));
    // Input that was not a message and was skipped; the connection goes on.
    void inputSkipped(const QString &what);
    void stderrLine(const QString &line);
    // The peer is gone for good, and `closure` says why (a stdio server exited: its exit code or
    // signal, its last stderr lines), before what it left behind is cleaned up; closed() follows
    // once that is done. At most once, and only by transports that can tell the two apart.
    void lost(const Tether::TransportClosure &closure);
    // Emitted exactly once.
    void closed(const Tether::TransportClosure &closure);

protected:
    // A secret learned after the start, such as a renewed token.
    void addSecrets(const QStringList &values) { m_secrets = m_secrets.with(values); }
    bool takenAsText(const QByteArray &payload) const { return m_payloadTaker && m_payloadTaker(payload); }

private:
    SecretScrubber m_secrets;
    PayloadTaker m_payloadTaker;
};

} // namespace Tether
