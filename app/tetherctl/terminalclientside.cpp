#include "terminalclientside.h"

#include "output.h"
#include "signincommands.h"

#include <QTimer>
#include <QUrl>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

// What a refusal says the user can do instead.
static QString useTheGateway()
{
    return u"call the tool from an AI client connected to Tether's gateway"_s;
}

static QString serverLabel(const ServerRequest &request)
{
    return u"server '%1'"_s.arg(request.serverName);
}

TerminalClientSide::TerminalClientSide(QString browser)
    : m_browser(browser.isEmpty() ? qEnvironmentVariable("TETHER_BROWSER") : std::move(browser))
{}

TerminalClientSide::~TerminalClientSide()
{
    stopAsking();
}

void TerminalClientSide::stopAsking()
{
    // A question left unanswered (the call ended first): what is printed next starts a line.
    if (m_input.isAsking())
        printToTerminal(u"\n"_s);
    m_input.abandon();
    RpcReply cancelled;
    cancelled.result = QJsonObject{{u"action"_s, u"cancel"_s}};
    for (Elicitation &elicitation : std::exchange(m_elicitations, {}))
        elicitation.reply(cancelled);
}

QString TerminalClientSide::clientLabel() const
{
    return u"tetherctl"_s;
}

quint64 TerminalClientSide::serverRequest(const ServerRequest &request, ReplyHandler reply, ProgressHandler onProgress)
{
    Q_UNUSED(onProgress) // a person's answer takes no steps to report
    const quint64 handle = m_nextHandle++;
    // Refusals are answered from the event loop, never from inside the session's own call.
    if (request.method == u"sampling/createMessage") {
        printError(u"%1 asked for a model's answer (sampling), which tetherctl cannot give: refused"_s.arg(
            serverLabel(request)));
        const QString refusal = u"tetherctl has no model to sample from; "_s + useTheGateway() + u", which can sample"_s;
        answerLater<RpcReply>(&m_input, std::move(reply), RpcReply::failure(JsonRpc::InternalError, refusal));
        return handle;
    }
    if (request.method != u"elicitation/create") {
        answerLater<RpcReply>(&m_input, std::move(reply),
                              RpcReply::failure(JsonRpc::MethodNotFound,
                                                u"tetherctl does not answer %1"_s.arg(request.method)));
        return handle;
    }
    if (const std::optional<QString> why = TerminalInput::whyNoTerminal()) {
        printError(u"%1 asked for input, which needs a terminal (%2): refused"_s.arg(serverLabel(request), *why));
        answerLater<RpcReply>(&m_input, std::move(reply),
                              RpcReply::failure(JsonRpc::InternalError,
                                                u"tetherctl call cannot ask for input without a terminal (%1); run it "
                                                "in a terminal, or %2"_s.arg(*why, useTheGateway())));
        return handle;
    }
    Elicitation elicitation;
    elicitation.handle = handle;
    elicitation.request = request;
    elicitation.reply = std::move(reply);
    m_elicitations.push_back(std::move(elicitation));
    // One question on the terminal at a time: the others wait their turn.
    if (m_elicitations.size() == 1)
        QTimer::singleShot(0, &m_input, [this] { startNext(); });
    return handle;
}

void TerminalClientSide::cancelServerRequest(quint64 handle, const QString &reason)
{
    const auto found = std::find_if(m_elicitations.begin(), m_elicitations.end(),
                                    [handle](const Elicitation &elicitation) { return elicitation.handle == handle; });
    if (found == m_elicitations.end())
        return;
    if (!found->shown) {
        m_elicitations.erase(found);
        return;
    }
    m_input.abandon();
    printToTerminal(u"\n%1 no longer waits for an answer: %2\n"_s.arg(serverLabel(found->request), reason));
    m_elicitations.pop_front();
    startNext();
}

void TerminalClientSide::serverNotification(const QString &serverName, const QString &method, const QJsonObject &params)
{
    Q_UNUSED(params)
    if (method == u"notifications/elicitation/complete")
        printNote(u"server '%1' says the step at the URL is done"_s.arg(serverName));
}

void TerminalClientSide::startNext()
{
    if (m_elicitations.empty() || m_elicitations.front().shown)
        return;
    Elicitation &current = m_elicitations.front();
    const QJsonObject &params = current.request.params;
    current.shown = true;
    if (params.value(u"mode").toString() == u"url") {
        askToOpenUrl();
        return;
    }
    current.form = elicitationForm(params.value(u"requestedSchema").toObject());
    if (!current.form.unusable.isEmpty()) {
        printError(u"%1 asked for input tetherctl cannot ask for: %2; refused"_s.arg(serverLabel(current.request),
                                                                                     current.form.unusable));
        finish(RpcReply::failure(JsonRpc::InvalidParams, u"tetherctl cannot ask for this input: %1; %2"_s.arg(
                                                             current.form.unusable, useTheGateway())));
        return;
    }
    QString header = u"\n%1 asks: %2\n"_s.arg(serverLabel(current.request), params.value(u"message").toString());
    if (!current.form.skipped.isEmpty()) {
        header += u"(left out, of a kind tetherctl cannot ask for: %1)\n"_s.arg(current.form.skipped.join(u", "_s));
    }
    if (!current.form.fields.isEmpty())
        header += u"(Enter takes the default in [brackets]; Ctrl-D cancels)\n"_s;
    printToTerminal(header);
    askField();
}

void TerminalClientSide::finish(const RpcReply &reply)
{
    // Off the list before the answer leaves: whatever the answer sets off finds the next one first.
    const ReplyHandler answer = std::move(m_elicitations.front().reply);
    m_elicitations.pop_front();
    answer(reply);
    startNext();
}

void TerminalClientSide::finishWithAction(const QString &action, const QJsonObject &content)
{
    QJsonObject result{{u"action"_s, action}};
    const bool form = m_elicitations.front().request.params.value(u"mode").toString() != u"url";
    if (action == u"accept" && form)
        result.insert(u"content"_s, content);
    RpcReply reply;
    reply.result = result;
    finish(reply);
}

// The line an answer is typed on: the default, when there is one, in brackets.
static QString answerPrompt(const ElicitationField &field)
{
    if (field.defaultValue.isUndefined())
        return u"> "_s;
    return u"[%1]> "_s.arg(fieldValueText(field, field.defaultValue));
}

void TerminalClientSide::askField(const QString &problem)
{
    Elicitation &current = m_elicitations.front();
    if (current.fieldIndex >= current.form.fields.size()) {
        askAction();
        return;
    }
    const ElicitationField &field = current.form.fields.at(current.fieldIndex);
    QString question;
    if (!problem.isEmpty()) {
        question = u"  "_s + problem + u'\n';
    } else {
        question = field.title + u" ("_s + fieldHint(field) + u')';
        if (!field.description.isEmpty())
            question += u": "_s + field.description;
        question += u'\n';
        for (qsizetype index = 0; index < field.choices.size(); ++index)
            question += u"  %1. %2\n"_s.arg(index + 1).arg(field.choices.at(index).label);
    }
    m_input.ask(question + answerPrompt(field), [this](const std::optional<QString> &line) { onFieldAnswer(line); });
}

void TerminalClientSide::onFieldAnswer(const std::optional<QString> &line)
{
    if (!line) {
        finishWithAction(u"cancel"_s);
        return;
    }
    Elicitation &current = m_elicitations.front();
    const ElicitationField &field = current.form.fields.at(current.fieldIndex);
    const FieldAnswer answer = readFieldAnswer(field, *line);
    if (!answer.problem.isEmpty()) {
        askField(answer.problem);
        return;
    }
    if (!answer.value.isUndefined())
        current.content.insert(field.key, answer.value);
    ++current.fieldIndex;
    askField();
}

void TerminalClientSide::askAction(const QString &problem)
{
    const Elicitation &current = m_elicitations.front();
    QString question;
    if (!problem.isEmpty()) {
        question = u"  "_s + problem + u'\n';
    } else if (!current.content.isEmpty()) {
        question = u"Your answers:\n"_s;
        for (const ElicitationField &field : current.form.fields) {
            if (current.content.contains(field.key))
                question += u"  %1: %2\n"_s.arg(field.title, fieldValueText(field, current.content.value(field.key)));
        }
    }
    question += current.content.isEmpty() ? u"Accept (a), decline (d) or cancel (c)? [a]> "_s
                                          : u"Accept (a) and send them, decline (d) or cancel (c)? [a]> "_s;
    m_input.ask(question, [this](const std::optional<QString> &line) {
        const QString word = line ? line->trimmed().toLower() : u"c"_s;
        if (word.isEmpty() || word == u"a" || word == u"accept")
            finishWithAction(u"accept"_s, m_elicitations.front().content);
        else if (word == u"d" || word == u"decline")
            finishWithAction(u"decline"_s);
        else if (word == u"c" || word == u"cancel")
            finishWithAction(u"cancel"_s);
        else
            askAction(u"answer a, d or c"_s);
    });
}

// The URL of a URL-mode elicitation, written in ASCII alone: a look-alike letter in its host
// shows as the punycode it is.
static QUrl elicitationUrl(const QJsonObject &params)
{
    return QUrl(params.value(u"url").toString(), QUrl::StrictMode);
}

void TerminalClientSide::askToOpenUrl(const QString &problem)
{
    const Elicitation &current = m_elicitations.front();
    const QUrl url = elicitationUrl(current.request.params);
    if (!url.isValid() || url.scheme().isEmpty()) {
        printError(u"%1 asked to open a URL that is not valid: refused"_s.arg(serverLabel(current.request)));
        finish(RpcReply::failure(JsonRpc::InvalidParams, u"the elicitation's \"url\" is not a valid URL (%1)"_s.arg(
                                                             url.errorString().isEmpty() ? u"it has no scheme"_s
                                                                                         : url.errorString())));
        return;
    }
    QString question;
    if (!problem.isEmpty()) {
        question = u"  "_s + problem + u'\n';
    } else {
        question = u"\n%1 asks you to open a URL: %2\n  %3\n"_s.arg(serverLabel(current.request),
                                                                  current.request.params.value(u"message").toString(),
                                                                  url.toString(QUrl::FullyEncoded));
        if (!url.host().isEmpty())
            question += u"  (a page of %1)\n"_s.arg(url.host(QUrl::FullyEncoded));
    }
    question += u"Open it in a browser? (y/N)> "_s;
    m_input.ask(question, [this](const std::optional<QString> &line) {
        const QString word = line ? line->trimmed().toLower() : u"c"_s;
        if (word == u"y" || word == u"yes")
            openUrl();
        else if (word.isEmpty() || word == u"n" || word == u"no")
            finishWithAction(u"decline"_s);
        else if (word == u"c")
            finishWithAction(u"cancel"_s);
        else
            askToOpenUrl(u"answer y or n"_s);
    });
}

void TerminalClientSide::openUrl()
{
    const QUrl url = elicitationUrl(m_elicitations.front().request.params);
    // Only a web page is handed to the browser: another scheme may start any program.
    const bool webPage = url.scheme() == u"https" || url.scheme() == u"http";
    if (webPage && openInBrowser(url.toString(QUrl::FullyEncoded), m_browser)) {
        printToTerminal(u"Opened in the browser: finish there.\n"_s);
        finishWithAction(u"accept"_s);
        return;
    }
    QString question = webPage ? QString() : u"tetherctl opens only http and https URLs itself.\n"_s;
    question += u"Open the URL above yourself, then press Enter (Ctrl-D cancels)> "_s;
    m_input.ask(question, [this](const std::optional<QString> &line) {
        finishWithAction(line ? u"accept"_s : u"cancel"_s);
    });
}

} // namespace Tether::Ctl
