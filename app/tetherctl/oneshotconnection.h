#pragma once

#include "interruption.h"

#include "protocol/replies.h"

#include <QEventLoop>
#include <QString>

#include <memory>
#include <optional>

namespace Tether {
class McpClientSession;
}

namespace Tether::Ctl {

struct CommonOptions;

// One connection for one command: open, do one thing, close, all on a local event loop. A
// signal (see Interruption) cancels the call in flight and ends the wait; the connection is
// then closed as always, when it goes.
class OneShotConnection final
{
    Q_DISABLE_COPY_MOVE(OneShotConnection)

public:
    explicit OneShotConnection(const CommonOptions &options);
    ~OneShotConnection();

    // Prints why when the server could not be reached (but not when a signal interrupted).
    bool open();

    // The server's answer; nothing when the connection failed first (failure() says why) or a
    // signal came (a call is then answered with its cancellation).
    std::optional<ToolListReply> listTools();
    // What the server asks while the call runs goes to `input.origin`.
    std::optional<ToolCallReply> callTool(const QString &name, const ToolCallInput &input,
                                          const ProgressHandler &onProgress);
    std::optional<ResourceListReply> listResources();
    std::optional<PromptListReply> listPrompts();
    std::optional<ResourceReadReply> readResource(const QString &uri);
    std::optional<PromptReply> getPrompt(const QString &name, const QJsonObject &arguments);
    // Whether the server's initialize result advertises `capability` ("resources", "prompts").
    bool offers(QStringView capability) const;
    QString failure() const { return m_failure; }
    const Interruption &interruption() const { return m_interruption; }

private:
    std::unique_ptr<McpClientSession> makeSession();
    // Until the session is ready, failed or closed, or a signal came.
    bool openSession();
    // The server refused the session for want of a sign-in this command can do (else m_failure
    // says why not).
    bool asksForSignIn();
    // Signs in (the browser step); false with m_failure set when it did not.
    bool signIn();
    // After a sign-in: a new session in place of the refused one.
    bool reopen();
    // Runs the loop until `reply` is set or the connection fails.
    template<typename Reply>
    void waitFor(const std::optional<Reply> &reply);
    // Sends a request with `send`, which passes on the handler it is given, and waits for its reply.
    template<typename Reply, typename Send>
    std::optional<Reply> ask(Send send);
    void close();

    const CommonOptions &m_options;
    Interruption m_interruption; // before the session: signals are handled while it runs
    std::unique_ptr<McpClientSession> m_session;
    qint64 m_callInFlight = 0;   // the request id of the tool call, while it waits
    QEventLoop m_loop;
    QString m_failure;
    bool m_closed = false;
};

} // namespace Tether::Ctl
