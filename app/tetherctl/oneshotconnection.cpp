#include "oneshotconnection.h"

#include "output.h"
#include "servertarget.h"

#include "session/mcpclientsession.h"

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

OneShotConnection::OneShotConnection(const CommonOptions &options)
    : m_options(options)
    , m_session(std::make_unique<McpClientSession>(options.target.transport(),
                                                   SessionOptions{options.target.name, options.timeout}))
{
    McpClientSession *session = m_session.get();
    QObject::connect(session, &McpClientSession::failed, session, [this](const QString &reason) {
        m_failure = reason;
        m_loop.quit();
    });
    QObject::connect(session, &McpClientSession::ready, session, [this] { m_loop.quit(); });
    QObject::connect(&m_interruption, &Interruption::interrupted, session, [this] {
        if (m_callInFlight != 0)
            m_session->cancel(m_callInFlight, m_interruption.reason());
        m_loop.quit();
    });
    QObject::connect(session, &McpClientSession::closed, session, [this] {
        m_closed = true;
        m_loop.quit();
    });
    if (options.verbose) {
        QObject::connect(session, &McpClientSession::stderrLine, session, [this](const QString &line) {
            printNote(m_session->options().serverName + u": "_s + line);
        });
    }
}

OneShotConnection::~OneShotConnection()
{
    close();
}

bool OneShotConnection::open()
{
    m_session->open();
    while (!m_session->isReady() && m_failure.isEmpty() && !m_closed && !m_interruption.happened())
        m_loop.exec();
    if (m_interruption.happened())
        return false;
    if (!m_session->isReady()) {
        printError(u"could not connect to server '%1' (%2): %3"_s.arg(m_options.target.name, m_options.target.shownAs,
                                                                      m_failure));
    }
    return m_session->isReady();
}

std::optional<ToolListReply> OneShotConnection::listTools()
{
    // Shared with the handler: the session may still hold it after a failure returned here.
    const auto reply = std::make_shared<std::optional<ToolListReply>>();
    m_session->listTools([this, reply](const ToolListReply &received) {
        *reply = received;
        m_loop.quit();
    });
    waitFor(*reply);
    return *reply;
}

std::optional<ToolCallReply> OneShotConnection::callTool(const QString &name, const QJsonObject &arguments,
                                                         const ProgressHandler &onProgress)
{
    const auto reply = std::make_shared<std::optional<ToolCallReply>>();
    m_callInFlight = m_session->callTool(
        name, arguments,
        [this, reply](const ToolCallReply &received) {
            *reply = received;
            m_loop.quit();
        },
        onProgress);
    waitFor(*reply);
    m_callInFlight = 0;
    return *reply;
}

template<typename Reply>
void OneShotConnection::waitFor(const std::optional<Reply> &reply)
{
    while (!reply && m_failure.isEmpty() && !m_closed && !m_interruption.happened())
        m_loop.exec();
}

void OneShotConnection::close()
{
    m_session->close();
    while (!m_closed)
        m_loop.exec();
}

} // namespace Tether::Ctl
