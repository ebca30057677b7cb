#pragma once

#include <QByteArray>
#include <QtGlobal>

class QJsonObject;

namespace Demo {

// Writes protocol messages to stdout as compact JSON lines, straight to fd 1 so nothing sits in
// a buffer when the process exits abruptly. In garbage mode each message also comes with lines
// a robust client must skip, a CRLF ending and a split write.
class MessageWriter final
{
    Q_DISABLE_COPY_MOVE(MessageWriter)

public:
    MessageWriter() = default;

    void setGarbage(bool garbage) { m_garbage = garbage; }
    // A silenced writer drops everything (used by the 'hang' tool).
    void setSilenced(bool silenced) { m_silenced = silenced; }
    bool isSilenced() const { return m_silenced; }

    void send(const QJsonObject &message);
    // A message already serialised as compact JSON, without its line end.
    void sendCompact(const QByteArray &json);
    // Writes bytes as they are, without garbage decoration.
    void sendRaw(const QByteArray &bytes);

private:
    void writeBytes(const QByteArray &bytes);

    bool m_garbage = false;
    bool m_silenced = false;
    bool m_broken = false;
};

} // namespace Demo
