#include "support/leavingserver.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;
using namespace Tether::Testing;

// The window, as the `tether` program, ends on SIGINT, SIGTERM and SIGHUP (a closed terminal, a
// logout) as it does from its Quit action: every server is closed politely and waited for.
class TestWindowSignals final : public QObject
{
    Q_OBJECT

private slots:
    void signalQuitsAndStopsEveryServer_data()
    {
        QTest::addColumn<int>("signalNumber");
        QTest::newRow("SIGINT") << SIGINT;
        QTest::newRow("SIGTERM") << SIGTERM;
        QTest::newRow("SIGHUP") << SIGHUP;
    }

    void signalQuitsAndStopsEveryServer()
    {
        QFETCH(int, signalNumber);
        LeavingServer server;
        QTemporaryDir home;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"QT_QPA_PLATFORM"_s, u"offscreen"_s);
        environment.insert(u"XDG_DATA_HOME"_s, home.filePath(u"data"_s));
        environment.insert(u"XDG_STATE_HOME"_s, home.filePath(u"state"_s));
        environment.insert(u"XDG_CONFIG_HOME"_s, home.filePath(u"config"_s));
        // A runtime folder of its own: one Tether per user would otherwise meet any other running.
        environment.insert(u"XDG_RUNTIME_DIR"_s, home.path());
        QProcess window;
        window.setProcessEnvironment(environment);
        window.start(QStringLiteral(TETHER_APP), {u"--config"_s, server.config()});
        QVERIFY(window.waitForStarted());
        QTRY_COMPARE_WITH_TIMEOUT(server.leftPids().size(), 2, 15000);
        // Connected: a server still starting is owed no polite close.
        QTRY_VERIFY_WITH_TIMEOUT(readFile(server.logFile).contains("demo: initialized"), 15000);
        const QList<qint64> left = server.leftPids();

        ::kill(pid_t(window.processId()), signalNumber);
        QVERIFY(window.waitForFinished(15000));
        QCOMPARE(window.exitStatus(), QProcess::NormalExit);
        QCOMPARE(window.exitCode(), 0);
        const QByteArray log = readFile(server.logFile);
        QVERIFY2(log.contains("demo: stdin closed; exiting"), log.constData());
        for (qint64 pid : left)
            QTRY_VERIFY2_WITH_TIMEOUT(!processAlive(pid), qPrintable(QString::number(pid)), 5000);
    }
};

QTEST_GUILESS_MAIN(TestWindowSignals)
#include "tst_windowsignals.moc"
