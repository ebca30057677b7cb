#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

class QSocketNotifier;

namespace Tether::Ctl {

// Questions asked on the terminal: the question on stderr, the answer a line of stdin, read as
// it comes so that the event loop runs on while the user types (a signal still ends the command,
// a server may still withdraw its question).
class TerminalInput final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TerminalInput)

public:
    // The line typed, without its line break; nothing when input ended (Ctrl-D).
    using AnswerHandler = std::function<void(const std::optional<QString> &line)>;

    explicit TerminalInput(QObject *parent = nullptr);
    ~TerminalInput() override;

    // Why nobody can be asked here ("stdin is not a TTY"); nothing when stdin and stderr are both
    // terminals.
    static std::optional<QString> whyNoTerminal();

    // Prints `question` (server text in it is shown with visible controls) and hands the next
    // line to `onAnswer`. One question at a time: the handler may ask the next one.
    void ask(const QString &question, AnswerHandler onAnswer);
    // The question is no longer wanted: no answer goes to it, and what was typed for it is dropped.
    void abandon();
    bool isAsking() const { return bool(m_onAnswer); }

private:
    void onReadable();
    // Hands a whole line read earlier, or the end of input, to the question waiting.
    void answerFromBuffer();
    void answer(const std::optional<QString> &line);

    std::unique_ptr<QSocketNotifier> m_notifier; // made at the first question: stdin is read only when asked
    QByteArray m_buffered;                       // read, not yet handed on
    bool m_inputEnded = false;                   // read() saw the end of input since the last answer
    AnswerHandler m_onAnswer;
};

} // namespace Tether::Ctl
