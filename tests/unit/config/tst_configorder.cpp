// Saving a config leaves the user's file in the order they wrote it: every key keeps its place
// at every depth, edits change only what they edit, and the layout is QJsonDocument's.
#include "config/configedit.h"
#include "config/configfile.h"
#include "config/jsonkeyorder.h"
#include "config/configparser.h"
#include "config/serverconfig.h"
#include "support/testfiles.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;

class TestConfigOrder final : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void withoutOrderWritesAsQJsonDocument_data();
    void withoutOrderWritesAsQJsonDocument();
    void scanReadsEveryObjectsOrder();
    void scanRecordsTheLineOfEveryKey();
    void unchangedFileIsWrittenBackAsIs();
    void editedFileKeepsItsLayout_data();
    void editedFileKeepsItsLayout();
    void enablingChangesOnlyThatValue();
    void newKeyGoesLastInItsObject();
    void policyKeepsTheKeysItHad();
    void defaultsKeepTheirPlace();
    void clearedPolicyIsGone();
    void removedServerIsGone();
    void newServerGoesLast();
    void serversAddedTogetherGoLastAlphabetically();
    void renamedServerKeepsItsPlace();
    void renamedOntoAnotherServerTakesItsPlace();
    void savedFileReadsAsTheEditedDocument();
    void compactFileIsIndentedInItsOrder();
    void duplicateServerKeepsItsFirstPlace();
    void newFileFollowsTheGivenOrder();

private:
    QByteArray save(const QJsonObject &root);

    QTemporaryDir m_folder;
    QString m_path;
    ConfigDocument m_document;
};

// moc does not understand raw string literals; it needs only the declarations above.
#ifndef Q_MOC_RUN

namespace {

const ConfigContext Context{[](const QString &) { return std::optional<QString>(u"value"_s); }, u"/opt/tether/bin"_s};
const QString Servers = u"mcpServers"_s;

// Written by hand in no particular order, laid out as QJsonDocument lays out a file: saving it
// unchanged must give these very bytes back.
const QByteArray HandOrdered = R"({
    "x-editor": {
        "theme": "dark",
        "recent": [
            "b",
            "a"
        ]
    },
    "mcpServers": {
        "zeta": {
            "command": "npx",
            "args": [
                "-y",
                "zeta-server"
            ],
            "env": {
                "ZED": "1",
                "ALPHA": "two words",
                "MIDDLE": "${env:HOME}"
            },
            "enabled": true
        },
        "alpha": {
            "url": "https://example.com/mcp",
            "type": "http",
            "headers": {
                "X-Trace": "on",
                "Authorization": "Bearer ${env:TOKEN}"
            },
            "timeoutMs": 30000
        },
        "mid": {
            "reconnect": {
                "maxAttempts": 3,
                "initialDelayMs": 500
            },
            "command": "node",
            "args": [
                "server.js"
            ],
            "x-note": {
                "ratio": 0.2,
                "big": 1e+21,
                "negative": -1500,
                "flags": [
                    true,
                    false,
                    null
                ],
                "nested": [
                    [
                        1,
                        [
                        ]
                    ],
                    {
                        "z": 1,
                        "a": 2
                    }
                ],
                "text": "café \"quoted\" back\\slash\ttab ☃",
                "empty": {
                }
            }
        }
    },
    "defaults": {
        "timeoutMs": 20000,
        "reconnect": {
            "maxAttempts": 4
        }
    }
}
)";


// `text` with its one occurrence of `before` replaced: the expected file after an edit.
QByteArray replaced(QByteArray text, const QByteArray &before, const QByteArray &after)
{
    if (text.count(before) != 1)
        qFatal("bad test: %s occurs %lld times", before.constData(), qlonglong(text.count(before)));
    return text.replace(before, after);
}


} // namespace

void TestConfigOrder::init()
{
    QVERIFY(m_folder.isValid());
    m_path = m_folder.filePath(u"servers.json"_s);
    QVERIFY(Testing::writeFile(m_path, HandOrdered));
    m_document = loadConfig(m_path, Context);
    QVERIFY2(m_document.isValid(), qPrintable(m_document.errors.join(u'\n')));
}

void TestConfigOrder::withoutOrderWritesAsQJsonDocument_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::newRow("empty") << QByteArray("{}");
    QTest::newRow("empty containers") << QByteArray(R"({"o": {}, "a": [], "n": [[], [{}], {"x": []}]})");
    QTest::newRow("numbers") << QByteArray(
        R"({"a": 0.2, "b": 30000, "c": 1e21, "d": -0.0, "e": 1.5e-7, "f": 9007199254740993, "g": 1.0, "h": -12})");
    QTest::newRow("strings") << QByteArray(
        R"({"q": "\"quoted\" \\ back\/slash", "c": "\u0001\b\f\n\r\t\u001f\u007f", "u": "café ☃ \ud83d\ude00", "": ""})");
    QTest::newRow("literals") << QByteArray(R"({"t": true, "f": false, "n": null, "l": [true, null, false]})");
    QTest::newRow("odd keys") << QByteArray(R"({"a\"b": 1, "new\nline": 2, "é": 3, "\\": {"\t": 4}})");
    QTest::newRow("deep") << QByteArray(R"({"a": [[[[{"b": [1, {"c": {"d": [null]}}]}]]]]})");
}

void TestConfigOrder::withoutOrderWritesAsQJsonDocument()
{
    QFETCH(QByteArray, json);
    const QJsonObject root = QJsonDocument::fromJson(json).object();
    QVERIFY(!root.isEmpty() || json == "{}");
    QCOMPARE(toOrderedJson(root, {}), QJsonDocument(root).toJson(QJsonDocument::Indented));
}

void TestConfigOrder::scanReadsEveryObjectsOrder()
{
    // Structure inside strings and escaped names must not mislead it.
    const auto order = JsonKeyOrder::scan(QByteArray(
        "\xEF\xBB\xBF" R"( { "z": {"b": "}", "a\"{": [{"y": 1, "x": "]"}, 2]}, "\u00e9": null, "z": 3 } )"));
    QVERIFY(order);
    QCOMPARE(order->keys, (QStringList{u"z"_s, u"é"_s, u"z"_s}));
    // JSON keeps the last "z", a number: nothing inside it.
    QVERIFY(order->members.value(u"z"_s).keys.isEmpty());

    const auto first = JsonKeyOrder::scan(QByteArray(R"({"z": {"b": "}", "a\"{": [{"y": 1, "x": "]"}, 2]}})"));
    QVERIFY(first);
    const JsonKeyOrder z = first->members.value(u"z"_s);
    QCOMPARE(z.keys, (QStringList{u"b"_s, u"a\"{"_s}));
    const JsonKeyOrder array = z.members.value(u"a\"{"_s);
    QCOMPARE(array.elements.size(), 2);
    QCOMPARE(array.elements.at(0).keys, (QStringList{u"y"_s, u"x"_s}));

    QVERIFY(!JsonKeyOrder::scan(QByteArray(R"({"a": )")));
}

void TestConfigOrder::scanRecordsTheLineOfEveryKey()
{
    // An escaped line break inside a string is none.
    const auto order = JsonKeyOrder::scan(QByteArray("{\"a\": \"x\\ny\",\n"
                                                     "  \"b\": {\"c\": 1,\n\n \"c\": 2, \"d\": [{\"e\": 1}]},\n"
                                                     "  \"a\": 3, \"f\": 4, \"a\": 5}"));
    QVERIFY(order);
    QCOMPARE(order->keys, (QStringList{u"a"_s, u"b"_s, u"a"_s, u"f"_s, u"a"_s}));
    QCOMPARE(order->lines, (QList<int>{1, 2, 5, 5, 5}));
    QCOMPARE(order->duplicateKeys(), QStringList{u"a"_s});
    QCOMPARE(order->linesOf(u"a"_s), (QList<int>{1, 5, 5}));
    QCOMPARE(order->linesOf(u"missing"_s), QList<int>());
    const JsonKeyOrder b = order->members.value(u"b"_s);
    QCOMPARE(b.lines, (QList<int>{2, 4, 4}));
    QCOMPARE(b.duplicateKeys(), QStringList{u"c"_s});
    QCOMPARE(b.members.value(u"d"_s).elements.value(0).lines, QList<int>{4});
}

void TestConfigOrder::unchangedFileIsWrittenBackAsIs()
{
    QString error;
    QByteArray written;
    QVERIFY2(saveRoot(m_path, m_document.root, &error, {}, &written), qPrintable(error));
    QCOMPARE(readFile(m_path), HandOrdered);
    QCOMPARE(written, HandOrdered);
}

// `text`, laid out in QJsonDocument's four spaces a level, with another unit and line end.
static QByteArray relaidOut(const QByteArray &text, const QByteArray &unit, const QByteArray &newline)
{
    QByteArray out;
    for (const QByteArray &line : text.chopped(1).split('\n')) {
        qsizetype spaces = 0;
        while (spaces < line.size() && line.at(spaces) == ' ')
            ++spaces;
        out += unit.repeated(spaces / 4) + line.sliced(spaces) + newline;
    }
    return out;
}

void TestConfigOrder::editedFileKeepsItsLayout_data()
{
    QTest::addColumn<QByteArray>("unit");
    QTest::addColumn<QByteArray>("newline");
    QTest::newRow("two spaces") << QByteArray("  ") << QByteArray("\n");
    QTest::newRow("tabs") << QByteArray("\t") << QByteArray("\n");
    QTest::newRow("one space, CRLF") << QByteArray(" ") << QByteArray("\r\n");
}

// A save writes the file in its own indentation and line ends: unchanged, it is the same bytes;
// edited, only the edit differs.
void TestConfigOrder::editedFileKeepsItsLayout()
{
    QFETCH(QByteArray, unit);
    QFETCH(QByteArray, newline);
    const QByteArray own = relaidOut(HandOrdered, unit, newline);
    QVERIFY(Testing::writeFile(m_path, own));
    QString error;
    QVERIFY2(saveRoot(m_path, loadConfig(m_path, Context).root, &error), qPrintable(error));
    QCOMPARE(readFile(m_path), own);
    const QByteArray saved = save(setServerEnabled(m_document.root, Servers, u"zeta"_s, false));
    QCOMPARE(saved, relaidOut(replaced(HandOrdered, R"("enabled": true)", R"("enabled": false)"), unit, newline));
}

void TestConfigOrder::enablingChangesOnlyThatValue()
{
    const QByteArray saved = save(setServerEnabled(m_document.root, Servers, u"zeta"_s, false));
    QCOMPARE(saved, replaced(HandOrdered, R"("enabled": true)", R"("enabled": false)"));
}

void TestConfigOrder::newKeyGoesLastInItsObject()
{
    const QByteArray saved = save(setServerEnabled(m_document.root, Servers, u"alpha"_s, false));
    QCOMPARE(saved, replaced(HandOrdered, "\"timeoutMs\": 30000\n",
                             "\"timeoutMs\": 30000,\n            \"enabled\": false\n"));
}

void TestConfigOrder::policyKeepsTheKeysItHad()
{
    ReconnectPolicy policy;
    policy.maxAttempts = 7;
    policy.initialDelayMs = 250;
    const QByteArray saved = save(setServerReconnectPolicy(m_document.root, Servers, u"mid"_s, policy));
    // The keys the file had stay first, where they were; the rest follow.
    QCOMPARE(saved, replaced(HandOrdered, R"("reconnect": {
                "maxAttempts": 3,
                "initialDelayMs": 500
            },)", R"("reconnect": {
                "maxAttempts": 7,
                "initialDelayMs": 250,
                "enabled": true,
                "jitter": 0.2,
                "maxDelayMs": 30000
            },)"));
}

void TestConfigOrder::defaultsKeepTheirPlace()
{
    ReconnectPolicy policy;
    policy.maxAttempts = 2;
    const QByteArray saved = save(setDefaultReconnectPolicy(m_document.root, policy));
    QCOMPARE(saved, replaced(HandOrdered, R"("reconnect": {
            "maxAttempts": 4
        })", R"("reconnect": {
            "maxAttempts": 2,
            "enabled": true,
            "initialDelayMs": 500,
            "jitter": 0.2,
            "maxDelayMs": 30000
        })"));
}

void TestConfigOrder::clearedPolicyIsGone()
{
    const QByteArray saved = save(clearServerReconnectPolicy(m_document.root, Servers, u"mid"_s));
    QCOMPARE(saved, replaced(HandOrdered, R"("reconnect": {
                "maxAttempts": 3,
                "initialDelayMs": 500
            },
            )", ""));
}

void TestConfigOrder::removedServerIsGone()
{
    const QByteArray saved = save(removeServer(m_document.root, Servers, u"alpha"_s));
    const qsizetype start = HandOrdered.indexOf("        \"alpha\": {");
    const qsizetype end = HandOrdered.indexOf("        \"mid\": {");
    QCOMPARE(saved, QByteArray(HandOrdered).remove(start, end - start));
    QCOMPARE(loadConfig(m_path, Context).serverNames(), (QStringList{u"zeta"_s, u"mid"_s}));
}

void TestConfigOrder::newServerGoesLast()
{
    const QJsonObject entry{{u"command"_s, u"uvx"_s}, {u"args"_s, QJsonArray{u"beta"_s}}};
    const QByteArray saved = save(putServer(m_document.root, Servers, {}, u"beta"_s, entry));
    // The new server's own keys come as QJsonObject holds them: alphabetically.
    QCOMPARE(saved, replaced(HandOrdered, R"(
                "empty": {
                }
            }
        }
    },)", R"(
                "empty": {
                }
            }
        },
        "beta": {
            "args": [
                "beta"
            ],
            "command": "uvx"
        }
    },)"));
    QCOMPARE(loadConfig(m_path, Context).serverNames(), (QStringList{u"zeta"_s, u"alpha"_s, u"mid"_s, u"beta"_s}));
}

void TestConfigOrder::serversAddedTogetherGoLastAlphabetically()
{
    QJsonObject root = m_document.root;
    for (const QString &name : {u"nu"_s, u"beta"_s, u"omega"_s})
        root = putServer(root, Servers, {}, name, QJsonObject{{u"command"_s, name}});
    save(root);
    QCOMPARE(loadConfig(m_path, Context).serverNames(),
             (QStringList{u"zeta"_s, u"alpha"_s, u"mid"_s, u"beta"_s, u"nu"_s, u"omega"_s}));
}

void TestConfigOrder::renamedServerKeepsItsPlace()
{
    // As the edit dialog gives it back: the entry as it was, with one change.
    QJsonObject entry = m_document.root.value(Servers)[u"zeta"_s].toObject();
    entry.insert(u"cwd"_s, u"/srv"_s);
    const QByteArray saved = save(putServer(m_document.root, Servers, u"zeta"_s, u"omega"_s, entry));
    QByteArray expected = replaced(HandOrdered, R"("zeta": {)", R"("omega": {)");
    expected = replaced(expected, "\"enabled\": true\n", "\"enabled\": true,\n            \"cwd\": \"/srv\"\n");
    QCOMPARE(saved, expected);
    QCOMPARE(loadConfig(m_path, Context).serverNames(), (QStringList{u"omega"_s, u"alpha"_s, u"mid"_s}));
}

void TestConfigOrder::renamedOntoAnotherServerTakesItsPlace()
{
    const QJsonObject entry = m_document.root.value(Servers)[u"mid"_s].toObject();
    save(putServer(m_document.root, Servers, u"mid"_s, u"alpha"_s, entry));
    const ConfigDocument saved = loadConfig(m_path, Context);
    QCOMPARE(saved.serverNames(), (QStringList{u"zeta"_s, u"alpha"_s}));
    QCOMPARE(saved.server(u"alpha"_s)->command.program, u"node"_s);
}

void TestConfigOrder::savedFileReadsAsTheEditedDocument()
{
    QJsonObject root = setServerEnabled(m_document.root, Servers, u"mid"_s, false);
    root = removeServer(root, Servers, u"alpha"_s);
    // Two new servers, not one: one alone would take the removed one's place, as a rename does.
    root = putServer(root, Servers, {}, u"added"_s, QJsonObject{{u"url"_s, u"https://e.com/mcp"_s}});
    root = putServer(root, Servers, {}, u"beta"_s, QJsonObject{{u"command"_s, u"b"_s}, {u"enabled"_s, false}});
    save(root);
    const ConfigDocument saved = loadConfig(m_path, Context);
    const ConfigDocument edited = parseConfig(QJsonDocument(root).toJson(), m_path, Context);
    QVERIFY(saved.isValid());
    QCOMPARE(saved.root, root);
    QCOMPARE(saved.serverNames(), (QStringList{u"zeta"_s, u"mid"_s, u"added"_s, u"beta"_s}));
    QCOMPARE(saved.servers.size(), edited.servers.size());
    for (const ServerConfig &server : saved.servers) {
        QVERIFY2(server.isValid(), qPrintable(server.errors.join(u'\n')));
        QVERIFY2(server.sameSettings(*edited.server(server.name)), qPrintable(server.name));
        QCOMPARE(server.source, edited.server(server.name)->source);
    }
}

void TestConfigOrder::compactFileIsIndentedInItsOrder()
{
    // Values are written as QJsonDocument writes them; only the order is the file's.
    QVERIFY(Testing::writeFile(m_path, R"({"mcpServers":{"b":{"command":"x","args":["1.0"]},"a":{"url":"https://e.com"}},)"
                                       R"("z":{"y":1e21,"x":1.50,"w":[3, 1.0,"\u00e9\/"]}})"));
    const ConfigDocument document = loadConfig(m_path, Context);
    QVERIFY(document.isValid());
    QCOMPARE(save(document.root), QByteArray(R"({
    "mcpServers": {
        "b": {
            "command": "x",
            "args": [
                "1.0"
            ]
        },
        "a": {
            "url": "https://e.com"
        }
    },
    "z": {
        "y": 1e+21,
        "x": 1.5,
        "w": [
            3,
            1,
            "é/"
        ]
    }
}
)"));
}

void TestConfigOrder::duplicateServerKeepsItsFirstPlace()
{
    // The reader lists a server written twice where it first appears, with the last value.
    const QByteArray twice = R"({"mcpServers": {"b": {"command": "1"}, "a": {"command": "a"},
                                                           "b": {"command": "2"}}})";
    QVERIFY(Testing::writeFile(m_path, twice));
    const ConfigDocument document = loadConfig(m_path, Context);
    QCOMPARE(document.serverNames(), (QStringList{u"b"_s, u"a"_s}));
    QCOMPARE(document.server(u"b"_s)->command.program, u"2"_s);
    // Saving would silently drop the first definition: refused, the file left as it is.
    QString error;
    QVERIFY(!saveRoot(m_path, document.root, &error));
    QVERIFY2(error.contains(u"mcpServers.b is defined 2 times (lines 1 and 2)"_s), qPrintable(error));
    QCOMPARE(readFile(m_path), twice);
}

void TestConfigOrder::newFileFollowsTheGivenOrder()
{
    QString error;
    // No file yet: the order the document was read in, such as the embedded demo's.
    const QString fresh = m_folder.filePath(u"new/servers.json"_s);
    QVERIFY2(saveRoot(fresh, m_document.root, &error, m_document.keyOrder), qPrintable(error));
    QCOMPARE(readFile(fresh), HandOrdered);

    // A file on disk wins over the order given: it is what the user sees.
    const JsonKeyOrder otherOrder = *JsonKeyOrder::scan(R"({"defaults": {}, "mcpServers": {"mid": {}}})");
    QVERIFY2(saveRoot(fresh, m_document.root, &error, otherOrder), qPrintable(error));
    QCOMPARE(readFile(fresh), HandOrdered);

    // An empty file (as `touch` leaves one) has no order: the given one is used.
    QVERIFY(Testing::writeFile(fresh, ""));
    QVERIFY2(saveRoot(fresh, m_document.root, &error, m_document.keyOrder), qPrintable(error));
    QCOMPARE(readFile(fresh), HandOrdered);

    // Neither a file nor an order: alphabetical, as QJsonDocument writes it.
    const QString unordered = m_folder.filePath(u"unordered/servers.json"_s);
    QVERIFY2(saveRoot(unordered, m_document.root, &error), qPrintable(error));
    QCOMPARE(readFile(unordered), QJsonDocument(m_document.root).toJson(QJsonDocument::Indented));
}

QByteArray TestConfigOrder::save(const QJsonObject &root)
{
    QString error;
    if (!saveRoot(m_path, root, &error))
        qFatal("save failed: %s", qPrintable(error));
    return readFile(m_path);
}

#endif // Q_MOC_RUN

QTEST_GUILESS_MAIN(TestConfigOrder)
#include "tst_configorder.moc"
