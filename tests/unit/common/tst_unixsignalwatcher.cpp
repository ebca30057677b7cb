#include "common/unixsignalwatcher.h"

#include <QSignalSpy>
#include <QTest>

#include <csignal>
#include <memory>

using namespace Tether;

class TestUnixSignalWatcher : public QObject
{
    Q_OBJECT

private slots:
    void everyWatcherOfASignalHearsIt()
    {
        UnixSignalWatcher first({SIGUSR1});
        UnixSignalWatcher second({SIGUSR1, SIGUSR2});
        QSignalSpy firstSpy(&first, &UnixSignalWatcher::received);
        QSignalSpy secondSpy(&second, &UnixSignalWatcher::received);

        ::raise(SIGUSR1);
        QTRY_COMPARE(firstSpy.size(), 1);
        QTRY_COMPARE(secondSpy.size(), 1);
        QCOMPARE(firstSpy.at(0).at(0).toInt(), SIGUSR1);

        ::raise(SIGUSR2);
        QTRY_COMPARE(secondSpy.size(), 2);
        QCOMPARE(secondSpy.at(1).at(0).toInt(), SIGUSR2);
        QCOMPARE(firstSpy.size(), 1);
    }

    void aWatcherGoneLeavesTheOthersListening()
    {
        auto shortLived = std::make_unique<UnixSignalWatcher>(std::initializer_list<int>{SIGUSR1});
        UnixSignalWatcher remaining({SIGUSR1});
        QSignalSpy spy(&remaining, &UnixSignalWatcher::received);
        shortLived.reset();

        // Still caught: had the first watcher restored the default action, this would end the test.
        ::raise(SIGUSR1);
        QTRY_COMPARE(spy.size(), 1);
    }

    void aSlotMayDestroyAnotherWatcher()
    {
        // The watcher registered first hears the signal first and destroys the one after it.
        UnixSignalWatcher quitting({SIGUSR2});
        auto other = std::make_unique<UnixSignalWatcher>(std::initializer_list<int>{SIGUSR2});
        bool heard = false;
        connect(&quitting, &UnixSignalWatcher::received, this, [&] {
            heard = true;
            other.reset();
        });
        ::raise(SIGUSR2);
        QTRY_VERIFY(heard);
        QVERIFY(!other);
    }
};

QTEST_GUILESS_MAIN(TestUnixSignalWatcher)
#include "tst_unixsignalwatcher.moc"
