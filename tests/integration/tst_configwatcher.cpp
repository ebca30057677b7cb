// Hot reload: a changed config file restarts only the servers whose settings changed.
#include "config/configfile.h"
#include "config/configwatcher.h"
#include "manager/servermanager.h"
#include "support/fakeenvironment.h"
#include "support/stopallandwait.h"
#include "support/testfiles.h"
#include "support/testprocess.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

QByteArray configWith(const QJsonArray &secondArguments)
{
    const QJsonObject heartbeatOff{{u"enabled"_s, false}};
    return QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{
        {u"steady"_s, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}, {u"heartbeat"_s, heartbeatOff}}},
        {u"edited"_s, QJsonObject{{u"command"_s, QStringLiteral(TETHER_DEMO_SERVER)}, {u"args"_s, secondArguments},
                                  {u"heartbeat"_s, heartbeatOff}}},
    }}}).toJson();
}

// Like editors that save by writing a new file and renaming it over the old one.
bool saveByRename(const QString &path, const QByteArray &content)
{
    const QString temporary = path + u".new"_s;
    return writeFile(temporary, content) && ::rename(QFile::encodeName(temporary).constData(), QFile::encodeName(path).constData()) == 0;
}

const ConfigContext Context{fakeEnvironment({}), {}};

} // namespace

class TestConfigWatcher final : public QObject
{
    Q_OBJECT

private slots:
    void reloadRestartsOnlyChangedServers()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"servers.json"_s);
        QVERIFY(writeFile(path, configWith({})));
        ServerManager manager;
        manager.applyConfig(loadConfig(path, Context));
        QTRY_VERIFY_WITH_TIMEOUT(manager.status(u"steady"_s)->state == ServerState::Connected
                                     && manager.status(u"edited"_s)->state == ServerState::Connected,
                                 10000);
        const qint64 steady = manager.status(u"steady"_s)->pid;
        const qint64 edited = manager.status(u"edited"_s)->pid;

        ConfigWatcher watcher(path, Context, std::chrono::milliseconds(50));
        connect(&watcher, &ConfigWatcher::reloaded, &manager,
                [&](const ConfigDocument &document) { manager.applyConfig(document); });
        QSignalSpy reloaded(&watcher, &ConfigWatcher::reloaded);
        QSignalSpy failed(&watcher, &ConfigWatcher::reloadFailed);

        QVERIFY(saveByRename(path, configWith({u"--tools"_s, u"1"_s})));
        QTRY_COMPARE_WITH_TIMEOUT(reloaded.size(), 1, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(manager.registry().find(u"edited__tool_1"_s).has_value(), 10000);
        QCOMPARE(manager.status(u"steady"_s)->pid, steady);
        QVERIFY(manager.status(u"edited"_s)->pid != edited);
        QVERIFY(!processAlive(edited));

        // A broken file is reported and changes nothing; the watcher still follows the renamed file.
        const qint64 editedNow = manager.status(u"edited"_s)->pid;
        QVERIFY(writeFile(path, "{ \"mcpServers\": { \"steady\": "));
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 5000);
        QVERIFY(failed.at(0).at(0).toStringList().join(u' ').contains(u"line 1"_s));
        QCOMPARE(reloaded.size(), 1);
        QCOMPARE(manager.status(u"steady"_s)->pid, steady);
        QCOMPARE(manager.status(u"edited"_s)->pid, editedNow);

        // Fixed again in place: picked up.
        QVERIFY(writeFile(path, configWith({})));
        QTRY_COMPARE_WITH_TIMEOUT(reloaded.size(), 2, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(!manager.registry().find(u"edited__tool_1"_s).has_value()
                                     && manager.status(u"edited"_s)->state == ServerState::Connected,
                                 10000);
        QCOMPARE(manager.status(u"steady"_s)->pid, steady);

        QVERIFY(stopAllAndWait(manager));
    }
};

QTEST_GUILESS_MAIN(TestConfigWatcher)
#include "tst_configwatcher.moc"
