#include "messagewriter.h"

#include "demolog.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <chrono>
#include <thread>
#include <unistd.h>

using namespace Qt::Literals::StringLiterals;

namespace Demo {

namespace {

// Lines that are not valid messages for this client: text, blank lines, non-object JSON, an
// object that is not a message, and a response to a request nobody sent.
constexpr char GarbageLines[] = "this is not json\n"
                                "\n"
                                "   \n"
                                "[1,2,3]\n"
                                "{\"jsonrpc\":\"2.0\"}\n"
                                "{\"jsonrpc\":\"2.0\",\"id\":987654321,\"result\":{}}\n";

} // namespace

void MessageWriter::send(const QJsonObject &message)
{
    if (m_silenced || m_broken)
        return;
    sendCompact(QJsonDocument(message).toJson(QJsonDocument::Compact));
}

void MessageWriter::sendCompact(const QByteArray &json)
{
    if (m_silenced || m_broken)
        return;
    if (!m_garbage) {
        writeBytes(json + '\n');
        return;
    }
    writeBytes(QByteArray(GarbageLines));
    const qsizetype half = json.size() / 2;
    writeBytes(json.left(half));
    // A short pause makes it likely the client really sees the first half on its own; it only
    // delays output in --garbage mode, timers keep running afterwards.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    writeBytes(json.mid(half) + "\r\n");
    writeBytes(QByteArray("this is not json\n"));
}

void MessageWriter::sendRaw(const QByteArray &bytes)
{
    if (m_silenced || m_broken)
        return;
    writeBytes(bytes);
}

void MessageWriter::writeBytes(const QByteArray &bytes)
{
    if (m_broken)
        return;
    if (!writeFully(STDOUT_FILENO, bytes)) {
        // Typically EPIPE after the client closed its end; SIGPIPE is ignored so we keep running
        // (a client escalating to SIGKILL must still be the one that ends us).
        m_broken = true;
        logLine(u"stdout is not writable any more; dropping further messages"_s);
    }
}

} // namespace Demo
