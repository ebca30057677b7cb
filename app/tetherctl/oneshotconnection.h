#pragma once

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

// One connection for one command: open, do one thing, close, all on a local event loop.
class OneShotConnection final
{
    Q_DISABLE_COPY_MOVE(OneShotConnection)

public:
    explicit OneShotConnection(const CommonOptions &options);
    ~OneShotConnection();

    // Prints why when the server could not be reached.
    bool open();

    // The server's answer; nothing when the connection failed first (failure() says why).
    std::optional<ToolListReply> listTools();
    std::optional<ToolCallReply> callTool(const QString &name, const QJsonObject &arguments,
                                          const ProgressHandler &onProgress);
    QString failure() const { return m_failure; }

private:
    // Runs the loop until `reply` is set or the connection fails.
    template<typename Reply>
    void waitFor(const std::optional<Reply> &reply);
    void close();

    const CommonOptions &m_options;
    std::unique_ptr<McpClientSession> m_session;
    QEventLoop m_loop;
    QString m_failure;
    bool m_closed = false;
};

} // namespace Tether::Ctl
