#include "common/logging.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace Tether;

namespace {

// The permission bits of `path`, or -1 when it does not exist.
int modeOf(const QString &path)
{
    struct stat status = {};
    if (::stat(QFile::encodeName(path).constData(), &status) != 0)
        return -1;
    return int(status.st_mode & 07777);
}

bool create(const QString &path, mode_t mode)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && ::chmod(QFile::encodeName(path).constData(), mode) == 0;
}

} // namespace

class TestLogging final : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_dataHome.isValid());
        // The usual umask, under which files are created readable by everyone.
        ::umask(022);
        qputenv("XDG_DATA_HOME", QFile::encodeName(m_dataHome.path()));
    }

    // Lets go of the log files.
    void cleanup() { spdlog::set_default_logger(std::make_shared<spdlog::logger>("tether-test")); }

    void newLogIsTheUsersAlone()
    {
        const QString folder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
        QDir(folder).removeRecursively();
        const QString path = configureAppLogging();
        spdlog::info("a line");
        QCOMPARE(QFileInfo(path).absolutePath(), folder);
        QCOMPARE(modeOf(folder), 0700);
        QCOMPARE(modeOf(path), 0600);
    }

    void existingLogWithAWiderModeIsNarrowed()
    {
        const QString folder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
        QDir(folder).removeRecursively();
        QVERIFY(QDir().mkpath(folder));
        QVERIFY(::chmod(QFile::encodeName(folder).constData(), 0755) == 0);
        QVERIFY(create(folder + u"/tether.log"_s, 0644));
        QVERIFY(create(folder + u"/tether.2.log"_s, 0666));
        configureAppLogging();
        QCOMPARE(modeOf(folder), 0700);
        QCOMPARE(modeOf(folder + u"/tether.log"_s), 0600);
        QCOMPARE(modeOf(folder + u"/tether.2.log"_s), 0600);
    }

    // A rotation renames the full file and opens a fresh one: that one is the user's alone too.
    void rotatedLogsAreTheUsersAlone()
    {
        const QString folder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
        QDir(folder).removeRecursively();
        const QString path = configureAppLogging();
        const std::string line(1024, 'x');
        // The log also goes to stderr: not 6 MiB of it into the test's output.
        const int savedStderr = ::dup(STDERR_FILENO);
        const int devNull = ::open("/dev/null", O_WRONLY);
        ::dup2(devNull, STDERR_FILENO);
        for (int i = 0; i < 6 * 1024; ++i) // past the 5 MiB of one file
            spdlog::info("{}", line);
        ::dup2(savedStderr, STDERR_FILENO);
        ::close(savedStderr);
        ::close(devNull);
        QCOMPARE(modeOf(folder + u"/tether.1.log"_s), 0600);
        QCOMPARE(modeOf(path), 0600);
    }

    // What a server wrote may be quoted in a line: it cannot reach a terminal or forge a line.
    void linesShowControlCharactersVisibly()
    {
        const QString folder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
        QDir(folder).removeRecursively();
        const QString path = configureAppLogging();
        spdlog::warn("server 'x': {}", QStringLiteral("\x1b]0;owned\x07\ninfo: forged"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray content = file.readAll();
        QVERIFY2(content.contains("server 'x': \\x1b]0;owned\\x07\\x0ainfo: forged\n"), content.constData());
        QVERIFY(!content.contains('\x1b'));
        QCOMPARE(content.count('\n'), 1);
    }

private:
    QTemporaryDir m_dataHome;
};

QTEST_GUILESS_MAIN(TestLogging)
#include "tst_logging.moc"
