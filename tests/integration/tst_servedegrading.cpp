// tetherctl serve and the files of an instance when something is wrong, with real tetherctl
// processes: a link planted at the instance record is refused and its target left alone; the
// socket and record of an instance killed with SIGKILL are removed by the next one and listed by
// nothing; serve --http without its relay socket says so without -v; serve over stdio fed a line
// over 16 MiB exits nonzero and says why.
#include "gateway/gatewayinstance.h"
#include "support/gatewayfixtures.h"
#include "support/httpgatewayprocess.h"
#include "support/testfiles.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

const QByteArray EmptyConfig = R"({"mcpServers": {}})";

// `tetherctl serve --http --port 0` without -v, in `runtimeDir`: what a user sees.
unsigned modeOf(const QString &path)
{
    struct stat info{};
    return ::stat(QFile::encodeName(path).constData(), &info) == 0 ? unsigned(info.st_mode & 0777) : 0;
}

} // namespace

class TestServeDegrading final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // As the token file refuses a link, the record does: its target is neither written nor chmod'ed,
    // and the user is told what to do.
    void aLinkAtTheRecordIsRefusedAndItsTargetLeftAlone()
    {
        QTemporaryDir runtime;
        QTemporaryDir configDir;
        QVERIFY(runtime.isValid() && configDir.isValid());
        const QString config = writeServersFile(configDir, EmptyConfig);
        qputenv("XDG_RUNTIME_DIR", QFile::encodeName(runtime.path()));
        QString error;
        QVERIFY2(makeGatewayRuntimeFolder(&error), qPrintable(error));
        const QString target = configDir.filePath(u"precious.txt"_s);
        QVERIFY(writeFile(target, "the user's own words\n"));
        QVERIFY(QFile::setPermissions(target, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup
                                                  | QFileDevice::ReadOther));
        const QString record = gatewayInstanceRecordPath(config);
        QVERIFY(QFile::link(target, record));

        const HttpGatewayProcess serve(config, runtime.path(), GatewayLog::Plain);
        QVERIFY2(serve.isServing(), serve.stderrText().constData());
        QCOMPARE(readFile(target), QByteArray("the user's own words\n"));
        QCOMPARE(modeOf(target), 0644u);
        QVERIFY(QFileInfo(record).isSymLink());
        const QStringList said = serve.stderrLinesWith(u"relay socket"_s);
        QCOMPARE(said.size(), 1);
        QVERIFY2(said.first().contains(u"%1 is not a regular file; Tether does not replace it: move it away"_s.arg(record)),
                 serve.stderrText().constData());
    }

    // A SIGKILL leaves the socket and the record; nothing lists that instance, and the next
    // instance (of another config even) removes them before it listens.
    void theSocketOfAKilledInstanceIsRemovedByTheNext()
    {
        QTemporaryDir runtime;
        QTemporaryDir killedDir;
        QTemporaryDir nextDir;
        QVERIFY(runtime.isValid() && killedDir.isValid() && nextDir.isValid());
        const QString killedConfig = writeServersFile(killedDir, EmptyConfig);
        const QString nextConfig = writeServersFile(nextDir, EmptyConfig);
        qputenv("XDG_RUNTIME_DIR", QFile::encodeName(runtime.path()));

        HttpGatewayProcess killed(killedConfig, runtime.path());
        QVERIFY2(killed.isServing(), killed.stderrText().constData());
        QString why;
        const std::optional<GatewayInstanceRecord> record = readGatewayInstanceRecord(killedConfig, &why);
        QVERIFY2(record, qPrintable(why));
        QVERIFY(QFileInfo::exists(record->socket));
        QCOMPARE(readGatewayInstanceRecords().size(), 1);
        killed.process().kill();
        QVERIFY(killed.process().waitForFinished(10000));
        QCOMPARE(killed.process().exitStatus(), QProcess::CrashExit);
        // Nothing cleaned up: both files are still there, but the instance is listed nowhere.
        QVERIFY(QFileInfo::exists(record->socket));
        QVERIFY(QFileInfo::exists(gatewayInstanceRecordPath(killedConfig)));
        QVERIFY(readGatewayInstanceRecords().isEmpty());

        HttpGatewayProcess next(nextConfig, runtime.path());
        QVERIFY2(next.isServing(), next.stderrText().constData());
        QVERIFY(!QFileInfo::exists(record->socket));
        QVERIFY(!QFileInfo::exists(gatewayInstanceRecordPath(killedConfig)));
        QVERIFY2(next.stderrContains(u"which no Tether listens on"_s), next.stderrText().constData());
        const QList<GatewayInstanceRecord> listed = readGatewayInstanceRecords();
        QCOMPARE(listed.size(), 1);
        QCOMPARE(listed.first().pid, next.process().processId());
        QVERIFY(QFileInfo::exists(listed.first().socket));
    }

    // The runtime folder cannot hold the relay socket (its path too long for one): serve --http
    // still serves HTTP, and says without -v what it lacks, what that does and what to do.
    void servingWithoutARelaySocketIsSaid()
    {
        QTemporaryDir configDir;
        QVERIFY(configDir.isValid());
        const QString config = writeServersFile(configDir, EmptyConfig);
        const QString runtime = m_dir.filePath(QString(80, u'r'));
        QVERIFY(QDir().mkpath(runtime));
        const HttpGatewayProcess serve(config, runtime, GatewayLog::Plain);
        QVERIFY2(serve.isServing(), serve.stderrText().constData());
        const QStringList said = serve.stderrLinesWith(u"relay socket"_s);
        QCOMPARE(said.size(), 1);
        QVERIFY2(said.first().startsWith(u"tetherctl: running without a relay socket: each client's `tetherctl "
                                         "serve` will start the servers a second time"_s),
                 serve.stderrText().constData());
        QVERIFY2(said.first().endsWith(u"set XDG_RUNTIME_DIR to a shorter folder"_s), serve.stderrText().constData());
    }

    // A runtime folder that cannot be made (XDG_RUNTIME_DIR names a file) stops serve --http
    // before anything starts, saying what to do.
    void anUnusableRuntimeFolderIsSaid()
    {
        QTemporaryDir configDir;
        QVERIFY(configDir.isValid());
        const QString config = writeServersFile(configDir, EmptyConfig);
        const QString notAFolder = configDir.filePath(u"not-a-folder"_s);
        QVERIFY(writeFile(notAFolder, "a file"));
        const HttpGatewayProcess serve(config, notAFolder, GatewayLog::Plain);
        QVERIFY(!serve.isServing());
        QCOMPARE(serve.stderrText().count('\n'), 1);
        QVERIFY2(serve.stderrContains(u"Not a directory; set XDG_RUNTIME_DIR to a folder of your own"_s),
                 serve.stderrText().constData());
    }

    void aLineOverTheBoundEndsServeWithAnError_data()
    {
        QTest::addColumn<bool>("relayed");
        QTest::newRow("supervising its servers") << false;
        QTest::newRow("relayed to a Tether") << true;
    }

    void aLineOverTheBoundEndsServeWithAnError()
    {
        QFETCH(bool, relayed);
        QTemporaryDir runtime;
        QTemporaryDir configDir;
        QVERIFY(runtime.isValid() && configDir.isValid());
        const QString config = writeServersFile(configDir, configText({{u"demo"_s, demoEntry()}}));
        std::unique_ptr<HttpGatewayProcess> instance;
        if (relayed) {
            instance = std::make_unique<HttpGatewayProcess>(config, runtime.path());
            QVERIFY2(instance->isServing(), instance->stderrText().constData());
        }
        QProcess serve;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"XDG_RUNTIME_DIR"_s, runtime.path());
        serve.setProcessEnvironment(environment);
        serve.start(QStringLiteral(TETHERCTL), {u"serve"_s, u"--config"_s, config});
        QVERIFY(serve.waitForStarted());
        serve.write(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"big","version":"0"}}})"
                    "\n");
        QByteArray out;
        QTRY_VERIFY_WITH_TIMEOUT((out += serve.readAllStandardOutput()).contains("\"id\":1"), 20000);
        // A message with 17 MiB in one string, then the rest of the stream.
        const QByteArray head = R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"demo__echo","arguments":{"message":)";
        serve.write(head + '"' + QByteArray(17 * 1024 * 1024, 'x') + "\"}}}\n");
        const bool finished = serve.waitForFinished(60000);
        const QString err = QString::fromUtf8(serve.readAllStandardError());
        QVERIFY2(finished, qPrintable(err));
        QCOMPARE(serve.exitStatus(), QProcess::NormalExit);
        QCOMPARE(serve.exitCode(), 2);
        QCOMPARE(err.count(u'\n'), 1);
        QVERIFY2(err.startsWith(u"tetherctl: serve: the client sent a line of more than 16 MiB on stdin"_s), qPrintable(err));
        QVERIFY2(err.contains(u"Have the client send less in one message"_s), qPrintable(err));
    }
};

QTEST_GUILESS_MAIN(TestServeDegrading)
#include "tst_servedegrading.moc"
