// The tasks hosts create through the gateway: each server's task under an id of the gateway's,
// unique across servers, owned by one host, bounded per host; and the ids rewritten in what
// servers and hosts send.
#include "gateway/gatewaytasks.h"

#include <QSet>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;

namespace {

// Hosts are known by address alone.
char hosts[2];
const void *const hostA = &hosts[0];
const void *const hostB = &hosts[1];

const auto RelatedTask = u"io.modelcontextprotocol/related-task"_s;

QStringList idsOf(const QList<GatewayTasks::Task> &tasks)
{
    QStringList ids;
    for (const GatewayTasks::Task &task : tasks)
        ids.append(task.id);
    return ids;
}

} // namespace

class TestGatewayTasks final : public QObject
{
    Q_OBJECT

private slots:
    void idsAreReadableAndUniqueAcrossServers()
    {
        GatewayTasks tasks;
        QCOMPARE(tasks.add(u"github"_s, u"1"_s, hostA), u"github__1"_s);
        QCOMPARE(tasks.add(u"fs"_s, u"1"_s, hostA), u"fs__1"_s);
        // The same task again keeps its id.
        QCOMPARE(tasks.add(u"github"_s, u"1"_s, hostA), u"github__1"_s);
        QCOMPARE(tasks.ofHost(hostA).size(), 2);

        const GatewayTasks::Task *task = tasks.find(u"fs__1"_s);
        QVERIFY(task);
        QCOMPARE(task->id, u"fs__1"_s);
        QCOMPARE(task->serverName, u"fs"_s);
        QCOMPARE(task->serverTaskId, u"1"_s);
        QCOMPARE(task->host, hostA);
        QCOMPARE(tasks.findByServer(u"github"_s, u"1"_s)->id, u"github__1"_s);
        QVERIFY(!tasks.find(u"github__2"_s));
        QVERIFY(!tasks.findByServer(u"github"_s, u"2"_s));
        QVERIFY(!tasks.findByServer(u"gitlab"_s, u"1"_s));
    }

    // "a" + "b__c" and "a__b" + "c" both read "a__b__c": the second gets a suffix.
    void aClashGetsASuffix()
    {
        GatewayTasks tasks;
        QCOMPARE(tasks.add(u"a"_s, u"b__c"_s, hostA), u"a__b__c"_s);
        QCOMPARE(tasks.add(u"a__b"_s, u"c"_s, hostB), u"a__b__c#2"_s);
        // A server's own id that reads like the suffixed one is no clash with itself.
        const QString third = tasks.add(u"a"_s, u"b__c#2"_s, hostA);
        QVERIFY(third != u"a__b__c"_s && third != u"a__b__c#2"_s);
        QCOMPARE(tasks.find(u"a__b__c#2"_s)->serverName, u"a__b"_s);
        QCOMPARE(tasks.find(u"a__b__c#2"_s)->serverTaskId, u"c"_s);
        QCOMPARE(tasks.find(u"a__b__c#2"_s)->host, hostB);
        QCOMPARE(tasks.findByServer(u"a"_s, u"b__c#2"_s)->id, third);
        QCOMPARE(tasks.findByServer(u"a"_s, u"b__c"_s)->id, u"a__b__c"_s);
    }

    void ofHostIsTheHostsOwnOldestFirst()
    {
        GatewayTasks tasks;
        tasks.add(u"s"_s, u"3"_s, hostA);
        tasks.add(u"s"_s, u"1"_s, hostB);
        tasks.add(u"t"_s, u"2"_s, hostA);
        QCOMPARE(idsOf(tasks.ofHost(hostA)), (QStringList{u"s__3"_s, u"t__2"_s}));
        QCOMPARE(idsOf(tasks.ofHost(hostB)), (QStringList{u"s__1"_s}));
        QVERIFY(tasks.ofHost(nullptr).isEmpty());
    }

    void forgetHostForgetsItsTasksAlone()
    {
        GatewayTasks tasks;
        tasks.add(u"s"_s, u"1"_s, hostA);
        tasks.add(u"s"_s, u"2"_s, hostB);
        tasks.add(u"t"_s, u"3"_s, hostA);
        tasks.forgetHost(hostA);
        QVERIFY(tasks.ofHost(hostA).isEmpty());
        QVERIFY(!tasks.find(u"s__1"_s));
        QVERIFY(!tasks.find(u"t__3"_s));
        QVERIFY(!tasks.findByServer(u"s"_s, u"1"_s));
        QVERIFY(!tasks.findByServer(u"t"_s, u"3"_s));
        QCOMPARE(idsOf(tasks.ofHost(hostB)), (QStringList{u"s__2"_s}));
        QCOMPARE(tasks.findByServer(u"s"_s, u"2"_s)->host, hostB);
        // Its ids are free again, and the host may come back.
        QCOMPARE(tasks.add(u"s"_s, u"1"_s, hostA), u"s__1"_s);
        tasks.forgetHost(nullptr); // nobody's: nothing happens
        QCOMPARE(tasks.ofHost(hostA).size(), 1);
    }

    void eachHostKeepsItsNewestTasks()
    {
        GatewayTasks tasks;
        tasks.add(u"s"_s, u"b-0"_s, hostB);
        for (int i = 0; i <= GatewayTasks::MaxTasksPerHost; ++i)
            tasks.add(u"s"_s, QString::number(i), hostA);
        const QList<GatewayTasks::Task> own = tasks.ofHost(hostA);
        QCOMPARE(own.size(), GatewayTasks::MaxTasksPerHost);
        QCOMPARE(own.first().id, u"s__1"_s);
        QCOMPARE(own.last().id, QString(u"s__"_s + QString::number(GatewayTasks::MaxTasksPerHost)));
        QVERIFY(!tasks.find(u"s__0"_s));
        QVERIFY(!tasks.findByServer(u"s"_s, u"0"_s));
        // Another host's tasks do not count against it.
        QCOMPARE(idsOf(tasks.ofHost(hostB)), (QStringList{u"s__b-0"_s}));
        QVERIFY(tasks.find(u"s__b-0"_s));
    }

    // A perHost server runs a session (a process) per host: two of them may well give their own
    // tasks the same id. Each host's task stays its own.
    void theSameServerTaskIdOfTwoHostsSessionsStaysApart()
    {
        GatewayTasks tasks;
        const QString first = tasks.add(u"s"_s, u"1"_s, hostA);
        const QString second = tasks.add(u"s"_s, u"1"_s, hostB);
        QVERIFY2(first != second, qPrintable(u"both hosts were given %1"_s.arg(first)));
        QCOMPARE(tasks.find(first)->host, hostA);
        QVERIFY(tasks.find(second));
        QCOMPARE(tasks.find(second)->host, hostB);
        QCOMPARE(idsOf(tasks.ofHost(hostB)), QStringList{second});
    }

    void withTaskIdSetsTheId_data()
    {
        QTest::addColumn<QJsonObject>("object");
        QTest::newRow("without one") << QJsonObject{{u"status"_s, u"working"_s}};
        QTest::newRow("with the server's") << QJsonObject{{u"taskId"_s, u"1"_s}, {u"status"_s, u"working"_s}};
    }

    void withTaskIdSetsTheId()
    {
        QFETCH(QJsonObject, object);
        const QJsonObject rewritten = withTaskId(object, u"s__1"_s);
        QCOMPARE(rewritten.value(u"taskId").toString(), u"s__1"_s);
        QCOMPARE(rewritten.value(u"status").toString(), u"working"_s);
        QCOMPARE(rewritten.size(), 2);
    }

    void withRelatedTaskIdReplacesOnlyANamedTask_data()
    {
        QTest::addColumn<QJsonObject>("params");
        QTest::addColumn<QJsonObject>("expected");
        const QJsonObject content{{u"type"_s, u"text"_s}, {u"text"_s, u"hi"_s}};
        QTest::newRow("a related task")
            << QJsonObject{{u"content"_s, content},
                           {u"_meta"_s, QJsonObject{{RelatedTask, QJsonObject{{u"taskId"_s, u"1"_s}}},
                                                    {u"progressToken"_s, 7}}}}
            << QJsonObject{{u"content"_s, content},
                           {u"_meta"_s, QJsonObject{{RelatedTask, QJsonObject{{u"taskId"_s, u"s__1"_s}}},
                                                    {u"progressToken"_s, 7}}}};
        QTest::newRow("no related task") << QJsonObject{{u"content"_s, content}, {u"_meta"_s, QJsonObject{{u"progressToken"_s, 7}}}}
                                         << QJsonObject{{u"content"_s, content}, {u"_meta"_s, QJsonObject{{u"progressToken"_s, 7}}}};
        QTest::newRow("no _meta") << QJsonObject{{u"content"_s, content}} << QJsonObject{{u"content"_s, content}};
    }

    void withRelatedTaskIdReplacesOnlyANamedTask()
    {
        QFETCH(QJsonObject, params);
        QFETCH(QJsonObject, expected);
        QCOMPARE(withRelatedTaskId(params, u"s__1"_s), expected);
    }
};

QTEST_GUILESS_MAIN(TestGatewayTasks)
#include "tst_gatewaytasks.moc"
