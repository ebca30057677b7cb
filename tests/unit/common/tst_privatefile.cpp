// Files of this user alone: what is refused and why, a replacement seen whole or not at all, and a
// creation that keeps a file another process made first.
#include "common/privatefile.h"

#include "support/testfiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

unsigned modeOf(const QString &path)
{
    struct stat info{};
    return ::stat(QFile::encodeName(path).constData(), &info) == 0 ? unsigned(info.st_mode & 0777) : 0;
}

} // namespace

class TestPrivateFile final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    // The files of `folder`, hidden ones too: nothing left behind by a write.
    QStringList filesIn(const QString &folder) const
    {
        return QDir(m_dir.filePath(folder)).entryList(QDir::Files | QDir::Hidden | QDir::System, QDir::Name);
    }

private slots:
    void anAbsentFileIsNoError()
    {
        const PrivateFileContent content = readPrivateFile(m_dir.filePath(u"absent"_s));
        QVERIFY(!content.exists);
        QCOMPARE(content.refusal, PrivateFileContent::Refusal::None);
        QVERIFY(content.error.isEmpty());
    }

    void refusals_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("refusal");
        QTest::addColumn<QString>("error");
        QTest::newRow("readable by the group") << u"mode 0640"_s << int(PrivateFileContent::Refusal::OpenToOthers)
                                               << u"%1 is readable by others (mode 0640); Tether does not use it: chmod 600 %1"_s;
        QTest::newRow("writable by all") << u"mode 0602"_s << int(PrivateFileContent::Refusal::OpenToOthers)
                                         << u"%1 is readable by others (mode 0602); Tether does not use it: chmod 600 %1"_s;
        QTest::newRow("a folder") << u"folder"_s << int(PrivateFileContent::Refusal::NotRegular)
                                  << u"%1 is not a regular file; Tether does not use it: move it away"_s;
        QTest::newRow("a link") << u"link"_s << int(PrivateFileContent::Refusal::NotRegular)
                                << u"%1 is not a regular file; Tether does not use it: move it away"_s;
        QTest::newRow("another user's") << u"owner"_s << int(PrivateFileContent::Refusal::OtherOwner)
                                        << u"%1 belongs to another user; Tether does not use it: move it away"_s;
    }

    void refusals()
    {
        QFETCH(QString, kind);
        QFETCH(int, refusal);
        QFETCH(QString, error);
        const QString path = m_dir.filePath(QString::fromLatin1(QTest::currentDataTag()).replace(u' ', u'-'));
        if (kind == u"folder") {
            QVERIFY(QDir().mkpath(path));
        } else if (kind == u"link") {
            const QString target = path + u"-target"_s;
            QVERIFY(writeFile(target, "secret"));
            QCOMPARE(::chmod(QFile::encodeName(target).constData(), 0600), 0);
            QVERIFY(QFile::link(target, path));
        } else {
            QVERIFY(writeFile(path, "secret"));
            const mode_t mode = kind.startsWith(u"mode ") ? mode_t(kind.mid(5).toUInt(nullptr, 8)) : 0600;
            QCOMPARE(::chmod(QFile::encodeName(path).constData(), mode), 0);
            if (kind == u"owner") {
                if (::geteuid() != 0)
                    QSKIP("only root can give a file to another user");
                QCOMPARE(::chown(QFile::encodeName(path).constData(), 65534, 65534), 0);
            }
        }
        const PrivateFileContent content = readPrivateFile(path);
        QVERIFY(content.exists);
        QCOMPARE(int(content.refusal), refusal);
        QCOMPARE(content.error, error.arg(path));
        QVERIFY(content.bytes.isEmpty());
    }

    void writtenWholeAndPrivate()
    {
        const QString path = m_dir.filePath(u"made/deeper/secret.json"_s);
        QString error;
        QVERIFY2(writePrivateFile(path, "first", &error), qPrintable(error));
        QCOMPARE(modeOf(path), 0600u);
        QCOMPARE(modeOf(m_dir.filePath(u"made/deeper"_s)), 0700u);
        QVERIFY2(writePrivateFile(path, "second", &error), qPrintable(error));
        const PrivateFileContent content = readPrivateFile(path);
        QCOMPARE(content.refusal, PrivateFileContent::Refusal::None);
        QCOMPARE(content.bytes, QByteArray("second"));
        QCOMPARE(filesIn(u"made/deeper"_s), QStringList{u"secret.json"_s});
    }

    // A link planted where the file goes is neither written through nor replaced.
    void aLinkIsNeitherWrittenThroughNorReplaced()
    {
        const QString target = m_dir.filePath(u"linked/target"_s);
        const QString path = m_dir.filePath(u"linked/secret.json"_s);
        QVERIFY(QDir().mkpath(m_dir.filePath(u"linked"_s)));
        QVERIFY(writeFile(target, "theirs"));
        QVERIFY(::chmod(QFile::encodeName(target).constData(), 0644) == 0);
        QVERIFY(QFile::link(target, path));
        QString error;
        QVERIFY(!writePrivateFile(path, "mine", &error));
        QCOMPARE(error, u"%1 is not a regular file; Tether does not replace it: move it away"_s.arg(path));
        QCOMPARE(readFile(target), QByteArray("theirs"));
        QCOMPARE(modeOf(target), 0644u);
        QVERIFY(QFileInfo(path).isSymLink());
        QCOMPARE(filesIn(u"linked"_s), (QStringList{u"secret.json"_s, u"target"_s}));
    }

    void createdOnceAndKept()
    {
        const QString path = m_dir.filePath(u"created/token"_s);
        QString error;
        QCOMPARE(createPrivateFile(path, "mine", &error), PrivateFileCreation::Created);
        QCOMPARE(modeOf(path), 0600u);
        // Made meanwhile by someone else: theirs stays, whole.
        QCOMPARE(createPrivateFile(path, "theirs", &error), PrivateFileCreation::AlreadyThere);
        QCOMPARE(readPrivateFile(path).bytes, QByteArray("mine"));
        QCOMPARE(filesIn(u"created"_s), QStringList{u"token"_s});
    }

    void aCreationThatCannotBeSaysWhy()
    {
        // The folder would have to be where a file is.
        QVERIFY(writeFile(m_dir.filePath(u"plain"_s), "a file"));
        const QString path = m_dir.filePath(u"plain/token"_s);
        QString error;
        QCOMPARE(createPrivateFile(path, "mine", &error), PrivateFileCreation::Failed);
        QCOMPARE(error, u"Cannot write in %1: Not a directory"_s.arg(m_dir.filePath(u"plain"_s)));
        error.clear();
        QVERIFY(!writePrivateFile(path, "mine", &error));
        QCOMPARE(error, u"Cannot write in %1: Not a directory"_s.arg(m_dir.filePath(u"plain"_s)));
    }
};

QTEST_GUILESS_MAIN(TestPrivateFile)
#include "tst_privatefile.moc"
