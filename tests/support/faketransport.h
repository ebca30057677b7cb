#pragma once

#include "protocol/jsonrpc.h"
#include "transport/transport.h"

#include <QList>
#include <QMetaObject>

namespace Tether::Testing {

// An in-process transport the test drives by hand: it records what the client sends and
// delivers what the test injects. close() only records the request; the test decides when
// (and whether) the transport reports closed, to exercise slow and missing close signals.
// abort() says so with abortRequested() and then closes as close() does.
class FakeTransport final : public Transport
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FakeTransport)

public:
    using Transport::Transport;

    void start() override
    {
        m_open = true;
        QMetaObject::invokeMethod(this, &Transport::started, Qt::QueuedConnection);
    }
    void send(const QJsonObject &message) override { sent.append(message); emit messageSent(message); }
    void close() override
    {
        closeRequested = true;
        if (closeOnRequest) {
            TransportClosure closure;
            closure.requested = true;
            finishClose(closure);
        }
    }
    void abort() override
    {
        emit abortRequested();
        close();
    }
    bool isOpen() const override { return m_open; }
    QString description() const override { return QStringLiteral("fake"); }

    void sendJson(const QByteArray &json) override
    {
        sentJson.append(json);
        Transport::sendJson(json);
    }

    void inject(const QJsonObject &message) { emit messageReceived(message); }
    // A message that came on the HTTP stream of the client's request `related` (Streamable HTTP).
    void injectRelated(const QJsonObject &message, const QJsonValue &related)
    {
        emit messageReceived(message, {}, related);
    }
    // A line as the stdio transport reads it: offered as text first, then parsed.
    void injectLine(const QByteArray &line)
    {
        if (takenAsText(line))
            return;
        const JsonRpc::DecodedPayload decoded = JsonRpc::decodePayload(line);
        for (const QJsonObject &message : decoded.messages)
            emit messageReceived(message, decoded.text);
    }
    void finishClose(TransportClosure closure)
    {
        if (m_closed)
            return;
        m_open = false;
        m_closed = true;
        emit closed(closure);
    }

    // The last message sent with this method, or an empty object.
    QJsonObject lastSent(const QString &method) const
    {
        for (auto it = sent.crbegin(); it != sent.crend(); ++it) {
            if (it->value(u"method").toString() == method)
                return *it;
        }
        return {};
    }
    int countSent(const QString &method) const
    {
        return int(std::count_if(sent.cbegin(), sent.cend(),
                                 [&](const QJsonObject &m) { return m.value(u"method").toString() == method; }));
    }

    QList<QJsonObject> sent;
    QList<QByteArray> sentJson; // what was sent as JSON text, as it was written
    bool closeRequested = false;
    bool closeOnRequest = true;

signals:
    void messageSent(const QJsonObject &message);
    void abortRequested();

private:
    bool m_open = false;
    bool m_closed = false;
};

} // namespace Tether::Testing
