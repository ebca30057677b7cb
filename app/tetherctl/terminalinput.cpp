#include "terminalinput.h"

#include "output.h"

#include <QSocketNotifier>
#include <QTimer>

#include <cerrno>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

TerminalInput::TerminalInput(QObject *parent)
    : QObject(parent)
{}

TerminalInput::~TerminalInput() = default;

std::optional<QString> TerminalInput::whyNoTerminal()
{
    const bool stdinIsTerminal = ::isatty(STDIN_FILENO) == 1;
    const bool stderrIsTerminal = ::isatty(STDERR_FILENO) == 1;
    if (stdinIsTerminal && stderrIsTerminal)
        return std::nullopt;
    if (!stdinIsTerminal && !stderrIsTerminal)
        return u"stdin and stderr are not TTYs"_s;
    return stdinIsTerminal ? u"stderr is not a TTY"_s : u"stdin is not a TTY"_s;
}

void TerminalInput::ask(const QString &question, AnswerHandler onAnswer)
{
    printToTerminal(question);
    m_onAnswer = std::move(onAnswer);
    if (m_buffered.contains('\n') || m_inputEnded) {
        // Typed ahead of the question: answered from the event loop, never from inside ask().
        QTimer::singleShot(0, this, &TerminalInput::answerFromBuffer);
        return;
    }
    if (!m_notifier) {
        m_notifier = std::make_unique<QSocketNotifier>(STDIN_FILENO, QSocketNotifier::Read);
        connect(m_notifier.get(), &QSocketNotifier::activated, this, &TerminalInput::onReadable);
    }
    m_notifier->setEnabled(true);
}

void TerminalInput::abandon()
{
    m_onAnswer = {};
    m_buffered.clear();
    m_inputEnded = false;
    if (m_notifier)
        m_notifier->setEnabled(false);
}

void TerminalInput::onReadable()
{
    char chunk[4096];
    const ssize_t count = ::read(STDIN_FILENO, chunk, sizeof chunk);
    if (count < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (count <= 0)
        m_inputEnded = true; // Ctrl-D on a terminal; an error reads as the same
    else
        m_buffered.append(chunk, count);
    answerFromBuffer();
}

void TerminalInput::answerFromBuffer()
{
    if (!m_onAnswer)
        return;
    const qsizetype newline = m_buffered.indexOf('\n');
    if (newline >= 0) {
        QByteArray line = m_buffered.left(newline);
        m_buffered.remove(0, newline + 1);
        if (line.endsWith('\r'))
            line.chop(1);
        answer(QString::fromUtf8(line));
    } else if (m_inputEnded) {
        // A line cut short by Ctrl-D goes with the end of input: a question is not answered halfway.
        m_buffered.clear();
        m_inputEnded = false;
        printToTerminal(u"\n"_s); // the terminal does not echo Ctrl-D: the next text starts a line of its own
        answer(std::nullopt);
    }
}

void TerminalInput::answer(const std::optional<QString> &line)
{
    if (m_notifier)
        m_notifier->setEnabled(false);
    // Taken first: the handler may ask the next question.
    const AnswerHandler onAnswer = std::exchange(m_onAnswer, {});
    onAnswer(line);
}

} // namespace Tether::Ctl
