// The Add/Edit server dialog: the entry it builds, the config's messages at the fields they
// concern, masked secrets, the fields of each transport, and edits that keep what is not shown.
#include "common/commandline.h"
#include "config/configparser.h"
#include "namevalueeditor.h"
#include "serverdialog.h"
#include "support/fakeenvironment.h"
#include "support/mnemonicchecks.h"
#include "support/namedchild.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

using Field = ServerDialog::Field;
Q_DECLARE_METATYPE(Tether::ServerDialog::Field)

namespace {

const QString ConfigPath = u"/home/ada/.config/tether/servers.json"_s;

ConfigContext context()
{
    return {fakeEnvironment({{u"API_TOKEN"_s, u"s3cr3t"_s}, {u"HOST"_s, u"mcp.example.com"_s}}), u"/opt/tether/bin"_s};
}

ConfigDocument document(const QByteArray &json)
{
    const ConfigDocument parsed = parseConfig(json, ConfigPath, context());
    if (!parsed.isValid())
        qFatal("test config does not parse: %s", qPrintable(parsed.errors.join(u"; "_s)));
    return parsed;
}

const QByteArray OneServer = R"({"mcpServers": {"demo": {"command": "${tether:bindir}/tether-demo-server"}}})";
// Kept out of raw strings: moc reads the "//" of a URL in a raw string as the start of a comment.
const QString ExampleUrl = u"https://example.com/mcp"_s;

ConfigDocument documentWith(const QString &name, const QJsonObject &entry)
{
    return document(QJsonDocument(QJsonObject{{u"mcpServers"_s, QJsonObject{{name, entry}}}}).toJson());
}

// What the config makes of the dialog's entry, read back as the file would be.
ServerConfig parsedEntry(const ServerDialog &dialog)
{
    const QJsonObject root{{u"mcpServers"_s, QJsonObject{{dialog.serverName(), dialog.serverEntry()}}}};
    const ConfigDocument parsed = parseConfig(QJsonDocument(root).toJson(), ConfigPath, context());
    return parsed.servers.value(0);
}

QJsonObject json(const QByteArray &text)
{
    return QJsonDocument::fromJson(text).object();
}

QLineEdit *edit(const ServerDialog &dialog, const QString &name)
{
    return namedChild<QLineEdit>(dialog, name);
}

NameValueEditor *table(const ServerDialog &dialog, const QString &name)
{
    return namedChild<NameValueEditor>(dialog, name);
}

QPushButton *okButton(const ServerDialog &dialog)
{
    return dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
}

void chooseTransport(ServerDialog &dialog, const QString &type)
{
    auto *transport = namedChild<QComboBox>(dialog, u"transport"_s);
    transport->setCurrentIndex(transport->findData(type));
}

// "NAME|value;NAME|value" into the rows of a name/value table.
void fillTable(NameValueEditor *editor, const QString &rows)
{
    for (const QString &row : rows.split(u';')) {
        const qsizetype bar = row.indexOf(u'|');
        editor->addRow(row.left(bar), row.mid(bar + 1));
    }
}

bool shown(const ServerDialog &dialog, const QString &name)
{
    return namedChild<QWidget>(dialog, name)->isVisibleTo(&dialog);
}

} // namespace

class TestServerDialog final : public QObject
{
    Q_OBJECT

private slots:
    void addsAStdioServer()
    {
        ServerDialog dialog(document(OneServer), QString(), context());
        QVERIFY(!okButton(dialog)->isEnabled()); // no name, no command yet
        edit(dialog, u"name"_s)->setText(u"files"_s);
        edit(dialog, u"command"_s)->setText(u"npx"_s);
        edit(dialog, u"arguments"_s)->setText(u"-y @modelcontextprotocol/server-filesystem '/home/ada/My Documents'"_s);
        fillTable(table(dialog, u"environment"_s), u"API_KEY|${env:API_TOKEN};DEBUG|1"_s);
        edit(dialog, u"workingDirectory"_s)->setText(u"/tmp"_s);

        QVERIFY2(dialog.isEntryValid(), qPrintable(dialog.messages(Field::Other).join(u'\n')));
        QVERIFY(okButton(dialog)->isEnabled());
        QCOMPARE(dialog.serverName(), u"files"_s);
        const QJsonObject expectedEntry = json(R"({
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/ada/My Documents"],
            "env": {"API_KEY": "${env:API_TOKEN}", "DEBUG": "1"},
            "cwd": "/tmp"
        })");
        QCOMPARE(dialog.serverEntry(), expectedEntry);

        const ServerConfig server = parsedEntry(dialog);
        QVERIFY2(server.isValid(), qPrintable(server.errors.join(u'\n')));
        QCOMPARE(server.transport, TransportKind::Stdio);
        QVERIFY(server.enabled);
        QCOMPARE(server.command.program, u"npx"_s);
        QCOMPARE(server.command.arguments,
                 (QStringList{u"-y"_s, u"@modelcontextprotocol/server-filesystem"_s, u"/home/ada/My Documents"_s}));
        const QList<std::pair<QString, QString>> environment{{u"API_KEY"_s, u"s3cr3t"_s}, {u"DEBUG"_s, u"1"_s}};
        QCOMPARE(server.command.environment, environment);
        QCOMPARE(server.command.workingDirectory, u"/tmp"_s);
    }

    void disabledServerAndTimeout()
    {
        ServerDialog dialog(document(R"({"defaults": {"timeoutMs": 30000}, "mcpServers": {}})"), QString(), context());
        QCOMPARE(edit(dialog, u"timeout"_s)->placeholderText(), u"default: 30000"_s);
        edit(dialog, u"name"_s)->setText(u"quiet"_s);
        edit(dialog, u"command"_s)->setText(u"server"_s);
        namedChild<QCheckBox>(dialog, u"enabled"_s)->setChecked(false);
        edit(dialog, u"timeout"_s)->setText(u"90000"_s);
        QVERIFY(dialog.isEntryValid());
        QCOMPARE(dialog.serverEntry(), json(R"({"command": "server", "enabled": false, "timeoutMs": 90000})"));
        const ServerConfig server = parsedEntry(dialog);
        QVERIFY(!server.enabled);
        QCOMPARE(server.requestTimeout, std::chrono::milliseconds(90000));
    }

    void refusesInvalidInput_data()
    {
        QTest::addColumn<QString>("type");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("text");
        QTest::addColumn<Field>("expectedField");
        QTest::addColumn<QString>("messagePart");

        const QString stdio = u"stdio"_s;
        const QString http = u"http"_s;
        QTest::newRow("empty name") << stdio << u"name"_s << QString() << Field::Name << u"The server has an empty name"_s;
        QTest::newRow("blank name") << stdio << u"name"_s << u"   "_s << Field::Name << u"The server has an empty name"_s;
        QTest::newRow("name of another server") << stdio << u"name"_s << u"demo"_s << Field::Name
                                                << u"A server named \"demo\" already exists"_s;
        QTest::newRow("empty command") << stdio << u"command"_s << QString() << Field::Command << u"Command is empty"_s;
        QTest::newRow("unknown variable in command") << stdio << u"command"_s << u"${tether:home}/server"_s
                                                     << Field::Command << u"Command uses ${tether:home}, which Tether cannot expand"_s;
        QTest::newRow("unterminated quote") << stdio << u"arguments"_s << u"--root 'My Documents"_s
                                            << Field::Arguments << u"unterminated ' quote"_s;
        QTest::newRow("unset variable in arguments") << stdio << u"arguments"_s << u"--token ${env:NOT_SET_X}"_s
                                                     << Field::Arguments << u"Argument 2 uses ${env:NOT_SET_X}, but NOT_SET_X is not set"_s;
        QTest::newRow("unset variable in env") << stdio << u"environment"_s << u"API_KEY|${env:NOT_SET_X}"_s
                                               << Field::Environment << u"Environment variable \"API_KEY\" uses ${env:NOT_SET_X}, but NOT_SET_X is not set"_s;
        QTest::newRow("env name with =") << stdio << u"environment"_s << u"A=B|1"_s << Field::Environment
                                         << u"not a valid environment variable name"_s;
        QTest::newRow("env value without name") << stdio << u"environment"_s << u"|1"_s << Field::Environment
                                                << u"not a valid environment variable name"_s;
        QTest::newRow("env name twice") << stdio << u"environment"_s << u"DEBUG|1;DEBUG|2"_s << Field::Environment
                                        << u"\"DEBUG\" is given twice"_s;
        QTest::newRow("unclosed variable in cwd") << stdio << u"workingDirectory"_s << u"${env:HOME"_s
                                                  << Field::WorkingDirectory << u"without a closing"_s;
        QTest::newRow("empty url") << http << u"url"_s << QString() << Field::Url << u"URL is empty"_s;
        QTest::newRow("url without scheme") << http << u"url"_s << u"example.com/mcp"_s << Field::Url
                                            << u"is not an http or https URL"_s;
        QTest::newRow("ftp url") << http << u"url"_s << u"ftp://example.com/mcp"_s << Field::Url
                                 << u"its scheme is \"ftp\""_s;
        QTest::newRow("unset variable in url") << http << u"url"_s << u"https://${env:NOT_SET_X}/mcp"_s << Field::Url
                                               << u"NOT_SET_X is not set"_s;
        QTest::newRow("header name with =") << http << u"headers"_s << u"X-A=B|1"_s << Field::Headers
                                            << u"not a valid header name"_s;
        QTest::newRow("header value without name") << http << u"headers"_s << u"|1"_s << Field::Headers
                                                   << u"not a valid header name"_s;
        QTest::newRow("unset variable in header") << http << u"headers"_s << u"Authorization|Bearer ${env:NOT_SET_X}"_s
                                                  << Field::Headers << u"NOT_SET_X is not set"_s;
        QTest::newRow("timeout too short") << stdio << u"timeout"_s << u"500"_s << Field::Timeout
                                           << u"Request timeout (500) is out of range"_s;
        QTest::newRow("timeout not whole") << http << u"timeout"_s << u"1500.5"_s << Field::Timeout << u"out of range"_s;
        QTest::newRow("timeout not a number") << stdio << u"timeout"_s << u"soon"_s << Field::Timeout
                                              << u"is not a number"_s;
    }

    void refusesInvalidInput()
    {
        QFETCH(QString, type);
        QFETCH(QString, field);
        QFETCH(QString, text);
        QFETCH(Field, expectedField);
        QFETCH(QString, messagePart);

        ServerDialog dialog(document(OneServer), QString(), context());
        chooseTransport(dialog, type);
        edit(dialog, u"name"_s)->setText(u"new"_s);
        edit(dialog, type == u"stdio" ? u"command"_s : u"url"_s)
            ->setText(type == u"stdio" ? u"npx"_s : ExampleUrl);
        QVERIFY2(dialog.isEntryValid(), qPrintable(dialog.messages(Field::Other).join(u'\n')));
        QVERIFY(okButton(dialog)->isEnabled());

        if (auto *editor = dialog.findChild<NameValueEditor *>(field))
            fillTable(editor, text);
        else
            edit(dialog, field)->setText(text);

        const QString shownMessages = dialog.messages(expectedField).join(u'\n');
        QVERIFY2(shownMessages.contains(messagePart), qPrintable(shownMessages));
        QVERIFY2(!shownMessages.contains(ConfigPath), qPrintable(shownMessages)); // the file is known here
        // In the words of the form, not the file's: no JSON path, no "key = value".
        QVERIFY2(!shownMessages.contains(u"mcpServers"_s) && !shownMessages.contains(u" = "_s), qPrintable(shownMessages));
        QVERIFY2(dialog.messages(Field::Other).isEmpty(), qPrintable(dialog.messages(Field::Other).join(u'\n')));
        auto *label = namedChild<QLabel>(dialog, u"messages"_s);
        QVERIFY(label->isVisibleTo(&dialog));
        QCOMPARE(label->text(), shownMessages);
        QVERIFY(!dialog.isEntryValid());
        QVERIFY(!okButton(dialog)->isEnabled());
        // A secret never appears in a message.
        QVERIFY(!shownMessages.contains(u"s3cr3t"_s));
    }

    // An empty form is not wrong yet: it says what to fill in, in plain words, and Add waits. A
    // field's messages appear once it has been changed.
    void anUntouchedFormShowsAHintNotErrors()
    {
        ServerDialog dialog(document(OneServer), QString(), context());
        auto *messages = namedChild<QLabel>(dialog, u"messages"_s);
        auto *hint = namedChild<QLabel>(dialog, u"hint"_s);
        QVERIFY(!okButton(dialog)->isEnabled());
        QCOMPARE(okButton(dialog)->text(), u"A&dd"_s);
        QVERIFY2(messages->isHidden(), qPrintable(messages->text()));
        for (const Field field : {Field::Name, Field::Command, Field::Other})
            QVERIFY(dialog.messages(field).isEmpty());
        QVERIFY(hint->isVisibleTo(&dialog));
        QCOMPARE(hint->text(), u"To add the server, fill in: Name, Command."_s);
        QVERIFY(hint->palette().color(QPalette::WindowText) == dialog.palette().color(QPalette::WindowText));

        edit(dialog, u"name"_s)->setText(u"files"_s);
        QCOMPARE(hint->text(), u"To add the server, fill in: Command."_s);
        QVERIFY(messages->isHidden());
        chooseTransport(dialog, u"http"_s);
        QCOMPARE(hint->text(), u"To add the server, fill in: URL."_s);
        chooseTransport(dialog, u"stdio"_s);
        edit(dialog, u"command"_s)->setText(u"npx"_s);
        QVERIFY(hint->isHidden());
        QVERIFY(okButton(dialog)->isEnabled());

        // Emptied again, a field is wrong, and says so by its label.
        edit(dialog, u"command"_s)->clear();
        QVERIFY(!okButton(dialog)->isEnabled());
        QVERIFY(messages->isVisibleTo(&dialog));
        QVERIFY2(messages->text().startsWith(u"Command is empty: "_s), qPrintable(messages->text()));
        edit(dialog, u"name"_s)->clear();
        QVERIFY2(messages->text().startsWith(u"The server has an empty name: give the server a name"_s), qPrintable(messages->text()));
    }

    // Messages come and go in an area of their own: no field moves, and the dialog keeps its size.
    void fieldsStayInPlaceAsMessagesComeAndGo()
    {
        ServerDialog dialog(document(OneServer), QString(), context());
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        const QStringList fields{u"name"_s, u"transport"_s, u"command"_s, u"arguments"_s, u"environment"_s,
                                 u"workingDirectory"_s, u"timeout"_s, u"enabled"_s};
        const auto places = [&] {
            QApplication::processEvents();
            QList<QRect> rects{QRect(QPoint(), dialog.size()), okButton(dialog)->geometry()};
            for (const QString &name : fields) {
                const QWidget *widget = namedChild<QWidget>(dialog, name);
                rects.append(QRect(widget->mapTo(&dialog, QPoint()), widget->size()));
            }
            return rects;
        };
        const QList<QRect> before = places();
        edit(dialog, u"name"_s)->setText(u"demo"_s); // taken
        edit(dialog, u"command"_s)->setText(u"${tether:home}/server"_s);
        edit(dialog, u"arguments"_s)->setText(u"--root 'My Documents --token ${env:NOT_SET_X}"_s);
        edit(dialog, u"timeout"_s)->setText(u"soon"_s);
        QCOMPARE(dialog.messages(Field::Name).size(), 1);
        QCOMPARE(dialog.messages(Field::Command).size(), 1);
        QVERIFY(!dialog.messages(Field::Arguments).isEmpty());
        QCOMPARE(dialog.messages(Field::Timeout).size(), 1);
        QCOMPARE(places(), before);
        edit(dialog, u"name"_s)->setText(u"files"_s);
        edit(dialog, u"command"_s)->setText(u"npx"_s);
        edit(dialog, u"arguments"_s)->clear();
        edit(dialog, u"timeout"_s)->clear();
        QVERIFY(dialog.isEntryValid());
        QCOMPARE(places(), before);
    }

    void messagesGoAwayWhenFixed()
    {
        ServerDialog dialog(document(OneServer), QString(), context());
        edit(dialog, u"name"_s)->setText(u"demo"_s);
        edit(dialog, u"command"_s)->setText(u"npx"_s);
        QVERIFY(!dialog.messages(Field::Name).isEmpty());
        QVERIFY(!okButton(dialog)->isEnabled());
        edit(dialog, u"name"_s)->setText(u"demo-2"_s);
        QVERIFY(dialog.messages(Field::Name).isEmpty());
        QVERIFY(!namedChild<QLabel>(dialog, u"messages"_s)->isVisibleTo(&dialog));
        QVERIFY(okButton(dialog)->isEnabled());
    }

    void policyProblemsAreListed()
    {
        // The dialog does not show reconnect settings; a wrong one still keeps OK disabled.
        ServerDialog dialog(document(R"({"mcpServers": {"demo": {"command": "x", "reconnect": {"maxAttempts": -1}}}})"),
                            u"demo"_s, context());
        QVERIFY(!okButton(dialog)->isEnabled());
        const QStringList other = dialog.messages(Field::Other);
        QCOMPARE(other.size(), 1);
        QVERIFY2(other.first().startsWith(u"Reconnect setting \"maxAttempts\" (-1) is out of range"_s), qPrintable(other.first()));
        auto *messages = namedChild<QLabel>(dialog, u"messages"_s);
        QVERIFY(messages->isVisibleTo(&dialog));
        QCOMPARE(messages->text(), other.first());
    }

    void editKeepsWhatItDoesNotShow()
    {
        const QByteArray file = R"({"mcpServers": {
            "other": {"command": "y"},
            "demo": {
                "command": "${tether:bindir}/tether-demo-server",
                "args": ["--tools", "4"],
                "env": {"TOKEN": "${env:API_TOKEN}"},
                "reconnect": {"maxAttempts": 3, "initialDelayMs": 500},
                "heartbeat": {"intervalMs": 20000},
                "pool": {"max": 2},
                "connection": {"heartbeat": {"maxFailures": 2}},
                "x-note": {"kept": true}
            }}})";
        const ConfigDocument config = document(file);
        ServerDialog dialog(config, u"demo"_s, context());
        QCOMPARE(edit(dialog, u"name"_s)->text(), u"demo"_s);
        QCOMPARE(edit(dialog, u"command"_s)->text(), u"${tether:bindir}/tether-demo-server"_s);
        QCOMPARE(edit(dialog, u"arguments"_s)->text(), u"--tools 4"_s);
        QCOMPARE(table(dialog, u"environment"_s)->valueEdit(0)->text(), u"${env:API_TOKEN}"_s);
        QVERIFY2(dialog.isEntryValid(), qPrintable(dialog.messages(Field::Other).join(u'\n')));
        // Its own name is not "another server's".
        QVERIFY(okButton(dialog)->isEnabled());
        QCOMPARE(dialog.serverEntry(), config.server(u"demo"_s)->source);

        edit(dialog, u"arguments"_s)->setText(u"--tools 5 --crash-after-ms 100"_s);
        QJsonObject expected = config.server(u"demo"_s)->source;
        expected.insert(u"args"_s, QJsonArray{u"--tools"_s, u"5"_s, u"--crash-after-ms"_s, u"100"_s});
        QCOMPARE(dialog.serverEntry(), expected);
        const ServerConfig server = parsedEntry(dialog);
        QCOMPARE(server.reconnect.maxAttempts, 3);
        QCOMPARE(server.heartbeat.maxFailures, 2);
        QCOMPARE(server.pool.max, 2);

        // Renamed onto the other server: refused.
        edit(dialog, u"name"_s)->setText(u"other"_s);
        QVERIFY(!okButton(dialog)->isEnabled());
        QVERIFY(dialog.messages(Field::Name).join(u'\n').contains(u"already exists"_s));

        // Made remote: stdio keys go, the policies stay.
        edit(dialog, u"name"_s)->setText(u"demo"_s);
        chooseTransport(dialog, u"sse"_s);
        edit(dialog, u"url"_s)->setText(u"http://127.0.0.1:3001/sse"_s);
        QVERIFY2(dialog.isEntryValid(), qPrintable(dialog.messages(Field::Other).join(u'\n')));
        QJsonObject remote = config.server(u"demo"_s)->source;
        for (const QString &key : {u"command"_s, u"args"_s, u"env"_s})
            remote.remove(key);
        remote.insert(u"type"_s, u"sse"_s);
        remote.insert(u"url"_s, u"http://127.0.0.1:3001/sse"_s);
        QCOMPARE(dialog.serverEntry(), remote);
    }

    void argumentsRoundTripExactly()
    {
        const QStringList words{u"plain"_s, u"two words"_s, QString(), u"it's"_s, u"${env:HOST}"_s,
                                u"\"quoted\""_s, u"back\\slash"_s, u"--flag=a b"_s, u"tab\there"_s};
        QJsonObject entry{{u"command"_s, u"server"_s}, {u"args"_s, QJsonArray::fromStringList(words)}};
        const QJsonObject root{{u"mcpServers"_s, QJsonObject{{u"tricky"_s, entry}}}};
        ServerDialog dialog(document(QJsonDocument(root).toJson()), u"tricky"_s, context());
        QCOMPARE(edit(dialog, u"arguments"_s)->text(), joinCommandLine(words));
        QCOMPARE(dialog.serverEntry(), entry);
        // Typed again as shown, it splits into the same words.
        edit(dialog, u"arguments"_s)->setText(QString());
        edit(dialog, u"arguments"_s)->setText(joinCommandLine(words));
        QCOMPARE(dialog.serverEntry(), entry);
    }

    void secretValuesAreMasked_data()
    {
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("editorName");
        QTest::newRow("environment") << u"local"_s << u"environment"_s;
        QTest::newRow("headers") << u"remote"_s << u"headers"_s;
    }

    void secretValuesAreMasked()
    {
        QFETCH(QString, server);
        QFETCH(QString, editorName);
        const QJsonObject remote{{u"url"_s, ExampleUrl}, {u"headers"_s, json(R"({"Authorization": "Bearer abc"})")}};
        const QJsonObject servers{{u"local"_s, json(R"({"command": "x", "env": {"API_KEY": "${env:API_TOKEN}"}})")},
                                  {u"remote"_s, remote}};
        const ConfigDocument config = document(QJsonDocument(QJsonObject{{u"mcpServers"_s, servers}}).toJson());
        ServerDialog dialog(config, server, context());
        NameValueEditor *editor = table(dialog, editorName);
        QCOMPARE(editor->rowCount(), 1);
        QCOMPARE(editor->nameEdit(0)->echoMode(), QLineEdit::Normal);
        QCOMPARE(editor->valueEdit(0)->echoMode(), QLineEdit::Password);
        editor->addRow();
        QCOMPARE(editor->valueEdit(1)->echoMode(), QLineEdit::Password);

        editor->showValuesBox()->setChecked(true);
        QCOMPARE(editor->valueEdit(0)->echoMode(), QLineEdit::Normal);
        QCOMPARE(editor->valueEdit(1)->echoMode(), QLineEdit::Normal);
        editor->addRow();
        QCOMPARE(editor->valueEdit(2)->echoMode(), QLineEdit::Normal);
        editor->showValuesBox()->setChecked(false);
        for (int row = 0; row < editor->rowCount(); ++row)
            QCOMPARE(editor->valueEdit(row)->echoMode(), QLineEdit::Password);
        // Blank rows add nothing.
        QCOMPARE(dialog.serverEntry(), config.server(server)->source);
    }

    void removingARowRemovesItsEntry()
    {
        ServerDialog dialog(document(R"({"mcpServers": {"local": {"command": "x", "env": {"A": "1", "B": "2"}}}})"),
                            u"local"_s, context());
        NameValueEditor *editor = table(dialog, u"environment"_s);
        editor->removeRow(0);
        QCOMPARE(dialog.serverEntry(), json(R"({"command": "x", "env": {"B": "2"}})"));
        editor->removeRow(0);
        QCOMPARE(dialog.serverEntry(), json(R"({"command": "x"})"));
    }

    void eachTransportShowsItsFields()
    {
        ServerDialog dialog(document(OneServer), QString(), context());
        edit(dialog, u"name"_s)->setText(u"remote"_s);
        const QStringList stdioFields{u"command"_s, u"arguments"_s, u"environment"_s, u"workingDirectory"_s,
                                      u"browseWorkingDirectory"_s};
        const QStringList remoteFields{u"url"_s, u"headers"_s};
        const auto check = [&](bool stdio) {
            for (const QString &field : stdioFields)
                QVERIFY2(shown(dialog, field) == stdio, qPrintable(field));
            for (const QString &field : remoteFields)
                QVERIFY2(shown(dialog, field) == !stdio, qPrintable(field));
            for (const QString &field : {u"name"_s, u"transport"_s, u"timeout"_s, u"enabled"_s})
                QVERIFY2(shown(dialog, field), qPrintable(field));
        };
        check(true);

        chooseTransport(dialog, u"http"_s);
        check(false);
        edit(dialog, u"url"_s)->setText(ExampleUrl);
        QVERIFY(dialog.isEntryValid());
        QCOMPARE(dialog.serverEntry(), (QJsonObject{{u"type"_s, u"http"_s}, {u"url"_s, ExampleUrl}}));
        QCOMPARE(parsedEntry(dialog).transport, TransportKind::StreamableHttp);

        chooseTransport(dialog, u"sse"_s);
        check(false);
        QCOMPARE(dialog.serverEntry(), (QJsonObject{{u"type"_s, u"sse"_s}, {u"url"_s, ExampleUrl}}));
        QCOMPARE(parsedEntry(dialog).transport, TransportKind::Sse);

        chooseTransport(dialog, u"stdio"_s);
        check(true);
        QVERIFY(!dialog.isEntryValid()); // no command yet
        edit(dialog, u"command"_s)->setText(u"npx"_s);
        QCOMPARE(dialog.serverEntry(), json(R"({"command": "npx"})"));
    }

    // Each field and button has its own Alt+letter, and a label's reaches its field, the rows of
    // a name/value table included.
    void everyFieldHasItsOwnMnemonic()
    {
        ServerDialog dialog(document(R"({"mcpServers": {"local": {"command": "x", "env": {"A": "1"}}}})"), u"local"_s,
                            context());
        QCOMPARE(mnemonicProblems(&dialog), QStringList());
        dialog.show();
        QVERIFY(QTest::qWaitForWindowActive(&dialog));
        QTest::keyClick(&dialog, Qt::Key_I, Qt::AltModifier);
        QCOMPARE(QApplication::focusWidget(), edit(dialog, u"timeout"_s));
        QTest::keyClick(&dialog, Qt::Key_E, Qt::AltModifier);
        QCOMPARE(QApplication::focusWidget(), table(dialog, u"environment"_s)->nameEdit(0));
        // With no rows, Add.
        table(dialog, u"environment"_s)->removeRow(0);
        edit(dialog, u"command"_s)->setFocus();
        QTest::keyClick(&dialog, Qt::Key_E, Qt::AltModifier);
        QCOMPARE(QApplication::focusWidget(), namedChild<QPushButton>(*table(dialog, u"environment"_s), u"add"_s));
        QTest::keyClick(&dialog, Qt::Key_W, Qt::AltModifier);
        QCOMPARE(QApplication::focusWidget(), edit(dialog, u"workingDirectory"_s));
    }

    // A message stays a readable red when the palette turns dark (or light) while it is shown.
    void messagesFollowThePalette()
    {
        ServerDialog dialog(document(OneServer), QString(), context());
        edit(dialog, u"name"_s)->setText(u"demo"_s);
        const QLabel *message = namedChild<QLabel>(dialog, u"messages"_s);
        QVERIFY(!message->isHidden()); // a name taken
        const auto colour = [message] { return message->palette().color(QPalette::WindowText); };
        const QPalette light = dialog.palette();
        QVERIFY(light.color(QPalette::Window).lightness() >= 128);
        const QColor onLight = colour();
        QVERIFY(onLight.red() > 2 * onLight.green() && onLight.lightness() < 128);

        QPalette dark = light;
        dark.setColor(QPalette::Window, QColor(0x20, 0x20, 0x20));
        dark.setColor(QPalette::WindowText, QColor(0xee, 0xee, 0xee));
        dialog.setPalette(dark);
        const QColor onDark = colour();
        QVERIFY2(onDark.red() > onDark.green() && onDark.lightness() >= 128, qPrintable(onDark.name()));

        dialog.setPalette(light);
        QCOMPARE(colour(), onLight);
    }

    void httpServerRoundTrip()
    {
        const QJsonObject written{
            {u"type"_s, u"streamable-http"_s},
            {u"url"_s, u"https://${env:HOST}/mcp"_s},
            {u"headers"_s, json(R"({"Authorization": "Bearer ${env:API_TOKEN}", "X-Team": "tools"})")},
            {u"timeoutMs"_s, 120000}};
        const ConfigDocument config = documentWith(u"remote"_s, written);
        ServerDialog dialog(config, u"remote"_s, context());
        QVERIFY(shown(dialog, u"url"_s));
        QVERIFY(!shown(dialog, u"command"_s));
        QCOMPARE(edit(dialog, u"url"_s)->text(), u"https://${env:HOST}/mcp"_s);
        QCOMPARE(edit(dialog, u"timeout"_s)->text(), u"120000"_s);
        QCOMPARE(table(dialog, u"headers"_s)->rowCount(), 2);
        QVERIFY2(dialog.isEntryValid(), qPrintable(dialog.messages(Field::Other).join(u'\n')));
        QCOMPARE(dialog.serverEntry(), written);

        table(dialog, u"headers"_s)->valueEdit(1)->setText(u"platform"_s);
        edit(dialog, u"timeout"_s)->setText(u"30000"_s);
        QJsonObject edited = written;
        edited.insert(u"headers"_s, json(R"({"Authorization": "Bearer ${env:API_TOKEN}", "X-Team": "platform"})"));
        edited.insert(u"timeoutMs"_s, 30000);
        QCOMPARE(dialog.serverEntry(), edited);
        const ServerConfig server = parsedEntry(dialog);
        QVERIFY2(server.isValid(), qPrintable(server.errors.join(u'\n')));
        QCOMPARE(server.transport, TransportKind::StreamableHttp);
        QCOMPARE(server.url, u"https://mcp.example.com/mcp"_s);
        const QList<std::pair<QString, QString>> headers{{u"Authorization"_s, u"Bearer s3cr3t"_s},
                                                         {u"X-Team"_s, u"platform"_s}};
        QCOMPARE(server.headers, headers);
        QCOMPARE(server.requestTimeout, std::chrono::milliseconds(30000));
    }
};

QTEST_MAIN(TestServerDialog)
#include "tst_serverdialog.moc"
