// The descriptor I/O under the stdio transport and the gateway's stdio channel, on real pipes:
// writes of one turn leave in one write at its end (or at the end of a reader's batch), a full
// pipe is waited for without losing a byte, a reader that has gone fails the writer instead of
// raising SIGPIPE, and lines are read across reads up to the end of the stream.
#include "transport/descriptorwriter.h"
#include "transport/linereader.h"

#include <QSignalSpy>
#include <QTest>

#include <cerrno>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

using namespace Tether;

class TestDescriptorIo final : public QObject
{
    Q_OBJECT

private:
    // A pipe whose ends are closed with it; the write end, the read end or both non-blocking.
    struct Pipe
    {
        int read = -1;
        int write = -1;

        Pipe()
        {
            int fds[2];
            if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0) {
                read = fds[0];
                write = fds[1];
            }
        }
        ~Pipe()
        {
            closeRead();
            closeWrite();
        }
        void closeRead()
        {
            if (read >= 0)
                ::close(read);
            read = -1;
        }
        void closeWrite()
        {
            if (write >= 0)
                ::close(write);
            write = -1;
        }
        int waiting() const
        {
            int bytes = 0;
            ::ioctl(read, FIONREAD, &bytes);
            return bytes;
        }
        QByteArray readAll() const
        {
            QByteArray all;
            char buffer[65536];
            for (ssize_t count; (count = ::read(read, buffer, sizeof buffer)) > 0;)
                all.append(buffer, count);
            return all;
        }
    };

private slots:
    void writesOfOneTurnLeaveTogetherAtItsEnd()
    {
        Pipe pipe;
        QVERIFY(pipe.read >= 0);
        DescriptorWriter writer(pipe.write, true);
        QSignalSpy drained(&writer, &DescriptorWriter::drained);
        writer.write("{\"a\":1}");
        writer.write("\n");
        writer.write("{\"b\":2}\n");
        QCOMPARE(pipe.waiting(), 0);
        QCOMPARE(writer.pendingBytes(), qsizetype(16));
        QTRY_COMPARE(drained.size(), 1);
        QCOMPARE(pipe.readAll(), QByteArray("{\"a\":1}\n{\"b\":2}\n"));
        QCOMPARE(writer.pendingBytes(), qsizetype(0));
    }

    void writesInABatchLeaveAtItsEnd()
    {
        Pipe pipe;
        DescriptorWriter writer(pipe.write, true);
        {
            const DescriptorWriter::Batch outer;
            {
                const DescriptorWriter::Batch inner;
                writer.write("one\n");
            }
            QCOMPARE(pipe.waiting(), 0); // the outer batch is still open
            writer.write("two\n");
        }
        QCOMPARE(pipe.readAll(), QByteArray("one\ntwo\n"));
    }

    void aBatchHeldAcrossAnEventLoopStillWrites()
    {
        Pipe pipe;
        DescriptorWriter writer(pipe.write, true);
        const DescriptorWriter::Batch batch;
        writer.write("waited for\n");
        // A handler that runs an event loop of its own, while the batch is open, waits for this.
        QTRY_COMPARE(pipe.waiting(), 11);
    }

    void aWriterDeletedInABatchIsForgotten()
    {
        Pipe pipe;
        {
            const DescriptorWriter::Batch batch;
            auto writer = std::make_unique<DescriptorWriter>(pipe.write, true);
            writer->write("never\n");
        }
        QCOMPARE(pipe.waiting(), 0);
    }

    void aFullPipeIsWaitedForWithoutLosingAByte()
    {
        Pipe pipe;
        DescriptorWriter writer(pipe.write, true);
        QSignalSpy drained(&writer, &DescriptorWriter::drained);
        QByteArray sent;
        for (int i = 0; i < 4000; ++i)
            sent += QByteArray::number(i).rightJustified(250, 'x') + '\n';
        writer.write(sent); // about 1 MiB, far more than a pipe holds
        writer.flush();
        QVERIFY(writer.pendingBytes() > 0);
        QVERIFY(drained.isEmpty());
        QByteArray received;
        QTRY_VERIFY_WITH_TIMEOUT((received += pipe.readAll(), received.size() == sent.size()), 10000);
        QCOMPARE(received, sent);
        QTRY_COMPARE(drained.size(), 1);
        QCOMPARE(writer.pendingBytes(), qsizetype(0));
    }

    void aReaderThatHasGoneFailsTheWriterOnce()
    {
        Pipe pipe;
        DescriptorWriter writer(pipe.write, true);
        QSignalSpy failed(&writer, &DescriptorWriter::failed);
        pipe.closeRead();
        writer.write("late\n");
        QTRY_COMPARE(failed.size(), 1);
        QCOMPARE(failed.at(0).at(0).toInt(), EPIPE);
        QVERIFY(writer.hasFailed());
        writer.write("later\n");
        writer.flush();
        QCOMPARE(writer.pendingBytes(), qsizetype(0));
        QCOMPARE(failed.size(), 1);
    }

    void linesAcrossReadsAndALastLineWithoutItsEnd()
    {
        Pipe pipe;
        LineReader reader(pipe.read, 1024, true);
        QSignalSpy lines(&reader, &LineReader::lineReceived);
        QSignalSpy ended(&reader, &LineReader::ended);
        reader.start();
        QVERIFY(::write(pipe.write, "{\"a\":1}\r\n\n{\"b\":", 15) == 15);
        QTRY_COMPARE(lines.size(), 1);
        QCOMPARE(lines.at(0).at(0).toByteArray(), QByteArray("{\"a\":1}"));
        QVERIFY(::write(pipe.write, "2}", 2) == 2);
        pipe.closeWrite();
        QTRY_COMPARE(ended.size(), 1);
        QCOMPARE(lines.size(), 2);
        QCOMPARE(lines.at(1).at(0).toByteArray(), QByteArray("{\"b\":2}"));
    }

    void aLineTooLongStopsTheReader()
    {
        Pipe pipe;
        LineReader reader(pipe.read, 16, true);
        QSignalSpy lines(&reader, &LineReader::lineReceived);
        QSignalSpy overflowed(&reader, &LineReader::overflowed);
        reader.start();
        QVERIFY(::write(pipe.write, "short\n0123456789abcdefg\nnext\n", 29) == 29);
        QTRY_COMPARE(overflowed.size(), 1);
        QCOMPARE(lines.size(), 1);
        pipe.closeWrite();
        reader.readAvailable();
        QCOMPARE(lines.size(), 1);
        QCOMPARE(overflowed.size(), 1);
    }

    void aReaderStoppedByALineReadsNoMore()
    {
        Pipe pipe;
        LineReader reader(pipe.read, 1024, true);
        QSignalSpy lines(&reader, &LineReader::lineReceived);
        connect(&reader, &LineReader::lineReceived, &reader, &LineReader::stop);
        QVERIFY(::write(pipe.write, "one\ntwo\n", 8) == 8);
        reader.readAvailable();
        QCOMPARE(lines.size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestDescriptorIo)
#include "tst_descriptorio.moc"
