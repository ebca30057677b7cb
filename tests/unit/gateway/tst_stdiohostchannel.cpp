// The line channel of the gateway on a connected socket, as a relayed host and the relay use it:
// lines both ways, the socket closed with the channel, and a peer that has gone ends the channel
// with a failed write rather than a SIGPIPE that would end the program; the end of the input
// leaves the output open.
#include "gateway/stdiohostchannel.h"

#include <QSignalSpy>
#include <QTest>

#include <sys/socket.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace Tether;

class TestStdioHostChannel final : public QObject
{
    Q_OBJECT

private:
    // A connected pair: the channel's end, and the peer's.
    static std::pair<int, int> socketPair()
    {
        int fds[2] = {-1, -1};
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
            return {-1, -1};
        return {fds[0], fds[1]};
    }

    // What the peer has to read now, without waiting.
    static QByteArray readSome(int fd)
    {
        char buffer[4096];
        const ssize_t count = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
        return count > 0 ? QByteArray(buffer, count) : QByteArray();
    }

private slots:
    void linesBothWaysAndTheSocketClosedWithTheChannel()
    {
        const auto [own, peer] = socketPair();
        QVERIFY(own >= 0);
        auto channel = std::make_unique<StdioHostChannel>(StdioHostChannel::socket(own, u"stdio (relayed)"_s));
        QCOMPARE(channel->transportName(), u"stdio (relayed)"_s);
        QSignalSpy lines(channel.get(), &StdioHostChannel::messageReceived);
        channel->start();
        QVERIFY(::write(peer, "{\"a\":1}\n{\"b\":", 13) == 13);
        QTRY_COMPARE(lines.size(), 1);
        QVERIFY(::write(peer, "2}\n", 3) == 3);
        QTRY_COMPARE(lines.size(), 2);
        QCOMPARE(lines.at(1).at(0).toByteArray(), QByteArray(R"({"b":2})"));

        // Messages sent in one turn of the event loop leave in one write when it ends.
        channel->send(R"({"c":3})", HostChannel::Role::Response, {});
        channel->send(R"({"d":4})", HostChannel::Role::Response, {});
        QCOMPARE(readSome(peer), QByteArray());
        QByteArray received;
        QTRY_VERIFY((received += readSome(peer)).endsWith("\n{\"d\":4}\n"));
        QCOMPARE(received, QByteArray("{\"c\":3}\n{\"d\":4}\n"));
        channel.reset();
        char byte = 0;
        QCOMPARE(::read(peer, &byte, 1), ssize_t(0)); // the end of the stream
        ::close(peer);
    }

    void aPeerThatHasGoneEndsTheChannel()
    {
        const auto [own, peer] = socketPair();
        QVERIFY(own >= 0);
        StdioHostChannel channel(StdioHostChannel::socket(own, u"stdio (relayed)"_s));
        QSignalSpy finished(&channel, &StdioHostChannel::finished);
        ::close(peer);
        channel.send(R"({"late":true})", HostChannel::Role::Notification, {});
        QTRY_COMPARE(finished.size(), 1);
        QVERIFY2(finished.at(0).at(0).toString().startsWith(u"the socket cannot be written"_s),
                 qPrintable(finished.at(0).at(0).toString()));
    }

    void theEndOfTheInputEndsTheChannel()
    {
        const auto [own, peer] = socketPair();
        QVERIFY(own >= 0);
        StdioHostChannel channel(StdioHostChannel::socket(own, u"stdio (relayed)"_s));
        QSignalSpy finished(&channel, &StdioHostChannel::finished);
        channel.start();
        ::close(peer);
        QTRY_COMPARE(finished.size(), 1);
        QCOMPARE(finished.at(0).at(0).toString(), u"the host closed the socket"_s);
        QCOMPARE(channel.ending(), StdioHostChannel::Ending::InputClosed);
    }

    // A line longer than the bound ends the channel, and says so apart from an input that ended.
    void aLineOverTheBoundEndsTheChannel()
    {
        const auto [own, peerEnd] = socketPair();
        const int peer = peerEnd; // a structured binding cannot be captured by the lambda below (clang 14)
        QVERIFY(own >= 0);
        StdioHostChannel channel(StdioHostChannel::socket(own, u"stdio (relayed)"_s));
        QSignalSpy finished(&channel, &StdioHostChannel::finished);
        QSignalSpy lines(&channel, &StdioHostChannel::messageReceived);
        channel.start();
        QCOMPARE(channel.ending(), StdioHostChannel::Ending::Running);
        const QByteArray tooLong(StdioHostChannel::MaxLineBytes + 1, 'x');
        qsizetype sent = 0;
        // Written as the channel reads: the socket's buffer holds far less than the line.
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty() || [&] {
            const ssize_t chunk = ::send(peer, tooLong.constData() + sent, size_t(tooLong.size() - sent),
                                         MSG_DONTWAIT | MSG_NOSIGNAL);
            sent += std::max<ssize_t>(chunk, 0);
            return false;
        }(), 20000);
        QCOMPARE(finished.at(0).at(0).toString(), u"the host sent a line longer than 16 MiB; the session ends"_s);
        QCOMPARE(channel.ending(), StdioHostChannel::Ending::LineTooLong);
        QVERIFY(lines.isEmpty());
        ::close(peer);
    }

    // A host that closed its input still reads the answers to what it sent: they are written,
    // outputWritten() says when, and what is still queued goes when the channel does.
    void aChannelWhoseInputEndedStillWrites()
    {
        const auto [own, peer] = socketPair();
        QVERIFY(own >= 0);
        auto channel = std::make_unique<StdioHostChannel>(StdioHostChannel::socket(own, u"stdio (relayed)"_s));
        QSignalSpy finished(channel.get(), &StdioHostChannel::finished);
        QSignalSpy written(channel.get(), &StdioHostChannel::outputWritten);
        channel->start();
        QVERIFY(::shutdown(peer, SHUT_WR) == 0);
        QTRY_COMPARE(finished.size(), 1);
        QVERIFY(channel->canWrite());
        QVERIFY(channel->isOutputWritten());
        channel->send(R"({"id":1})", HostChannel::Role::Response, {});
        QVERIFY(!channel->isOutputWritten());
        QTRY_COMPARE(written.size(), 1);
        QVERIFY(channel->isOutputWritten());
        QCOMPARE(readSome(peer), QByteArray("{\"id\":1}\n"));
        channel->send(R"({"id":2})", HostChannel::Role::Response, {});
        channel.reset();
        QCOMPARE(readSome(peer), QByteArray("{\"id\":2}\n"));
        ::close(peer);
    }
};

QTEST_GUILESS_MAIN(TestStdioHostChannel)
#include "tst_stdiohostchannel.moc"
