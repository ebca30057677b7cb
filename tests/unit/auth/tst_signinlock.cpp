#include "auth/signinlock.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <optional>

using namespace Qt::StringLiterals;
using namespace Tether;

namespace {

// What a waiter was told, once it was.
struct Outcome
{
    bool held = false;
    QString error;
};

SignInLock::Granted recordInto(std::optional<Outcome> *outcome)
{
    return [outcome](bool held, const QString &error) { *outcome = Outcome{held, error}; };
}

} // namespace

// Two Tether processes refreshing one token: each holds its own QLockFile on auth.lock. Here two
// SignInLock objects, each with its QLockFile, stand for them.
class TestSignInLock final : public QObject
{
    Q_OBJECT

private slots:
    void init()
    {
        QVERIFY(m_folder.isValid());
        m_path = m_folder.filePath(u"state/tether/auth.lock"_s);
    }

    void theSecondWaitsForTheFirst()
    {
        SignInLock first(m_path);
        SignInLock second(m_path);
        std::optional<Outcome> firstOutcome;
        std::optional<Outcome> secondOutcome;

        first.acquire(recordInto(&firstOutcome));
        QVERIFY(firstOutcome && firstOutcome->held); // free: granted at once
        QVERIFY(QFile::exists(m_path));
        second.acquire(recordInto(&secondOutcome));
        QVERIFY(!secondOutcome);
        QVERIFY(!second.isHeld());

        first.release();
        QTRY_VERIFY_WITH_TIMEOUT(secondOutcome.has_value(), 5000);
        QVERIFY(secondOutcome->held);
        QVERIFY(second.isHeld());
        QVERIFY(!first.isHeld());
        second.release();
        QVERIFY(!QFile::exists(m_path));
    }

    // One object serves its callers in turn.
    void callersOfOneLockTakeTurns()
    {
        SignInLock lock(m_path);
        std::optional<Outcome> a;
        std::optional<Outcome> b;
        lock.acquire(recordInto(&a));
        lock.acquire(recordInto(&b));
        QVERIFY(a && a->held);
        QVERIFY(!b);
        lock.release();
        QVERIFY(b && b->held);
        lock.release();
        QVERIFY(!lock.isHeld());
    }

    void givesUpNamingTheHolder()
    {
        QVERIFY(QDir().mkpath(QFileInfo(m_path).absolutePath()));
        QLockFile holder(m_path); // a plain QLockFile, as in another process
        QVERIFY(holder.tryLock(0));
        SignInLock waiter(m_path);
        std::optional<Outcome> outcome;
        waiter.acquire(recordInto(&outcome), std::chrono::milliseconds(100));
        QTRY_VERIFY_WITH_TIMEOUT(outcome.has_value(), 5000);
        QVERIFY(!outcome->held);
        QVERIFY2(outcome->error.startsWith(u"tst_signinlock (process %1) still holds %2; try again once it is done, or end it"_s
                                               .arg(QCoreApplication::applicationPid())
                                               .arg(m_path)),
                 qPrintable(outcome->error));
        holder.unlock();
    }

private:
    QTemporaryDir m_folder;
    QString m_path;
};

QTEST_GUILESS_MAIN(TestSignInLock)
#include "tst_signinlock.moc"
