#include "windowclientside.h"

#include "elicitationformdialog.h"
#include "urlelicitationdialog.h"

#include <QWidget>

using namespace Qt::StringLiterals;

namespace Tether {

WindowClientSide::WindowClientSide(QWidget *window)
    : m_window(window)
{
}

WindowClientSide::~WindowClientSide()
{
    // The window is closing: its questions are dismissed, as if each dialog were closed.
    for (auto &[handle, question] : std::exchange(m_questions, {})) {
        if (question.dialog)
            question.dialog->withdraw();
        question.reply(RpcReply{QJsonObject{{u"action"_s, u"cancel"_s}}, std::nullopt});
    }
}

QString WindowClientSide::clientLabel() const
{
    return tr("the window");
}

quint64 WindowClientSide::serverRequest(const ServerRequest &request, ReplyHandler reply, ProgressHandler onProgress)
{
    Q_UNUSED(onProgress) // the person's answer takes no steps to report
    if (request.method == u"elicitation/create") {
        ServerRequestDialog *dialog = nullptr;
        if (request.params.value(u"mode").toString() == u"url")
            dialog = new UrlElicitationDialog(request.serverName, request.params, m_window);
        else
            dialog = new ElicitationFormDialog(request.serverName, request.params, m_window);
        return ask(request.serverName, dialog, std::move(reply));
    }
    // Answered from the event loop, never from inside the session's own call.
    if (request.method == u"sampling/createMessage") {
        answerLater<RpcReply>(
            this, std::move(reply),
            RpcReply::failure(JsonRpc::InternalError,
                              tr("the window of Tether has no model to sample from; call this tool from an AI client "
                                 "connected to Tether's gateway instead")));
        return 0;
    }
    answerLater<RpcReply>(this, std::move(reply),
                          RpcReply::failure(JsonRpc::MethodNotFound,
                                            tr("the window of Tether does not answer %1").arg(request.method)));
    return 0;
}

quint64 WindowClientSide::ask(const QString &serverName, ServerRequestDialog *dialog, ReplyHandler reply)
{
    const quint64 handle = ++m_lastHandle;
    m_questions.emplace(handle, Question{serverName, dialog, std::move(reply)});
    connect(dialog, &ServerRequestDialog::answered, this,
            [this, handle](const QJsonObject &result) { onAnswered(handle, result); });
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
    emit questionsChanged(serverName);
    return handle;
}

void WindowClientSide::onAnswered(quint64 handle, const QJsonObject &result)
{
    const auto found = m_questions.find(handle);
    if (found == m_questions.end())
        return;
    const Question question = std::move(found->second);
    m_questions.erase(found);
    question.reply(RpcReply{result, std::nullopt});
    emit questionsChanged(question.serverName);
}

void WindowClientSide::cancelServerRequest(quint64 handle, const QString &reason)
{
    Q_UNUSED(reason) // the dialog just goes: the Call tool dialog says how the call ended
    const auto found = m_questions.find(handle);
    if (found == m_questions.end())
        return;
    const Question question = std::move(found->second);
    m_questions.erase(found);
    if (question.dialog)
        question.dialog->withdraw();
    emit questionsChanged(question.serverName);
}

int WindowClientSide::questionsWaiting(const QString &serverName) const
{
    return int(std::count_if(m_questions.cbegin(), m_questions.cend(),
                             [&](const auto &entry) { return entry.second.serverName == serverName; }));
}

} // namespace Tether
