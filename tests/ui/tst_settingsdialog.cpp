// The policy settings dialog: every value the resolvers refuse is refused where it is typed,
// valid values come back as the config the user meant, and the figures and chart follow.
#include "backoffchart.h"
#include "config/configparser.h"
#include "settingsdialog.h"
#include "support/fakeenvironment.h"
#include "support/mnemonicchecks.h"
#include "support/namedchild.h"
#include "support/policyprinters.h"

#include <QAbstractButton>
#include <QAccessible>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace Tether::Testing;
using namespace std::chrono;

namespace {

ConfigDocument parse(const QByteArray &bytes)
{
    const ConfigContext context{fakeEnvironment({}), u"/opt/tether/bin"_s};
    return parseConfig(bytes, u"servers.json"_s, context);
}

ConfigDocument parse(const QJsonObject &root)
{
    return parse(QJsonDocument(root).toJson());
}

// "alpha" uses the defaults, "beta" has its own retries; the file's defaults differ from Tether's.
const QByteArray Sample = R"({
    "defaults": {"reconnect": {"maxAttempts": 4}},
    "mcpServers": {
        "alpha": {"command": "alpha-server"},
        "beta": {"command": "beta-server", "reconnect": {"maxAttempts": 2}, "x-note": "kept"}
    }
})";

// The dialog's save function: saves into a list, or fails as told.
struct Saves
{
    QList<QJsonObject> roots;
    QString failure;

    void attach(SettingsDialog &dialog)
    {
        dialog.setSaveFunction([this](const QJsonObject &root, QString *error) {
            if (!failure.isEmpty()) {
                *error = failure;
                return false;
            }
            roots.append(root);
            return true;
        });
    }
};

// The dialog's parts, by the names it gives them: a field by its path in the config
// ("reconnect.initialDelayMs"), a section's parts by the section ("reconnect", "heartbeat").
QLineEdit *field(const SettingsDialog &dialog, const QString &path)
{
    return namedChild<QLineEdit>(dialog, path);
}

QLabel *fieldError(const SettingsDialog &dialog, const QString &path)
{
    return namedChild<QLabel>(dialog, path + u"Message"_s);
}

QCheckBox *enabledBox(const SettingsDialog &dialog, const QString &section)
{
    return namedChild<QCheckBox>(dialog, section + u".enabled"_s);
}

// A server's one choice between the global defaults and settings of its own.
QCheckBox *useDefaultsBox(const SettingsDialog &dialog)
{
    return namedChild<QCheckBox>(dialog, u"useDefaults"_s);
}

// The derived figures.
QLabel *summary(const SettingsDialog &dialog, const QString &section)
{
    return namedChild<QLabel>(dialog, section + u".summary"_s);
}

QComboBox *scopeSelector(const SettingsDialog &dialog)
{
    return namedChild<QComboBox>(dialog, u"scope"_s);
}

BackoffChart *backoffChart(const SettingsDialog &dialog)
{
    return namedChild<BackoffChart>(dialog, u"backoffChart"_s);
}

QPushButton *saveButton(const SettingsDialog &dialog)
{
    return namedChild<QPushButton>(dialog, u"save"_s);
}

QPushButton *restoreDefaultsButton(const SettingsDialog &dialog)
{
    return namedChild<QPushButton>(dialog, u"restoreDefaults"_s);
}

QLabel *problem(const SettingsDialog &dialog)
{
    return namedChild<QLabel>(dialog, u"problem"_s);
}

// The servers whose own settings the edited defaults would make invalid, and why, in the section's messages.
QLabel *conflicts(const SettingsDialog &dialog, const QString &section)
{
    return namedChild<QLabel>(dialog, section + u".conflicts"_s);
}

// Replaces the field's text the way a person does: select it all and type over it.
void type(QLineEdit *field, const QString &text)
{
    QVERIFY(field);
    field->selectAll();
    if (text.isEmpty())
        QTest::keyClick(field, Qt::Key_Backspace);
    else
        QTest::keyClicks(field, text);
    QCOMPARE(field->text(), text);
}

bool showsError(const SettingsDialog &dialog, const QString &path)
{
    return !fieldError(dialog, path)->isHidden() && !fieldError(dialog, path)->text().isEmpty();
}

QStringList fieldsShowingErrors(const SettingsDialog &dialog)
{
    QStringList shown;
    for (const QString &path : {u"reconnect.initialDelayMs"_s, u"reconnect.maxDelayMs"_s, u"reconnect.maxAttempts"_s,
                                u"reconnect.jitter"_s, u"heartbeat.intervalMs"_s, u"heartbeat.timeoutMs"_s,
                                u"heartbeat.maxFailures"_s}) {
        if (showsError(dialog, path))
            shown.append(path);
    }
    return shown;
}

} // namespace

class TestSettingsDialog final : public QObject
{
    Q_OBJECT

private slots:
    // Every rule of both resolvers a typed value can break: the message sits under the field it
    // names first, and Save (and leaving the scope) wait until it is fixed.
    void refusesEachInvalidValue_data()
    {
        QTest::addColumn<QString>("typedInto");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("shownAt");
        QTest::addColumn<QString>("message");

        const auto row = [](const char *name, const QString &field, const QString &text, const QString &shownAt,
                            const QString &message) {
            QTest::newRow(name) << field << text << shownAt << message;
        };
        const QString initial = u"reconnect.initialDelayMs"_s;
        const QString maxDelay = u"reconnect.maxDelayMs"_s;
        const QString attempts = u"reconnect.maxAttempts"_s;
        const QString jitter = u"reconnect.jitter"_s;
        const QString interval = u"heartbeat.intervalMs"_s;
        const QString timeout = u"heartbeat.timeoutMs"_s;
        const QString failures = u"heartbeat.maxFailures"_s;
        const QString howToWrite = u"is not a duration; write it like 500 ms, 2 s, 1.5 s or 1 min (a number alone counts "
                                   "milliseconds)"_s;

        // In the labels' words, never the config's keys; durations as people write them.
        row("initial delay negative", initial, u"-1"_s, initial, u"First delay: \"-1\" is negative; a duration is 0 or more"_s);
        row("initial delay too long", initial, u"3600001"_s, initial,
            u"First delay (1 h 0.001 s) is out of range: it must be from 0 ms to 1 h"_s);
        row("initial delay too long in hours", initial, u"2 h"_s, initial,
            u"First delay (2 h) is out of range: it must be from 0 ms to 1 h"_s);
        row("initial delay fraction", initial, u"1.5"_s, initial,
            u"First delay: \"1.5\" is not a whole number of milliseconds"_s);
        row("initial delay not a number", initial, u"soon"_s, initial, u"First delay: \"soon\" "_s + howToWrite);
        row("initial delay unknown unit", initial, u"2 weeks"_s, initial,
            u"First delay: \"2 weeks\" has an unknown unit \"weeks\"; use ms, s, min or h"_s);
        row("initial delay empty", initial, QString(), initial,
            u"First delay: nothing is written; write a duration like 500 ms, 2 s, 1.5 s or 1 min"_s);
        row("initial delay over the longest", initial, u"40 s"_s, maxDelay,
            u"Longest delay (30 s) is less than First delay (40 s)"_s);
        row("max delay negative", maxDelay, u"-5"_s, maxDelay, u"Longest delay: \"-5\" is negative"_s);
        row("max delay too long", maxDelay, u"86400001"_s, maxDelay,
            u"Longest delay (24 h 0.001 s) is out of range: it must be from 0 ms to 24 h"_s);
        row("max delay fraction", maxDelay, u"2.5"_s, maxDelay, u"Longest delay: \"2.5\" is not a whole number of milliseconds"_s);
        row("max delay under the first", maxDelay, u"100"_s, maxDelay,
            u"Longest delay (100 ms) is less than First delay (500 ms): the longest delay must be at least the first one"_s);
        row("attempts zero", attempts, u"0"_s, attempts, u"Retries per outage (0) is out of range: it must be a whole number from 1 to 1000"_s);
        row("attempts negative", attempts, u"-1"_s, attempts, u"Retries per outage (-1) is out of range"_s);
        row("attempts too many", attempts, u"1001"_s, attempts, u"Retries per outage (1001) is out of range"_s);
        row("attempts fraction", attempts, u"2.5"_s, attempts, u"Retries per outage (2.5) is out of range"_s);
        row("attempts not a number", attempts, u"many"_s, attempts, u"Retries per outage (\"many\") is not a number"_s);
        row("jitter negative", jitter, u"-0.1"_s, jitter, u"Jitter (-0.1) is out of range: it must be a number from 0 to 1"_s);
        row("jitter over one", jitter, u"1.5"_s, jitter, u"Jitter (1.5) is out of range"_s);
        row("jitter not a number", jitter, u"some"_s, jitter, u"Jitter (\"some\") is not a number"_s);
        row("interval too short", interval, u"99"_s, interval, u"Ping every (99 ms) is out of range: it must be from 100 ms to 24 h"_s);
        row("interval too long", interval, u"86400001"_s, interval, u"Ping every (24 h 0.001 s) is out of range"_s);
        row("interval fraction", interval, u"1000.5"_s, interval, u"Ping every: \"1000.5\" is not a whole number of milliseconds"_s);
        row("interval not a number", interval, u"often"_s, interval, u"Ping every: \"often\" "_s + howToWrite);
        row("interval under the timeout", interval, u"5 s"_s, timeout,
            u"Answer within (10 s) is more than Ping every (5 s): a ping must time out before the next one is due"_s);
        row("timeout too short", timeout, u"9"_s, timeout, u"Answer within (9 ms) is out of range: it must be from 10 ms to 1 h"_s);
        row("timeout too long", timeout, u"3600001"_s, timeout, u"Answer within (1 h 0.001 s) is out of range"_s);
        row("timeout fraction", timeout, u"10.5"_s, timeout, u"Answer within: \"10.5\" is not a whole number of milliseconds"_s);
        row("timeout over the interval", timeout, u"40000"_s, timeout,
            u"Answer within (40 s) is more than Ping every (30 s)"_s);
        row("failures zero", failures, u"0"_s, failures, u"Unanswered pings in a row (0) is out of range: it must be a whole number from 1 to 100"_s);
        row("failures too many", failures, u"101"_s, failures, u"Unanswered pings in a row (101) is out of range"_s);
        row("failures fraction", failures, u"1.5"_s, failures, u"Unanswered pings in a row (1.5) is out of range"_s);
        row("failures not a number", failures, u"3x"_s, failures, u"Unanswered pings in a row (\"3x\") is not a number"_s);
    }

    void refusesEachInvalidValue()
    {
        QFETCH(QString, typedInto);
        QFETCH(QString, text);
        QFETCH(QString, shownAt);
        QFETCH(QString, message);

        Saves saves;
        const ConfigDocument document = parse(QByteArray(R"({"mcpServers": {"alpha": {"command": "a"}}})"));
        // The global scope and a server's own policy are judged alike.
        for (const QString &scope : {QString(), u"alpha"_s}) {
            SettingsDialog dialog(document, scope);
            saves.attach(dialog);
            if (!scope.isEmpty()) {
                useDefaultsBox(dialog)->click();
                QVERIFY(field(dialog, typedInto)->isEnabled());
            }
            QVERIFY(saveButton(dialog)->isEnabled());
            const QString before = field(dialog, typedInto)->text();

            type(field(dialog, typedInto), text);
            QCOMPARE(fieldsShowingErrors(dialog), QStringList{shownAt});
            const QString shown = fieldError(dialog, shownAt)->text();
            QVERIFY2(shown.contains(message), qPrintable(shown));
            QVERIFY2(!shown.startsWith(u"server '"_s), qPrintable(shown)); // the scope is the dialog's own
            QVERIFY2(!shown.contains(u"reconnect."_s) && !shown.contains(u"heartbeat."_s), qPrintable(shown));
            QVERIFY(!saveButton(dialog)->isEnabled());
            QVERIFY(!scopeSelector(dialog)->isEnabled());
            // The field is marked, and a screen reader says why on it.
            QCOMPARE(field(dialog, shownAt)->accessibleDescription(), shown);
            QVERIFY(std::any_of(field(dialog, shownAt)->actions().cbegin(), field(dialog, shownAt)->actions().cend(),
                                [](const QAction *marker) { return marker->isVisible(); }));

            type(field(dialog, typedInto), before);
            QVERIFY(fieldsShowingErrors(dialog).isEmpty());
            QVERIFY(saveButton(dialog)->isEnabled());
            QVERIFY(scopeSelector(dialog)->isEnabled());
        }
        QVERIFY(saves.roots.isEmpty());
    }

    void validValuesAreSavedAsTyped()
    {
        Saves saves;
        const ConfigDocument document = parse(Sample);
        SettingsDialog dialog(document);
        saves.attach(dialog);
        QCOMPARE(scopeSelector(dialog)->currentIndex(), 0);
        QCOMPARE(field(dialog, u"reconnect.maxAttempts"_s)->text(), u"4"_s); // the file's default

        type(field(dialog, u"reconnect.initialDelayMs"_s), u"250"_s);
        type(field(dialog, u"reconnect.maxDelayMs"_s), u"8000"_s);
        type(field(dialog, u"reconnect.maxAttempts"_s), u"6"_s);
        type(field(dialog, u"reconnect.jitter"_s), u"0.05"_s);
        enabledBox(dialog, u"heartbeat"_s)->click();
        type(field(dialog, u"heartbeat.intervalMs"_s), u"20000"_s);
        type(field(dialog, u"heartbeat.timeoutMs"_s), u"5000"_s);
        type(field(dialog, u"heartbeat.maxFailures"_s), u"5"_s);
        QVERIFY(saveButton(dialog)->isEnabled());

        QSignalSpy accepted(&dialog, &QDialog::accepted);
        saveButton(dialog)->click();
        QCOMPARE(accepted.size(), 1);
        QCOMPARE(saves.roots.size(), 1);
        QCOMPARE(saves.roots.first(), dialog.editedRoot());

        const ConfigDocument saved = parse(saves.roots.first());
        QVERIFY2(saved.isValid(), qPrintable(saved.errors.join(u'\n')));
        const ReconnectPolicy typedReconnect{true, 250, 8000, 6, 0.05};
        const HeartbeatPolicy typedHeartbeat{false, 20000, 5000, 5};
        QCOMPARE(saved.server(u"alpha"_s)->reconnect, typedReconnect);
        QCOMPARE(saved.server(u"alpha"_s)->heartbeat, typedHeartbeat);
        // beta keeps its own retries over the new defaults, and its unknown key.
        ReconnectPolicy betaReconnect = typedReconnect;
        betaReconnect.maxAttempts = 2;
        QCOMPARE(saved.server(u"beta"_s)->reconnect, betaReconnect);
        QCOMPARE(saves.roots.first().value(u"mcpServers"_s)[u"beta"_s][u"x-note"_s].toString(), u"kept"_s);
    }

    void nothingChangedWritesNothing()
    {
        Saves saves;
        SettingsDialog dialog(parse(Sample), u"beta"_s);
        saves.attach(dialog);
        type(field(dialog, u"reconnect.maxAttempts"_s), u"3"_s);
        type(field(dialog, u"reconnect.maxAttempts"_s), u"2"_s); // and back
        QCOMPARE(dialog.editedRoot(), parse(Sample).root);
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        saveButton(dialog)->click();
        QCOMPARE(accepted.size(), 1);
        QVERIFY(saves.roots.isEmpty());
    }

    void withoutASaveFunctionTheCallerSaves()
    {
        const ConfigDocument document = parse(Sample);
        SettingsDialog dialog(document, u"beta"_s);
        QVERIFY(!useDefaultsBox(dialog)->isChecked()); // its own retries
        type(field(dialog, u"heartbeat.intervalMs"_s), u"1 min"_s);
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        saveButton(dialog)->click();
        QCOMPARE(accepted.size(), 1);
        const ConfigDocument edited = parse(dialog.editedRoot());
        HeartbeatPolicy betaHeartbeat;
        betaHeartbeat.intervalMs = 60000;
        QCOMPARE(edited.server(u"beta"_s)->heartbeat, betaHeartbeat);
        QCOMPARE(edited.server(u"alpha"_s)->heartbeat, HeartbeatPolicy{});
    }

    void aFailedSaveKeepsTheDialogOpen()
    {
        Saves saves;
        saves.failure = u"servers.json: the file on disk is broken (not valid JSON), so it was left untouched"_s;
        SettingsDialog dialog(parse(Sample));
        saves.attach(dialog);
        QVERIFY(problem(dialog)->isHidden());
        type(field(dialog, u"reconnect.maxAttempts"_s), u"9"_s);
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        saveButton(dialog)->click();
        QCOMPARE(accepted.size(), 0);
        QVERIFY(!problem(dialog)->isHidden());
        QCOMPARE(problem(dialog)->text(), u"Not saved: "_s + saves.failure);
        QCOMPARE(field(dialog, u"reconnect.maxAttempts"_s)->text(), u"9"_s);
    }

    void restoresTheBuiltInDefaults()
    {
        Saves saves;
        SettingsDialog dialog(parse(Sample));
        saves.attach(dialog);
        type(field(dialog, u"heartbeat.maxFailures"_s), u"7"_s);
        restoreDefaultsButton(dialog)->click();
        QCOMPARE(field(dialog, u"reconnect.maxAttempts"_s)->text(), u"10"_s);
        QCOMPARE(field(dialog, u"reconnect.jitter"_s)->text(), u"0.2"_s);
        QCOMPARE(field(dialog, u"heartbeat.maxFailures"_s)->text(), u"3"_s);
        const ConfigDocument edited = parse(dialog.editedRoot());
        QCOMPARE(edited.server(u"alpha"_s)->reconnect, ReconnectPolicy{});
        QCOMPARE(edited.server(u"alpha"_s)->heartbeat, HeartbeatPolicy{});
        QCOMPARE(edited.server(u"beta"_s)->reconnect.maxAttempts, 2);

        // Even an invalid value typed before is replaced.
        type(field(dialog, u"reconnect.jitter"_s), u"2"_s);
        QVERIFY(!saveButton(dialog)->isEnabled());
        restoreDefaultsButton(dialog)->click();
        QVERIFY(fieldsShowingErrors(dialog).isEmpty());
        QVERIFY(saveButton(dialog)->isEnabled());
    }

    void setsAndClearsAServersOwnPolicy()
    {
        Saves saves;
        SettingsDialog dialog(parse(Sample), u"alpha"_s);
        saves.attach(dialog);
        QCOMPARE(scopeSelector(dialog)->currentText(), u"Server: alpha"_s);
        QCheckBox *useDefaults = useDefaultsBox(dialog);
        QVERIFY(!useDefaults->isHidden());
        QVERIFY(useDefaults->isChecked());
        for (const QString &path : {u"reconnect.maxAttempts"_s, u"heartbeat.intervalMs"_s})
            QVERIFY(!field(dialog, path)->isEnabled());
        QVERIFY(!enabledBox(dialog, u"heartbeat"_s)->isEnabled());
        QCOMPARE(field(dialog, u"reconnect.maxAttempts"_s)->text(), u"4"_s); // what the defaults give it

        useDefaults->click();
        QVERIFY(field(dialog, u"reconnect.maxAttempts"_s)->isEnabled());
        QVERIFY(field(dialog, u"heartbeat.intervalMs"_s)->isEnabled());
        type(field(dialog, u"reconnect.maxAttempts"_s), u"7"_s);
        QJsonObject root = dialog.editedRoot();
        ReconnectPolicy alphaReconnect{};
        alphaReconnect.maxAttempts = 7;
        QCOMPARE(parse(root).server(u"alpha"_s)->reconnect, alphaReconnect);
        // Its own settings, both written whole.
        QCOMPARE(root.value(u"mcpServers"_s)[u"alpha"_s][u"reconnect"_s].toObject(), toJson(alphaReconnect));
        QCOMPARE(root.value(u"mcpServers"_s)[u"alpha"_s][u"heartbeat"_s].toObject(), toJson(HeartbeatPolicy{}));

        // beta goes back to the defaults, in one click for both sections.
        scopeSelector(dialog)->setCurrentIndex(2);
        QCOMPARE(field(dialog, u"reconnect.maxAttempts"_s)->text(), u"2"_s);
        QVERIFY(!useDefaultsBox(dialog)->isChecked());
        useDefaultsBox(dialog)->click();
        QCOMPARE(field(dialog, u"reconnect.maxAttempts"_s)->text(), u"4"_s);
        QVERIFY(!field(dialog, u"reconnect.maxAttempts"_s)->isEnabled());
        root = dialog.editedRoot();
        QVERIFY(!root.value(u"mcpServers"_s)[u"beta"_s].toObject().contains(u"reconnect"_s));
        QVERIFY(!root.value(u"mcpServers"_s)[u"beta"_s].toObject().contains(u"heartbeat"_s));
        QCOMPARE(parse(root).server(u"beta"_s)->reconnect.maxAttempts, 4);
        QCOMPARE(parse(root).server(u"alpha"_s)->reconnect, alphaReconnect); // kept while on another scope

        // The global scope has no defaults to fall back on: no such choice there.
        scopeSelector(dialog)->setCurrentIndex(0);
        QVERIFY(useDefaultsBox(dialog)->isHidden());
    }

    // One control says whether a server uses the global defaults; the reset button is for the
    // defaults themselves, and shown only there.
    void oneControlChoosesTheDefaults()
    {
        SettingsDialog dialog(parse(Sample), u"alpha"_s);
        QStringList choices;
        for (const QAbstractButton *button : dialog.findChildren<QAbstractButton *>()) {
            if (!button->isHidden() && button->text().contains(u"default"_s, Qt::CaseInsensitive))
                choices.append(button->text());
        }
        QCOMPARE(choices, QStringList{u"Use the &global defaults"_s});
        QVERIFY(restoreDefaultsButton(dialog)->isHidden());

        scopeSelector(dialog)->setCurrentIndex(0);
        choices.clear();
        for (const QAbstractButton *button : dialog.findChildren<QAbstractButton *>()) {
            if (!button->isHidden() && button->text().contains(u"default"_s, Qt::CaseInsensitive))
                choices.append(button->text());
        }
        QCOMPARE(choices, QStringList{u"&Reset to Tether's Defaults"_s});
    }

    void aServerFollowsTheDefaultsAsTheyAreEdited()
    {
        Saves saves;
        SettingsDialog dialog(parse(Sample));
        saves.attach(dialog);
        type(field(dialog, u"reconnect.initialDelayMs"_s), u"1000"_s);
        scopeSelector(dialog)->setCurrentIndex(2); // beta: its own retries over the new default delay
        QCOMPARE(field(dialog, u"reconnect.initialDelayMs"_s)->text(), u"1 s"_s);
        QCOMPARE(field(dialog, u"reconnect.maxAttempts"_s)->text(), u"2"_s);
        // Not touched, so its partial setting stays as written.
        QCOMPARE(dialog.editedRoot().value(u"mcpServers"_s)[u"beta"_s][u"reconnect"_s].toObject(),
                 QJsonObject({{u"maxAttempts"_s, 2}}));
    }

    void anInvalidServerSettingIsShownWithItsMessage()
    {
        Saves saves;
        const ConfigDocument document = parse(QByteArray(R"({"mcpServers": {"bad": {"command": "b", "reconnect": {"maxAttempts": 0}}}})"));
        QVERIFY(document.isValid());
        QVERIFY(!document.server(u"bad"_s)->isValid());
        SettingsDialog dialog(document, u"bad"_s);
        saves.attach(dialog);
        QCOMPARE(field(dialog, u"reconnect.maxAttempts"_s)->text(), u"0"_s);
        QCOMPARE(fieldsShowingErrors(dialog), QStringList{u"reconnect.maxAttempts"_s});
        QVERIFY(!saveButton(dialog)->isEnabled());
        type(field(dialog, u"reconnect.maxAttempts"_s), u"5"_s);
        QVERIFY(saveButton(dialog)->isEnabled());
        const ConfigDocument fixed = parse(dialog.editedRoot());
        QVERIFY2(fixed.server(u"bad"_s)->isValid(), qPrintable(fixed.server(u"bad"_s)->errors.join(u'\n')));
        QCOMPARE(fixed.server(u"bad"_s)->reconnect.maxAttempts, 5);
    }

    // beta has its own first delay and answer time over the defaults. Defaults that are valid in
    // themselves but not under beta's own settings would make the manager stop a healthy beta:
    // Save waits, and the dialog says which server and why, until either side changes.
    void defaultsThatWouldBreakAServerAreNotSaved()
    {
        Saves saves;
        const QByteArray file = R"({"mcpServers": {
            "alpha": {"command": "alpha-server"},
            "beta": {"command": "beta-server", "reconnect": {"initialDelayMs": 20000}, "heartbeat": {"timeoutMs": 20000}}
        }})";
        SettingsDialog dialog(parse(file));
        saves.attach(dialog);
        QVERIFY(saveButton(dialog)->isEnabled());
        QVERIFY(conflicts(dialog, u"reconnect"_s)->isHidden());

        type(field(dialog, u"reconnect.maxDelayMs"_s), u"10000"_s);
        QVERIFY(fieldsShowingErrors(dialog).isEmpty()); // valid as defaults
        QVERIFY(!saveButton(dialog)->isEnabled());
        QVERIFY(!conflicts(dialog, u"reconnect"_s)->isHidden());
        QVERIFY(conflicts(dialog, u"heartbeat"_s)->isHidden());
        const QString message = conflicts(dialog, u"reconnect"_s)->text();
        QVERIFY2(message.contains(u"Server 'beta'"_s)
                     && message.contains(u"Longest delay (10 s) is less than First delay (20 s)"_s),
                 qPrintable(message));
        QVERIFY2(!message.contains(u"alpha"_s), qPrintable(message));
        QVERIFY(scopeSelector(dialog)->isEnabled()); // beta's own settings may be the ones to change
        saveButton(dialog)->click();
        QVERIFY(saves.roots.isEmpty());

        type(field(dialog, u"heartbeat.intervalMs"_s), u"15 s"_s);
        QVERIFY2(conflicts(dialog, u"heartbeat"_s)->text().contains(
                     u"Answer within (20 s) is more than Ping every (15 s)"_s),
                 qPrintable(conflicts(dialog, u"heartbeat"_s)->text()));
        type(field(dialog, u"heartbeat.intervalMs"_s), u"30000"_s);
        QVERIFY(conflicts(dialog, u"heartbeat"_s)->isHidden());
        QVERIFY(!saveButton(dialog)->isEnabled());

        // Defaults that suit beta: saved.
        type(field(dialog, u"reconnect.maxDelayMs"_s), u"20000"_s);
        QVERIFY(conflicts(dialog, u"reconnect"_s)->isHidden());
        QVERIFY(saveButton(dialog)->isEnabled());
        type(field(dialog, u"reconnect.maxDelayMs"_s), u"10000"_s);
        QVERIFY(!saveButton(dialog)->isEnabled());

        // Or beta's own longest delay, on its page, where the defaults show what they would give it.
        scopeSelector(dialog)->setCurrentIndex(2);
        QCOMPARE(fieldsShowingErrors(dialog), QStringList{u"reconnect.maxDelayMs"_s});
        type(field(dialog, u"reconnect.maxDelayMs"_s), u"40000"_s);
        QVERIFY(conflicts(dialog, u"reconnect"_s)->isHidden());
        QVERIFY(saveButton(dialog)->isEnabled());
        saveButton(dialog)->click();
        QCOMPARE(saves.roots.size(), 1);
        const ConfigDocument saved = parse(saves.roots.first());
        for (const ServerConfig &server : saved.servers)
            QVERIFY2(server.isValid(), qPrintable(server.errors.join(u'\n')));
        QCOMPARE(saved.server(u"alpha"_s)->reconnect.maxDelayMs, 10000);
        QCOMPARE(saved.server(u"beta"_s)->reconnect.initialDelayMs, 20000);
        QCOMPARE(saved.server(u"beta"_s)->reconnect.maxDelayMs, 40000);
    }

    // A server the file already gets wrong is for its own page: it does not hold the defaults back.
    void aServerWrongInTheFileDoesNotHoldBackTheDefaults()
    {
        Saves saves;
        SettingsDialog dialog(parse(QByteArray(R"({"mcpServers": {"bad": {"command": "b", "reconnect": {"maxAttempts": 0}}}})")));
        saves.attach(dialog);
        type(field(dialog, u"reconnect.maxAttempts"_s), u"5"_s);
        QVERIFY(conflicts(dialog, u"reconnect"_s)->isHidden());
        QVERIFY(saveButton(dialog)->isEnabled());
    }

    // Each field and button has its own Alt+letter, and a label's reaches its field.
    void everyFieldHasItsOwnMnemonic()
    {
        SettingsDialog dialog(parse(Sample), u"beta"_s);
        QCOMPARE(mnemonicProblems(&dialog), QStringList());
        scopeSelector(dialog)->setCurrentIndex(0); // the restore button's text changes
        QCOMPARE(mnemonicProblems(&dialog), QStringList());

        dialog.show();
        QVERIFY(QTest::qWaitForWindowActive(&dialog));
        QTest::keyClick(&dialog, Qt::Key_D, Qt::AltModifier);
        QCOMPARE(QApplication::focusWidget(), field(dialog, u"reconnect.initialDelayMs"_s));
        QTest::keyClick(&dialog, Qt::Key_W, Qt::AltModifier);
        QCOMPARE(QApplication::focusWidget(), field(dialog, u"heartbeat.maxFailures"_s));
    }

    void anUnusableFileCannotBeEdited()
    {
        Saves saves;
        const ConfigDocument document = parse(QByteArray(R"({"defaults": {"reconnect": {"jitter": 3}}})"));
        QVERIFY(!document.isValid());
        SettingsDialog dialog(document);
        saves.attach(dialog);
        QVERIFY(!saveButton(dialog)->isEnabled());
        QVERIFY(!problem(dialog)->isHidden());
        QVERIFY2(problem(dialog)->text().contains(u"defaults.reconnect.jitter = 3"_s), qPrintable(problem(dialog)->text()));
    }

    void derivedFiguresFollowTheFields()
    {
        Saves saves;
        SettingsDialog dialog(parse(QByteArray("{}")));
        saves.attach(dialog);
        QLabel *reconnect = summary(dialog, u"reconnect"_s);
        QLabel *heartbeat = summary(dialog, u"heartbeat"_s);
        QVERIFY2(reconnect->text().contains(u"Gives up after about 2 min 31 s (10 retries)"_s), qPrintable(reconnect->text()));
        QVERIFY2(reconnect->text().contains(u"Stability window 30 s"_s), qPrintable(reconnect->text()));
        QVERIFY2(heartbeat->text().contains(u"A hung server is detected within 1 min 40 s"_s), qPrintable(heartbeat->text()));

        type(field(dialog, u"reconnect.maxAttempts"_s), u"3"_s); // 0.5 + 1 + 2 s
        QVERIFY2(reconnect->text().contains(u"Gives up after about 3.5 s (3 retries)"_s), qPrintable(reconnect->text()));
        type(field(dialog, u"reconnect.maxDelayMs"_s), u"60000"_s);
        QVERIFY2(reconnect->text().contains(u"Stability window 1 min"_s), qPrintable(reconnect->text()));
        enabledBox(dialog, u"reconnect"_s)->click();
        QVERIFY2(reconnect->text().startsWith(u"Reconnect is off"_s), qPrintable(reconnect->text()));

        type(field(dialog, u"heartbeat.maxFailures"_s), u"1"_s); // 30 s + 10 s
        QVERIFY2(heartbeat->text().contains(u"detected within 40 s"_s), qPrintable(heartbeat->text()));
        enabledBox(dialog, u"heartbeat"_s)->click();
        QVERIFY2(heartbeat->text().startsWith(u"Heartbeat is off"_s), qPrintable(heartbeat->text()));
    }

    void theChartFollowsTheFields()
    {
        Saves saves;
        SettingsDialog dialog(parse(QByteArray("{}")));
        saves.attach(dialog);
        const BackoffChart *chart = backoffChart(dialog);
        QCOMPARE(chart->bars().size(), 10);
        QCOMPARE(chart->bars().at(0), (BackoffChart::Bar{1, 500ms, 400ms, 600ms}));
        QCOMPARE(chart->bars().at(5), (BackoffChart::Bar{6, 16000ms, 12800ms, 19200ms}));
        // Capped at the longest delay, jitter included.
        QCOMPARE(chart->bars().at(6), (BackoffChart::Bar{7, 30000ms, 24000ms, 30000ms}));

        type(field(dialog, u"reconnect.jitter"_s), u"0"_s);
        QCOMPARE(chart->bars().at(0), (BackoffChart::Bar{1, 500ms, 500ms, 500ms}));
        type(field(dialog, u"reconnect.initialDelayMs"_s), u"1000"_s);
        QCOMPARE(chart->bars().at(1), (BackoffChart::Bar{2, 2000ms, 2000ms, 2000ms}));
        type(field(dialog, u"reconnect.maxAttempts"_s), u"400"_s);
        QCOMPARE(chart->bars().size(), BackoffChart::MaxBars);
        QCOMPARE(chart->retriesNotDrawn(), 400 - BackoffChart::MaxBars);
        // An invalid value leaves the chart at the last valid one.
        type(field(dialog, u"reconnect.maxAttempts"_s), u"0"_s);
        QCOMPARE(chart->bars().size(), BackoffChart::MaxBars);
        type(field(dialog, u"reconnect.maxAttempts"_s), u"2"_s);
        QCOMPARE(chart->bars().size(), 2);
        enabledBox(dialog, u"reconnect"_s)->click();
        QVERIFY(chart->bars().isEmpty());
        QCOMPARE(chart->retriesNotDrawn(), 0);
    }

    // Typing a value that is refused, or defaults that would break a server, neither grows the
    // dialog nor moves a field: each message is shown beside the fields, whole (scrolled to when
    // longer than their rows), in room that was there before.
    void theDialogKeepsItsShapeWhileTyping()
    {
        const QByteArray file = R"({"mcpServers": {"beta": {"command": "b", "reconnect": {"initialDelayMs": 20000}}}})";
        SettingsDialog dialog(parse(file));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QApplication::processEvents();
        const QSize size = dialog.size();
        QMap<QString, QRect> placed;
        const QStringList paths{u"reconnect.initialDelayMs"_s, u"reconnect.maxDelayMs"_s, u"reconnect.maxAttempts"_s,
                                u"reconnect.jitter"_s, u"heartbeat.intervalMs"_s, u"heartbeat.timeoutMs"_s,
                                u"heartbeat.maxFailures"_s};
        const auto where = [&](const QWidget *widget) { return QRect(widget->mapTo(&dialog, QPoint()), widget->size()); };
        for (const QString &path : paths)
            placed.insert(path, where(field(dialog, path)));
        const QRect heartbeatSummary = where(summary(dialog, u"heartbeat"_s));
        const QRect saveAt = where(saveButton(dialog));

        type(field(dialog, u"reconnect.maxDelayMs"_s), u"100"_s);
        type(field(dialog, u"heartbeat.intervalMs"_s), u"5000"_s);
        type(field(dialog, u"heartbeat.maxFailures"_s), u"soon"_s);
        QCOMPARE(fieldsShowingErrors(dialog), (QStringList{u"reconnect.maxDelayMs"_s, u"heartbeat.timeoutMs"_s,
                                                           u"heartbeat.maxFailures"_s}));
        QApplication::processEvents();
        QCOMPARE(dialog.size(), size);
        for (const QString &path : paths)
            QCOMPARE(where(field(dialog, path)), placed.value(path));
        QCOMPARE(where(summary(dialog, u"heartbeat"_s)), heartbeatSummary);
        QCOMPARE(where(saveButton(dialog)), saveAt);
        for (const QString &path : {u"reconnect.maxDelayMs"_s, u"heartbeat.timeoutMs"_s}) {
            const QLabel *message = fieldError(dialog, path);
            QVERIFY(message->isVisible());
            QVERIFY(message->height() >= message->heightForWidth(message->width())); // whole, if scrolled to
            QVERIFY(message->x() + message->width() <= message->parentWidget()->width()); // never cut off sideways
        }
        QVERIFY(namedChild<QLabel>(dialog, u"reconnect.hint"_s)->isHidden()); // the message takes its place

        // Defaults that would break beta: a long message, in the same room.
        type(field(dialog, u"reconnect.maxDelayMs"_s), u"10 s"_s);
        QVERIFY(!conflicts(dialog, u"reconnect"_s)->isHidden());
        QApplication::processEvents();
        QCOMPARE(dialog.size(), size);
        for (const QString &path : paths)
            QCOMPARE(where(field(dialog, path)), placed.value(path));
        QCOMPARE(where(saveButton(dialog)), saveAt);
    }

    // More room given to the dialog goes to the chart, not to gaps between the fields.
    void aTallerDialogOpensNoGaps()
    {
        SettingsDialog dialog(parse(QByteArray("{}")));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QApplication::processEvents();
        const int spacing = field(dialog, u"reconnect.maxDelayMs"_s)->y() - field(dialog, u"reconnect.initialDelayMs"_s)->y();
        const int chartHeight = backoffChart(dialog)->height();
        dialog.resize(dialog.width(), dialog.height() + 300);
        QApplication::processEvents();
        QCOMPARE(field(dialog, u"reconnect.maxDelayMs"_s)->y() - field(dialog, u"reconnect.initialDelayMs"_s)->y(), spacing);
        QVERIFY2(backoffChart(dialog)->height() >= chartHeight + 250,
                 qPrintable(u"%1 -> %2"_s.arg(chartHeight).arg(backoffChart(dialog)->height())));
    }

    // Delays and times are typed as people write them, shown back the same way, and saved as
    // the milliseconds the file counts.
    void durationsAreTypedAsPeopleWriteThem()
    {
        Saves saves;
        SettingsDialog dialog(parse(QByteArray(R"({"mcpServers": {"alpha": {"command": "a"}}})")));
        saves.attach(dialog);
        QCOMPARE(field(dialog, u"reconnect.initialDelayMs"_s)->text(), u"500 ms"_s);
        QCOMPARE(field(dialog, u"reconnect.maxDelayMs"_s)->text(), u"30 s"_s);
        QCOMPARE(field(dialog, u"heartbeat.intervalMs"_s)->text(), u"30 s"_s);
        QCOMPARE(field(dialog, u"heartbeat.timeoutMs"_s)->text(), u"10 s"_s);
        QCOMPARE(field(dialog, u"reconnect.maxAttempts"_s)->text(), u"10"_s); // a count, not a duration

        dialog.show();
        QVERIFY(QTest::qWaitForWindowActive(&dialog));
        const QList<std::pair<QString, QString>> typed{{u"reconnect.initialDelayMs"_s, u"1.5 s"_s},
                                                       {u"reconnect.maxDelayMs"_s, u"90s"_s},
                                                       {u"heartbeat.intervalMs"_s, u"2min"_s},
                                                       {u"heartbeat.timeoutMs"_s, u"2500"_s}};
        for (const auto &[path, text] : typed) {
            field(dialog, path)->setFocus();
            type(field(dialog, path), text);
            QTest::keyClick(field(dialog, path), Qt::Key_Tab); // done with the field
        }
        QCOMPARE(fieldsShowingErrors(dialog), QStringList());
        QCOMPARE(field(dialog, u"reconnect.initialDelayMs"_s)->text(), u"1.5 s"_s);
        QCOMPARE(field(dialog, u"reconnect.maxDelayMs"_s)->text(), u"1 min 30 s"_s);
        QCOMPARE(field(dialog, u"heartbeat.intervalMs"_s)->text(), u"2 min"_s);
        QCOMPARE(field(dialog, u"heartbeat.timeoutMs"_s)->text(), u"2.5 s"_s);
        // The figures follow, in the same words.
        QVERIFY2(summary(dialog, u"reconnect"_s)->text().contains(u"Stability window 1 min 30 s"_s),
                 qPrintable(summary(dialog, u"reconnect"_s)->text()));

        saveButton(dialog)->click();
        QCOMPARE(saves.roots.size(), 1);
        const QJsonObject reconnect = saves.roots.first()[u"defaults"_s][u"reconnect"_s].toObject();
        const QJsonObject heartbeat = saves.roots.first()[u"defaults"_s][u"heartbeat"_s].toObject();
        QCOMPARE(reconnect.value(u"initialDelayMs"_s), QJsonValue(1500));
        QCOMPARE(reconnect.value(u"maxDelayMs"_s), QJsonValue(90000));
        QCOMPARE(heartbeat.value(u"intervalMs"_s), QJsonValue(120000));
        QCOMPARE(heartbeat.value(u"timeoutMs"_s), QJsonValue(2500));
        QVERIFY(QJsonDocument(saves.roots.first()).toJson().contains("\"maxDelayMs\": 90000"));
    }

    // A value the file holds that is no whole number of milliseconds is shown as written, with why.
    void aFileValueThatIsNoDurationIsShownAsWritten()
    {
        SettingsDialog dialog(parse(QByteArray(R"({"mcpServers": {"bad": {"command": "b", "reconnect": {"initialDelayMs": 2.5}}}})")),
                              u"bad"_s);
        QCOMPARE(field(dialog, u"reconnect.initialDelayMs"_s)->text(), u"2.5"_s);
        QCOMPARE(fieldsShowingErrors(dialog), QStringList{u"reconnect.initialDelayMs"_s});
        QVERIFY(!saveButton(dialog)->isEnabled());
    }

    // Tab alone reaches every control, each named for a screen reader; Esc closes the dialog.
    void everyControlIsReachedByTabAndNamed()
    {
        SettingsDialog dialog(parse(Sample), u"beta"_s);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowActive(&dialog));
        QList<QWidget *> reached;
        QWidget *first = QApplication::focusWidget();
        QVERIFY(first);
        for (QWidget *at = first; at && !reached.contains(at); at = QApplication::focusWidget()) {
            reached.append(at);
            QTest::keyClick(at, Qt::Key_Tab);
        }
        QStringList unnamed;
        for (const QWidget *widget : std::as_const(reached)) {
            const QAccessibleInterface *accessible = QAccessible::queryAccessibleInterface(const_cast<QWidget *>(widget));
            if (!accessible || accessible->text(QAccessible::Name).isEmpty())
                unnamed.append(widget->objectName() + u' ' + QString::fromLatin1(widget->metaObject()->className()));
        }
        QCOMPARE(unnamed, QStringList());
        QStringList missed;
        for (QWidget *widget : dialog.findChildren<QWidget *>()) {
            if (widget->isVisible() && widget->isEnabled() && (widget->focusPolicy() & Qt::TabFocus) && !reached.contains(widget)
                && !widget->focusProxy())
                missed.append(widget->objectName() + u' ' + QString::fromLatin1(widget->metaObject()->className()));
        }
        QStringList reachedNames;
        for (const QWidget *widget : std::as_const(reached))
            reachedNames.append(widget->objectName());
        QVERIFY2(missed.isEmpty(), qPrintable(missed.join(u", "_s) + u" not reached; reached: "_s + reachedNames.join(u", "_s)));
        for (const QString &path : {u"reconnect.initialDelayMs"_s, u"heartbeat.maxFailures"_s, u"useDefaults"_s, u"scope"_s})
            QVERIFY2(reached.contains(namedChild<QWidget>(dialog, path)), qPrintable(path));

        QSignalSpy rejected(&dialog, &QDialog::rejected);
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Escape);
        QCOMPARE(rejected.size(), 1);
    }

    // While a value is invalid the figures and the chart cannot follow it: they are greyed and
    // say that they show the last valid values, and follow again once it is corrected.
    void figuresSayWhenTheyShowTheLastValidValues()
    {
        SettingsDialog dialog(parse(QByteArray("{}")));
        QLabel *reconnect = summary(dialog, u"reconnect"_s);
        QLabel *heartbeat = summary(dialog, u"heartbeat"_s);
        const BackoffChart *chart = backoffChart(dialog);
        type(field(dialog, u"reconnect.maxAttempts"_s), u"3"_s);
        QVERIFY(chart->isEnabled());
        QVERIFY(reconnect->isEnabled());

        type(field(dialog, u"reconnect.maxAttempts"_s), u"0"_s);
        QVERIFY2(reconnect->text().startsWith(u"Until the marked value is corrected, these figures are for the last "
                                              "valid values"_s), qPrintable(reconnect->text()));
        QVERIFY2(reconnect->text().contains(u"Gives up after about 3.5 s (3 retries)"_s), qPrintable(reconnect->text()));
        QVERIFY(!reconnect->isEnabled());
        QVERIFY(!chart->isEnabled());
        QCOMPARE(chart->bars().size(), 3);
        QVERIFY(heartbeat->isEnabled()); // its own values are valid
        QVERIFY(!heartbeat->text().contains(u"last valid"_s));

        type(field(dialog, u"reconnect.maxAttempts"_s), u"4"_s);
        QVERIFY2(reconnect->text().startsWith(u"Gives up after about 7.5 s (4 retries)"_s), qPrintable(reconnect->text()));
        QVERIFY(reconnect->isEnabled());
        QVERIFY(chart->isEnabled());

        type(field(dialog, u"heartbeat.maxFailures"_s), u""_s);
        QVERIFY(heartbeat->text().contains(u"last valid values"_s));
        QVERIFY(!heartbeat->isEnabled());
        QVERIFY(chart->isEnabled());
    }

    // The bars are drawn in the palette's accent, whichever palette it is.
    void theChartIsDrawnInLightAndDarkPalettes()
    {
        ReconnectPolicy policy;
        policy.jitter = 0;
        for (const bool dark : {false, true}) {
            BackoffChart chart;
            QPalette palette = chart.palette();
            if (dark) {
                palette.setColor(QPalette::Window, QColor(0x20, 0x20, 0x20));
                palette.setColor(QPalette::Base, QColor(0x2b, 0x2b, 0x2b));
                palette.setColor(QPalette::Text, QColor(0xee, 0xee, 0xee));
                palette.setColor(QPalette::Highlight, QColor(0x3d, 0xae, 0xe9));
            }
            chart.setPalette(palette);
            chart.setPolicy(policy);
            chart.resize(chart.sizeHint());
            QVERIFY(chart.sizeHint().width() > chart.sizeHint().height());
            const QImage image = chart.grab().toImage();
            const QRgb accent = palette.color(QPalette::Highlight).rgb();
            const QRgb base = palette.color(QPalette::Base).rgb();
            int accentPixels = 0;
            int basePixels = 0;
            for (int y = 0; y < image.height(); ++y) {
                for (int x = 0; x < image.width(); ++x) {
                    accentPixels += image.pixel(x, y) == accent;
                    basePixels += image.pixel(x, y) == base;
                }
            }
            QVERIFY(accentPixels > 100);
            QVERIFY(basePixels > image.width() * image.height() / 3);
        }
    }
};

QTEST_MAIN(TestSettingsDialog)
#include "tst_settingsdialog.moc"
