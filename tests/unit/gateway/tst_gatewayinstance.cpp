// The gateway's instance record: written private and atomic, removed only by its own instance,
// and trusted for a relay only when it is the user's alone, names the same config, its process
// runs and its relay socket, the user's alone, accepts a connection.
#include "gateway/gatewayinstance.h"
#include "gateway/gatewaytoken.h"

#include "support/testfiles.h"
#include "support/testprocess.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalServer>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

class TestGatewayInstance final : public QObject
{
    Q_OBJECT

private:
    GatewayInstanceRecord record(qint64 pid = QCoreApplication::applicationPid()) const
    {
        return {pid,
                u"0123456789abcdef0123456789abcdef"_s,
                u"http://127.0.0.1:%1/mcp"_s.arg(freeLoopbackPort()),
                m_config,
                gatewayTokenPath(m_config),
                u"0.1.0"_s,
                QDateTime::currentDateTimeUtc(),
                gatewayRelaySocketPath(u"0123456789abcdef0123456789abcdef"_s)};
    }

    QString otherConfig() const { return m_configDir.filePath(u"other.json"_s); }

    QTemporaryDir m_runtime;
    QTemporaryDir m_configDir;
    QString m_config;

private slots:
    void initTestCase()
    {
        qputenv("XDG_RUNTIME_DIR", QFile::encodeName(m_runtime.path()));
        m_config = m_configDir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(m_config, "{}"));
        QString error;
        QVERIFY2(loadOrCreateGatewayToken(gatewayTokenPath(m_config), &error), qPrintable(error));
        const QString name = gatewayInstanceRecordName(m_config);
        QVERIFY2(QRegularExpression(u"^gateway-[0-9a-f]{16}\\.json$"_s).match(name).hasMatch(), qPrintable(name));
        QCOMPARE(gatewayInstanceRecordPath(m_config), m_runtime.filePath(u"tether/"_s + name));
        QVERIFY(gatewayInstanceRecordName(otherConfig()) != name);
    }

    void init()
    {
        QFile::remove(gatewayInstanceRecordPath(m_config));
        QFile::remove(gatewayInstanceRecordPath(otherConfig()));
    }

    void writtenPrivateAndReadBack()
    {
        QString error;
        const GatewayInstanceRecord written = record();
        QVERIFY2(writeGatewayInstanceRecord(written, &error), qPrintable(error));
        struct stat info{};
        QCOMPARE(::stat(QFile::encodeName(m_runtime.filePath(u"tether"_s)).constData(), &info), 0);
        QCOMPARE(info.st_mode & 0777, 0700u);
        QCOMPARE(::stat(QFile::encodeName(gatewayInstanceRecordPath(m_config)).constData(), &info), 0);
        QCOMPARE(info.st_mode & 0777, 0600u);
        QString why;
        const std::optional<GatewayInstanceRecord> read = readGatewayInstanceRecord(m_config, &why);
        QVERIFY2(read, qPrintable(why));
        QCOMPARE(read->instance, written.instance);
        QCOMPARE(read->pid, written.pid);
        QCOMPARE(read->url, written.url);
        QCOMPARE(read->socket, written.socket);

        // Another instance's removal leaves it; its own removes it.
        removeGatewayInstanceRecord(m_config, u"another"_s);
        QVERIFY(QFile::exists(gatewayInstanceRecordPath(m_config)));
        removeGatewayInstanceRecord(m_config, written.instance);
        QVERIFY(!QFile::exists(gatewayInstanceRecordPath(m_config)));
    }

    void aTetherThatServesNoHttpIsRecordedToo()
    {
        GatewayInstanceRecord written = record();
        written.url.clear();
        written.tokenFile.clear();
        QString error;
        QVERIFY2(writeGatewayInstanceRecord(written, &error), qPrintable(error));
        QString why;
        const std::optional<GatewayInstanceRecord> read = readGatewayInstanceRecord(m_config, &why);
        QVERIFY2(read, qPrintable(why));
        QVERIFY(read->url.isEmpty() && read->tokenFile.isEmpty());
        QCOMPARE(read->socket, written.socket);
        // A URL without its token file is no record.
        written.url = u"http://127.0.0.1:27413/mcp"_s;
        QVERIFY2(writeGatewayInstanceRecord(written, &error), qPrintable(error));
        QVERIFY(!readGatewayInstanceRecord(m_config, &why));
        QVERIFY2(why.endsWith(u"is not a gateway instance record"_s), qPrintable(why));
    }

    void eachConfigHasARecordOfItsOwn()
    {
        GatewayInstanceRecord mine = record();
        GatewayInstanceRecord theirs = record();
        theirs.instance = u"fedcba9876543210fedcba9876543210"_s;
        theirs.configPath = otherConfig();
        QString error;
        QVERIFY2(writeGatewayInstanceRecord(mine, &error), qPrintable(error));
        QVERIFY2(writeGatewayInstanceRecord(theirs, &error), qPrintable(error));
        QString why;
        QCOMPARE(readGatewayInstanceRecord(m_config, &why)->instance, mine.instance);
        QCOMPARE(readGatewayInstanceRecord(otherConfig(), &why)->instance, theirs.instance);
        QCOMPARE(readGatewayInstanceRecords().size(), 2);
        // Removing one instance's record leaves the other's.
        removeGatewayInstanceRecord(otherConfig(), theirs.instance);
        QVERIFY(!QFile::exists(gatewayInstanceRecordPath(otherConfig())));
        QVERIFY(readGatewayInstanceRecord(m_config, &why));
    }

    void notBridgedTo_data()
    {
        QTest::addColumn<QString>("situation");
        QTest::addColumn<QString>("why");
        QTest::addColumn<bool>("recordRemains");
        QTest::newRow("no record") << u"none"_s << QString() << false;
        QTest::newRow("readable by others") << u"mode 644"_s << u".json can be used by others (mode 644)"_s << true;
        // Another config's record is that config's alone.
        QTest::newRow("another config") << u"other config"_s << QString() << false;
        QTest::newRow("process gone") << u"dead pid"_s << u"is gone; its record is removed"_s << false;
        QTest::newRow("no relay socket") << u"no socket"_s << u"has no relay socket; restart it"_s << true;
        QTest::newRow("socket gone") << u"socket gone"_s << u"gateway-0123456789abcdef0123456789abcdef.sock cannot be read"_s
                                     << true;
        QTest::newRow("socket open to others") << u"socket 666"_s << u".sock can be used by others (mode 666)"_s << true;
        QTest::newRow("nothing listens") << u"silent"_s << u"does not answer at "_s << true;
        QTest::newRow("not a record") << u"garbage"_s << u"is not a gateway instance record"_s << true;
    }

    void notBridgedTo()
    {
        QFETCH(QString, situation);
        QFETCH(QString, why);
        QFETCH(bool, recordRemains);
        QString error;
        GatewayInstanceRecord written = record();
        if (situation == u"other config")
            written.configPath = otherConfig();
        if (situation == u"dead pid") {
            QProcess exited;
            exited.start(u"true"_s);
            QVERIFY(exited.waitForStarted());
            written.pid = exited.processId();
            QVERIFY(exited.waitForFinished());
        }
        if (situation == u"no socket")
            written.socket.clear();
        QLocalServer listener;
        listener.setSocketOptions(QLocalServer::UserAccessOption);
        if (situation == u"socket 666" || situation == u"silent") {
            QVERIFY(makeGatewayRuntimeFolder(&error));
            QVERIFY(listener.listen(written.socket));
        }
        if (situation == u"socket 666")
            QVERIFY(::chmod(QFile::encodeName(written.socket).constData(), 0666) == 0);
        // A socket file whose listener is gone (closing removes the file: it is moved aside first):
        // nothing accepts a connection.
        if (situation == u"silent") {
            QVERIFY(QFile::rename(written.socket, written.socket + u".kept"_s));
            listener.close();
            QVERIFY(QFile::rename(written.socket + u".kept"_s, written.socket));
        }
        if (situation != u"none")
            QVERIFY2(writeGatewayInstanceRecord(written, &error), qPrintable(error));
        if (situation == u"mode 644")
            QVERIFY(::chmod(QFile::encodeName(gatewayInstanceRecordPath(m_config)).constData(), 0644) == 0);
        if (situation == u"garbage")
            QVERIFY(QFile(gatewayInstanceRecordPath(m_config)).resize(3));

        QString reason;
        QVERIFY(!findLiveGatewayInstance(m_config, &reason));
        QVERIFY2(why.isEmpty() ? reason.isEmpty() : reason.contains(why), qPrintable(reason));
        QCOMPARE(QFile::exists(gatewayInstanceRecordPath(m_config)), recordRemains);
        QFile::remove(written.socket);
    }

    // As the token file refuses a link, the record does: its target keeps its content and mode.
    void aLinkAtTheRecordPathIsRefused()
    {
        const QString target = m_configDir.filePath(u"target.txt"_s);
        QVERIFY(writeFile(target, "kept"));
        QVERIFY(::chmod(QFile::encodeName(target).constData(), 0644) == 0);
        QString error;
        QVERIFY(makeGatewayRuntimeFolder(&error));
        const QString path = gatewayInstanceRecordPath(m_config);
        QVERIFY(QFile::link(target, path));
        QVERIFY(!writeGatewayInstanceRecord(record(), &error));
        QCOMPARE(error, u"Cannot write the gateway's instance record: %1 is not a regular file; Tether does not "
                        "replace it: move it away"_s.arg(path));
        QCOMPARE(readFile(target), QByteArray("kept"));
        struct stat info{};
        QCOMPARE(::stat(QFile::encodeName(target).constData(), &info), 0);
        QCOMPARE(info.st_mode & 0777, 0644u);
        QVERIFY(QFileInfo(path).isSymLink());
        QFile::remove(path);
    }

    // What killed instances leave goes; what a running one holds stays.
    void staleFilesAreRemovedLiveOnesKept()
    {
        QString error;
        QVERIFY(makeGatewayRuntimeFolder(&error));
        // A running instance: this process, listening.
        GatewayInstanceRecord live = record();
        QLocalServer listener;
        listener.setSocketOptions(QLocalServer::UserAccessOption);
        QVERIFY(listener.listen(live.socket));
        QVERIFY(::chmod(QFile::encodeName(live.socket).constData(), 0600) == 0);
        QVERIFY2(writeGatewayInstanceRecord(live, &error), qPrintable(error));
        // A killed one: its process gone, its socket file left with nothing listening.
        GatewayInstanceRecord killed = record();
        QProcess exited;
        exited.start(u"true"_s);
        QVERIFY(exited.waitForStarted());
        killed.pid = exited.processId();
        QVERIFY(exited.waitForFinished());
        killed.instance = u"fedcba9876543210fedcba9876543210"_s;
        killed.configPath = otherConfig();
        killed.socket = gatewayRelaySocketPath(killed.instance);
        QLocalServer gone;
        QVERIFY(gone.listen(killed.socket));
        QVERIFY(QFile::rename(killed.socket, killed.socket + u".kept"_s));
        gone.close();
        QVERIFY(QFile::rename(killed.socket + u".kept"_s, killed.socket));
        QVERIFY(::chmod(QFile::encodeName(killed.socket).constData(), 0600) == 0);
        QVERIFY2(writeGatewayInstanceRecord(killed, &error), qPrintable(error));
        // A socket no record names and nothing listens on, and a file that only looks like one.
        const QString orphan = gatewayRelaySocketPath(u"orphan"_s);
        QVERIFY(gone.listen(orphan));
        QVERIFY(QFile::rename(orphan, orphan + u".kept"_s));
        gone.close();
        QVERIFY(QFile::rename(orphan + u".kept"_s, orphan));
        QVERIFY(::chmod(QFile::encodeName(orphan).constData(), 0600) == 0);
        const QString notASocket = gatewayRelaySocketPath(u"file"_s);
        QVERIFY(writeFile(notASocket, "not a socket"));

        QCOMPARE(readGatewayInstanceRecords().size(), 1); // the killed one is listed nowhere
        removeStaleGatewayFiles();
        QVERIFY(QFileInfo::exists(live.socket));
        QVERIFY(QFileInfo::exists(gatewayInstanceRecordPath(m_config)));
        QVERIFY(!QFileInfo::exists(killed.socket));
        QVERIFY(!QFileInfo::exists(gatewayInstanceRecordPath(otherConfig())));
        QVERIFY(!QFileInfo::exists(orphan));
        QVERIFY(QFileInfo::exists(notASocket));
        QString why;
        const std::optional<LiveGatewayInstance> found = findLiveGatewayInstance(m_config, &why);
        QVERIFY2(found, qPrintable(why));
        ::close(found->socket);
        QFile::remove(notASocket);
    }

    void relayedToWhenItsSocketAccepts()
    {
        const GatewayInstanceRecord written = record();
        QString error;
        QVERIFY(makeGatewayRuntimeFolder(&error));
        QLocalServer listener;
        listener.setSocketOptions(QLocalServer::UserAccessOption);
        QVERIFY(listener.listen(written.socket));
        QVERIFY(::chmod(QFile::encodeName(written.socket).constData(), 0600) == 0);
        QVERIFY2(writeGatewayInstanceRecord(written, &error), qPrintable(error));
        QString why;
        const std::optional<LiveGatewayInstance> live = findLiveGatewayInstance(m_config, &why);
        QVERIFY2(live, qPrintable(why));
        QCOMPARE(live->record.socket, written.socket);
        QVERIFY(live->socket >= 0);
        QVERIFY(listener.waitForNewConnection(5000));
        ::close(live->socket);
    }
};

QTEST_GUILESS_MAIN(TestGatewayInstance)
#include "tst_gatewayinstance.moc"
