#include "oneshotconnection.h"

#include "output.h"
#include "servertarget.h"
#include "signincommands.h"

#include "auth/signinservice.h"
#include "session/mcpclientsession.h"

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

OneShotConnection::OneShotConnection(const CommonOptions &options)
    : m_options(options)
    , m_session(makeSession())
{}

std::unique_ptr<McpClientSession> OneShotConnection::makeSession()
{
    SessionOptions options{m_options.target.name, m_options.timeout};
    // Servers then offer the tools that elicit, sample or list roots too: a call answers their
    // requests on the terminal (TerminalClientSide); the session's roots are none.
    options.clientCapabilities = clientFeatureCapabilities();
    options.pinnedEra = m_options.pinnedEra;
    options.pinnedBy = EraPinnedBy::Option;
    auto made = std::make_unique<McpClientSession>(m_options.target.transport(), std::move(options));
    McpClientSession *session = made.get();
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
    if (m_options.verbose) {
        QObject::connect(session, &McpClientSession::stderrLine, session, [this](const QString &line) {
            printNote(m_session->options().serverName + u": "_s + line);
        });
    }
    return made;
}

OneShotConnection::~OneShotConnection()
{
    close();
}

bool OneShotConnection::openSession()
{
    m_session->open();
    while (!m_session->isReady() && m_failure.isEmpty() && !m_closed && !m_interruption.happened())
        m_loop.exec();
    return m_session->isReady();
}

bool OneShotConnection::open()
{
    if (!openSession() && asksForSignIn() && signIn())
        reopen();
    if (m_interruption.happened())
        return false;
    if (!m_session->isReady()) {
        printError(u"could not connect to server '%1' (%2): %3"_s.arg(m_options.target.name, m_options.target.shownAs,
                                                                      m_failure));
        return false;
    }
    // A request the server refuses later, for want of a sign-in or of scope (a step-up), signs in
    // within this run too and is sent again. The handshake's refusal is answered above instead,
    // where no request's deadline runs while the browser step waits.
    if (m_options.signIn && m_options.target.signsInAs && canOpenBrowser(m_options.browser)) {
        const QString name = m_options.target.name;
        m_options.signIn->signInWhenAsked(
            [name, browser = m_options.browser](const QUrl &url) { openSignInUrl(name, url, browser); },
            [](bool signedIn, const QString &message) { signedIn ? printNote(message) : printError(message); });
    }
    return true;
}

bool OneShotConnection::asksForSignIn()
{
    const std::optional<TransportClosure> &closure = m_session->transportClosure();
    if (m_interruption.happened() || !m_options.signIn || !m_options.target.signsInAs || !closure || !closure->signIn)
        return false;
    // Waiting for a browser step nobody can take would only end at the browser timeout.
    if (!canOpenBrowser(m_options.browser)) {
        m_failure = m_failure + u"; "_s + noBrowserText(m_options.target.name);
        return false;
    }
    return true;
}

bool OneShotConnection::signIn()
{
    const QString name = m_options.target.name;
    const SignInAnswer answer = awaitSignIn(m_interruption, [&](SignInController::Done done) {
        m_options.signIn->signIn(
            *m_options.target.signsInAs, {},
            [name, browser = m_options.browser](const QUrl &url) { openSignInUrl(name, url, browser); },
            std::move(done));
    });
    if (!answer.succeeded) {
        m_failure = answer.finished ? answer.message : m_interruption.reason();
        return false;
    }
    printNote(answer.message);
    return true;
}

bool OneShotConnection::reopen()
{
    close();
    m_session = makeSession();
    m_failure.clear();
    m_closed = false;
    return openSession();
}

template<typename Reply, typename Send>
std::optional<Reply> OneShotConnection::ask(Send send)
{
    // Shared with the handler: the session may still hold it after a failure returned here.
    const auto reply = std::make_shared<std::optional<Reply>>();
    m_callInFlight = send(std::function<void(const Reply &)>([this, reply](const Reply &received) {
        *reply = received;
        m_loop.quit();
    }));
    waitFor(*reply);
    m_callInFlight = 0;
    return *reply;
}

std::optional<ToolListReply> OneShotConnection::listTools()
{
    return ask<ToolListReply>([this](ToolListHandler done) {
        m_session->listTools(std::move(done));
        return qint64(0);
    });
}

std::optional<ResourceListReply> OneShotConnection::listResources()
{
    return ask<ResourceListReply>([this](ResourceListHandler done) {
        m_session->listResources(std::move(done));
        return qint64(0);
    });
}

std::optional<PromptListReply> OneShotConnection::listPrompts()
{
    return ask<PromptListReply>([this](PromptListHandler done) {
        m_session->listPrompts(std::move(done));
        return qint64(0);
    });
}

std::optional<ResourceReadReply> OneShotConnection::readResource(const QString &uri)
{
    return ask<ResourceReadReply>(
        [this, &uri](ResourceReadHandler done) { return m_session->readResource(uri, std::move(done)); });
}

std::optional<PromptReply> OneShotConnection::getPrompt(const QString &name, const QJsonObject &arguments)
{
    return ask<PromptReply>([this, &name, &arguments](PromptHandler done) {
        return m_session->getPrompt(name, arguments, std::move(done));
    });
}

bool OneShotConnection::offers(QStringView capability) const
{
    return m_session->offers(capability);
}

std::optional<ToolCallReply> OneShotConnection::callTool(const QString &name, const ToolCallInput &input,
                                                         const ProgressHandler &onProgress)
{
    return ask<ToolCallReply>([this, &name, &input, &onProgress](ToolCallHandler done) {
        return m_session->callTool(name, input, std::move(done), onProgress);
    });
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
