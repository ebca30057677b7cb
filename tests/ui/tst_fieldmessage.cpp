// The config's messages in a form's words: paths become labels, values follow them, members below
// a field name their item.
#include "fieldmessage.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;

class TestFieldMessage final : public QObject
{
    Q_OBJECT

private slots:
    void inFormWords_data()
    {
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("words");

        const auto row = [](const char *name, const QString &message, const QString &words) {
            QTest::newRow(name) << message << words;
        };
        row("a value", u"reconnect.maxAttempts = 0 is out of range: it must be a whole number from 1 to 1000"_s,
            u"Retries per outage (0) is out of range: it must be a whole number from 1 to 1000"_s);
        row("two fields", u"reconnect.maxDelayMs = 100 is less than reconnect.initialDelayMs = 500: the longest delay must be at least the first one"_s,
            u"Longest delay (100) is less than First delay (500): the longest delay must be at least the first one"_s);
        row("a text", u"reconnect.maxAttempts = \"many\" is not a number: it must be a whole number"_s,
            u"Retries per outage (\"many\") is not a number: it must be a whole number"_s);
        row("a text with a quote", u"reconnect.maxAttempts = \"a \\\" b\" is not a number"_s,
            u"Retries per outage (\"a \\\" b\") is not a number"_s);
        row("empty, not a number", u"reconnect.maxAttempts = \"\" is not a number: it must be a whole number"_s,
            u"Retries per outage is empty: it must be a whole number"_s);
        row("empty", u"mcpServers.new.command = \"\" is empty: a stdio server needs the program to start"_s,
            u"Command is empty: a stdio server needs the program to start"_s);
        row("a field without a value", u"mcpServers.new.command uses ${x}, which Tether cannot expand"_s,
            u"Command uses ${x}, which Tether cannot expand"_s);
        row("a member", u"mcpServers.new.env.API_KEY uses ${env:X}, but X is not set"_s,
            u"Environment variable \"API_KEY\" uses ${env:X}, but X is not set"_s);
        row("a quoted member", u"mcpServers.new.env[\"A=B\"] is not a valid environment variable name"_s,
            u"Environment variable \"A=B\" is not a valid environment variable name"_s);
        row("an element", u"mcpServers.new.args[1] uses ${env:X}, but X is not set"_s,
            u"Argument 2 uses ${env:X}, but X is not set"_s);
        row("the server itself", u"mcpServers[\"\"] has an empty name: give the server a name"_s,
            u"The server has an empty name: give the server a name"_s);
        row("a longer key is another field", u"reconnect.maxDelayMsX = 1"_s, u"Reconnect setting \"maxDelayMsX\" (1)"_s);
        row("a key ending another path", u"defaults.reconnect.maxAttempts = 0"_s, u"defaults.reconnect.maxAttempts = 0"_s);
        row("a member of a path named only by its members", u"reconnect.jitter = -1 is out of range"_s,
            u"Reconnect setting \"jitter\" (-1) is out of range"_s);
        row("that path alone", u"foo = 1 is not a reconnect setting"_s, u"foo = 1 is not a reconnect setting"_s);
        row("nothing named", u"the file is not JSON"_s, u"the file is not JSON"_s);
    }

    void inFormWords()
    {
        QFETCH(QString, message);
        QFETCH(QString, words);
        const QList<FieldLabel> fields{{u"reconnect"_s, {}, u"Reconnect setting"_s},
                                       {u"reconnect.maxAttempts"_s, u"Retries per outage"_s},
                                       {u"reconnect.maxDelayMs"_s, u"Longest delay"_s},
                                       {u"reconnect.initialDelayMs"_s, u"First delay"_s},
                                       {u"mcpServers.new"_s, u"The server"_s},
                                       {u"mcpServers[\"\"]"_s, u"The server"_s},
                                       {u"mcpServers.new.command"_s, u"Command"_s},
                                       {u"mcpServers.new.env"_s, u"Environment"_s, u"Environment variable"_s},
                                       {u"mcpServers.new.args"_s, u"Arguments"_s, u"Argument"_s}};
        QCOMPARE(Tether::inFormWords(message, fields), words);
    }

    void fieldName_data()
    {
        QTest::addColumn<QString>("label");
        QTest::addColumn<QString>("name");
        QTest::newRow("mnemonic and colon") << u"&Longest delay:"_s << u"Longest delay"_s;
        QTest::newRow("mnemonic inside") << u"Request t&imeout (ms):"_s << u"Request timeout (ms)"_s;
        QTest::newRow("plain") << u"Jitter"_s << u"Jitter"_s;
    }

    void fieldName()
    {
        QFETCH(QString, label);
        QFETCH(QString, name);
        QCOMPARE(Tether::fieldName(label), name);
    }
};

QTEST_MAIN(TestFieldMessage)
#include "tst_fieldmessage.moc"
