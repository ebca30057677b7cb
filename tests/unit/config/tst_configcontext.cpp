// ${env:NAME} and ${tether:bindir} expansion on its own: what a value becomes, and what each
// reference that cannot be expanded says.
#include "config/configcontext.h"
#include "support/fakeenvironment.h"

#include <QCoreApplication>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

namespace {

const QString Where = u"mcpServers.demo.command"_s;

ConfigContext context(const QString &binDir = u"/opt/tether/bin"_s)
{
    return {fakeEnvironment({
                {u"HOME_DIR"_s, u"/home/ada"_s},
                {u"EMPTY"_s, QString()},
                {u"NESTED"_s, u"${env:HOME_DIR}"_s},
            }),
            binDir};
}

} // namespace

class TestConfigContext final : public QObject
{
    Q_OBJECT

private slots:
    void expands_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");

        QTest::newRow("no reference") << u"node server.js"_s << u"node server.js"_s;
        QTest::newRow("empty") << QString() << QString();
        QTest::newRow("variable") << u"${env:HOME_DIR}/bin"_s << u"/home/ada/bin"_s;
        QTest::newRow("two references") << u"${env:HOME_DIR}:${env:HOME_DIR}"_s << u"/home/ada:/home/ada"_s;
        QTest::newRow("empty variable") << u"a${env:EMPTY}b"_s << u"ab"_s;
        QTest::newRow("bindir") << u"${tether:bindir}/tether-demo-server"_s << u"/opt/tether/bin/tether-demo-server"_s;
        // A variable's value is used as is, not expanded again.
        QTest::newRow("no second expansion") << u"${env:NESTED}"_s << u"${env:HOME_DIR}"_s;
        QTest::newRow("dollar without braces") << u"$HOME a$b $"_s << u"$HOME a$b $"_s;
        QTest::newRow("closing brace alone") << u"a}b"_s << u"a}b"_s;
    }

    void expands()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const VariableExpansion expansion = expandVariables(Where, text, context());
        QCOMPARE(expansion.errors, QStringList());
        QVERIFY(expansion.isValid());
        QCOMPARE(expansion.text, expected);
    }

    void refuses_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("binDir");
        QTest::addColumn<QStringList>("errors");

        const QString bin = u"/opt/tether/bin"_s;
        QTest::newRow("unset variable")
            << u"${env:MISSING}/x"_s << bin
            << QStringList{Where + u" uses ${env:MISSING}, but MISSING is not set: set MISSING in the environment "
                                   "Tether starts from, or write the value in the file"_s};
        QTest::newRow("no name") << u"${env:}"_s << bin
                                 << QStringList{Where + u" uses ${env:}, which names no variable: write ${env:NAME}"_s};
        QTest::newRow("unclosed") << u"${env:HOME_DIR"_s << bin
                                  << QStringList{Where + u" has \"${\" without a closing \"}\": write ${env:NAME} to "
                                                         "use an environment variable"_s};
        QTest::newRow("bindir unknown")
            << u"${tether:bindir}/x"_s << QString()
            << QStringList{Where + u" uses ${tether:bindir}, but the folder of Tether's programs is not known here: "
                                   "write the path itself"_s};
        QTest::newRow("VS Code input")
            << u"${input:token}"_s << bin
            << QStringList{Where + u" uses ${input:token}, which Tether cannot expand: VS Code prompts for inputs, "
                                   "Tether does not; write ${env:NAME} and set NAME in Tether's environment, or "
                                   "write the value"_s};
        QTest::newRow("other variable")
            << u"${workspaceFolder}/x"_s << bin
            << QStringList{Where + u" uses ${workspaceFolder}, which Tether cannot expand: Tether expands only "
                                   "${env:NAME} and ${tether:bindir}; write the value itself"_s};
        QTest::newRow("other tether variable")
            << u"${tether:datadir}"_s << bin
            << QStringList{Where + u" uses ${tether:datadir}, which Tether cannot expand: Tether expands only "
                                   "${env:NAME} and ${tether:bindir}; write the value itself"_s};
        // Every reference is judged, in order; an unclosed one ends the value.
        QTest::newRow("several")
            << u"${env:A}-${env:HOME_DIR}-${env:B}-${env:C"_s << bin
            << QStringList{Where + u" uses ${env:A}, but A is not set: set A in the environment Tether starts from, "
                                   "or write the value in the file"_s,
                           Where + u" uses ${env:B}, but B is not set: set B in the environment Tether starts from, "
                                   "or write the value in the file"_s,
                           Where + u" has \"${\" without a closing \"}\": write ${env:NAME} to use an environment "
                                   "variable"_s};
    }

    void refuses()
    {
        QFETCH(QString, text);
        QFETCH(QString, binDir);
        QFETCH(QStringList, errors);
        const VariableExpansion expansion = expandVariables(Where, text, context(binDir));
        QCOMPARE(expansion.errors, errors);
        QVERIFY(!expansion.isValid());
    }

    void systemEnvironmentReadsTheProcess()
    {
        const EnvironmentLookup lookup = systemEnvironment();
        const QString name = u"TETHER_TST_CONFIG_%1"_s.arg(QCoreApplication::applicationPid());
        qunsetenv(name.toLocal8Bit().constData());
        QCOMPARE(lookup(name), std::nullopt);
        qputenv(name.toLocal8Bit().constData(), "v\xC3\xA4lue");
        QCOMPARE(lookup(name), std::optional<QString>(u"välue"_s));
        qputenv(name.toLocal8Bit().constData(), "");
        QCOMPARE(lookup(name), std::optional<QString>(QString()));
        qunsetenv(name.toLocal8Bit().constData());
        QCOMPARE(lookup(QString()), std::nullopt);
    }

    // A context without a lookup of its own reads the process's environment.
    void withoutALookupTheProcessEnvironmentIsUsed()
    {
        const QString name = u"TETHER_TST_CONTEXT_%1"_s.arg(QCoreApplication::applicationPid());
        qputenv(name.toLocal8Bit().constData(), "from-process");
        const VariableExpansion expansion = expandVariables(Where, u"${env:%1}"_s.arg(name), ConfigContext{});
        qunsetenv(name.toLocal8Bit().constData());
        QVERIFY(expansion.isValid());
        QCOMPARE(expansion.text, u"from-process"_s);
    }
};

QTEST_GUILESS_MAIN(TestConfigContext)
#include "tst_configcontext.moc"
