#include "settingsdialog.h"

#include "backoffchart.h"
#include "fieldmessage.h"
#include "messagelabel.h"

#include "common/duration.h"
#include "common/jsontext.h"
#include "config/configedit.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
using namespace std::chrono;

namespace Tether {

namespace {

// How the config file calls the global scope, in the resolvers' messages too.
const QString DefaultsName = u"defaults"_s;

ReconnectPolicy reconnectPolicy(const QJsonObject &json)
{
    return resolveReconnectPolicy(DefaultsName, json).policy;
}

HeartbeatPolicy heartbeatPolicy(const QJsonObject &json)
{
    return resolveHeartbeatPolicy(DefaultsName, json).policy;
}

// What was typed, as the config would hold it: a number when it reads as one, else the text, so
// that the resolver is the one that refuses it.
QJsonValue typedValue(const QString &text)
{
    bool isNumber = false;
    const double number = text.trimmed().toDouble(&isNumber);
    return isNumber ? QJsonValue(number) : QJsonValue(text.trimmed());
}

// Worst case: the server hangs right after answering a ping; each of the next maxFailures
// pings, one per interval, goes unanswered, and the last one's timeout ends the connection.
milliseconds hungServerDetectionTime(const HeartbeatPolicy &policy)
{
    return milliseconds(qint64(policy.maxFailures) * policy.intervalMs + policy.timeoutMs);
}

} // namespace

SettingsDialog::SettingsDialog(const ConfigDocument &document, const QString &initialServer, QWidget *parent)
    : QDialog(parent)
    , m_document(document)
    , m_scope(new QComboBox(this))
    , m_chart(new BackoffChart(this))
    , m_conflicts(newMessageLabel(this))
    , m_problem(newMessageLabel(this))
{
    m_scope->setObjectName(u"scope"_s);
    m_chart->setObjectName(u"backoffChart"_s);
    m_conflicts->setObjectName(u"conflicts"_s);
    m_problem->setObjectName(u"problem"_s);
    setWindowTitle(tr("Reconnect and heartbeat settings"));

    Scope global;
    const QJsonObject defaults = document.root.value(u"defaults"_s).toObject();
    global.own = {defaults.value(u"reconnect"_s).toObject(), defaults.value(u"heartbeat"_s).toObject()};
    global.initial = global.own;
    m_scopes.append(global);
    m_scope->addItem(tr("Global defaults"));
    for (const ServerConfig &server : document.servers) {
        Scope scope;
        scope.server = server.name;
        scope.own = {serverPolicyOverride(server.source, u"reconnect"_s), serverPolicyOverride(server.source, u"heartbeat"_s)};
        scope.initial = scope.own;
        m_scopes.append(scope);
        m_scope->addItem(tr("Server: %1").arg(server.name));
    }

    auto *scopeRow = new QHBoxLayout;
    auto *scopeLabel = new QLabel(tr("Settings &for:"), this);
    scopeLabel->setBuddy(m_scope);
    scopeRow->addWidget(scopeLabel);
    scopeRow->addWidget(m_scope, 1);

    // Every mnemonic of the dialog is its own, the buttons' included.
    buildSection(Reconnect, tr("Reconnect"), tr("Use the &global defaults"), tr("Re&connect when the connection fails or is lost"),
                 {{u"initialDelayMs"_s, tr("First &delay:")},
                  {u"maxDelayMs"_s, tr("&Longest delay:")},
                  {u"maxAttempts"_s, tr("Retries per &outage:")},
                  {u"jitter"_s, tr("&Jitter:")}});
    buildSection(Heartbeat, tr("Heartbeat"), tr("Use the glo&bal defaults"), tr("&Ping the server to notice when it hangs"),
                 {{u"intervalMs"_s, tr("Ping &every:")},
                  {u"timeoutMs"_s, tr("&Answer within:")},
                  {u"maxFailures"_s, tr("Unanswered pings in a ro&w:")}});
    m_sections[Reconnect].box->layout()->addWidget(m_chart);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel
                                             | QDialogButtonBox::RestoreDefaults, this);
    m_saveButton = buttons->button(QDialogButtonBox::Save);
    m_restoreButton = buttons->button(QDialogButtonBox::RestoreDefaults);
    m_saveButton->setObjectName(u"save"_s);
    m_restoreButton->setObjectName(u"restoreDefaults"_s);
    // The platform's texts may carry mnemonics of their own.
    m_saveButton->setText(tr("&Save"));
    buttons->button(QDialogButtonBox::Cancel)->setText(tr("Cancel"));
    m_restoreButton->setToolTip(tr("Global defaults: Tether's built-in values. A server: use the global defaults."));
    connect(m_saveButton, &QPushButton::clicked, this, &SettingsDialog::save);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_restoreButton, &QPushButton::clicked, this, &SettingsDialog::restoreDefaults);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(scopeRow);
    layout->addWidget(m_sections[Reconnect].box);
    layout->addWidget(m_sections[Heartbeat].box);
    layout->addWidget(m_conflicts);
    layout->addWidget(m_problem);
    layout->addWidget(buttons);

    if (!document.isValid()) {
        // Nothing here can be trusted to be what the file means.
        showMessage(m_problem, tr("The config cannot be edited until it loads: %1").arg(document.errors.join(u'\n')));
        for (const Section &section : m_sections)
            section.box->setEnabled(false);
        m_scope->setEnabled(false);
        m_restoreButton->setEnabled(false);
        m_saveButton->setEnabled(false);
        return;
    }
    const auto initial = std::find_if(m_scopes.cbegin() + 1, m_scopes.cend(),
                                      [&](const Scope &scope) { return scope.server == initialServer; });
    const int index = initial == m_scopes.cend() ? 0 : int(initial - m_scopes.cbegin());
    m_scope->setCurrentIndex(index);
    showScope(index);
    connect(m_scope, &QComboBox::currentIndexChanged, this, &SettingsDialog::showScope);
}

void SettingsDialog::buildSection(SectionId id, const QString &title, const QString &useDefaultsText,
                                  const QString &enabledText, const QList<std::pair<QString, QString>> &fields)
{
    Section &section = m_sections[id];
    section.name = id == Reconnect ? u"reconnect"_s : u"heartbeat"_s;
    section.box = new QGroupBox(title, this);
    auto *box = new QVBoxLayout(section.box);
    section.useDefaults = new QCheckBox(useDefaultsText, section.box);
    section.enabled = new QCheckBox(enabledText, section.box);
    section.box->setObjectName(section.name);
    section.useDefaults->setObjectName(section.name + u".useDefaults"_s);
    section.enabled->setObjectName(section.name + u".enabled"_s);
    box->addWidget(section.useDefaults);
    box->addWidget(section.enabled);

    auto *grid = new QGridLayout;
    grid->setColumnStretch(3, 1);
    int row = 0;
    for (const auto &[name, labelText] : fields) {
        Field field{name, fieldName(labelText), new QLineEdit(section.box), newMessageLabel(section.box)};
        field.edit->setObjectName(section.name + u'.' + name);
        field.error->setObjectName(field.edit->objectName() + u"Message"_s);
        field.edit->setMaximumWidth(field.edit->fontMetrics().averageCharWidth() * 14);
        auto *label = new QLabel(labelText, section.box);
        label->setBuddy(field.edit);
        const QString unit = name.endsWith(u"Ms") ? tr("ms") : name == u"jitter" ? tr("(0 to 1: how far a delay may be spread)")
                                                                                   : QString();
        grid->addWidget(label, row, 0);
        grid->addWidget(field.edit, row, 1);
        grid->addWidget(new QLabel(unit, section.box), row, 2);
        grid->addWidget(field.error, row + 1, 1, 1, 3);
        row += 2;
        connect(field.edit, &QLineEdit::textEdited, this, [this, id] { onFieldEdited(id); });
        section.fields.append(field);
    }
    box->addLayout(grid);
    section.otherErrors = newMessageLabel(section.box);
    section.otherErrors->setObjectName(section.name + u"Message"_s);
    box->addWidget(section.otherErrors);
    section.summary = new QLabel(section.box);
    section.summary->setObjectName(section.name + u".summary"_s);
    section.summary->setWordWrap(true);
    box->addWidget(section.summary);

    connect(section.enabled, &QCheckBox::toggled, this, [this, id] { onFieldEdited(id); });
    connect(section.useDefaults, &QCheckBox::toggled, this,
            [this, id](bool useDefaults) { onUseDefaultsToggled(id, useDefaults); });
}

QString SettingsDialog::who(const Scope &scope)
{
    return scope.server.isEmpty() ? DefaultsName : scope.server;
}

SettingsDialog::Judgement SettingsDialog::judge(SectionId id, const QString &who, const QJsonObject &input,
                                                const QJsonObject &base)
{
    if (id == Reconnect) {
        const auto resolution = resolveReconnectPolicy(who, input, reconnectPolicy(base));
        return {toJson(resolution.policy), resolution.errors};
    }
    const auto resolution = resolveHeartbeatPolicy(who, input, heartbeatPolicy(base));
    return {toJson(resolution.policy), resolution.errors};
}

QJsonObject SettingsDialog::resolve(const Scope &scope, SectionId id, const std::optional<QJsonObject> &own) const
{
    const QJsonObject base = scope.server.isEmpty() ? QJsonObject() : effective(m_scopes.first(), id);
    return judge(id, who(scope), own.value_or(QJsonObject()), base).policy;
}

void SettingsDialog::showScope(int index)
{
    if (index < 0 || index >= m_scopes.size())
        return;
    m_current = index;
    showSection(Reconnect);
    showSection(Heartbeat);
    m_restoreButton->setText(index == 0 ? tr("&Restore Defaults") : tr("&Use Global Defaults"));
    updateButtons();
}

void SettingsDialog::showSection(SectionId id)
{
    Section &section = m_sections[id];
    const Scope &scope = m_scopes.at(m_current);
    const bool usesDefaults = !scope.own[id].has_value();
    // A server's own settings as written, so that a value the file gets wrong is shown with its message.
    QJsonObject shown = effective(scope, id);
    if (scope.own[id]) {
        for (auto it = scope.own[id]->constBegin(); it != scope.own[id]->constEnd(); ++it) {
            if (shown.contains(it.key()))
                shown.insert(it.key(), it.value());
        }
    }

    m_loading = true;
    section.useDefaults->setVisible(!scope.server.isEmpty());
    section.useDefaults->setChecked(usesDefaults);
    section.enabled->setChecked(shown.value(u"enabled"_s).toBool(true));
    section.enabled->setEnabled(!usesDefaults);
    for (const Field &field : section.fields) {
        field.edit->setText(fieldText(shown.value(field.name)));
        field.edit->setEnabled(!usesDefaults);
    }
    m_loading = false;

    if (usesDefaults) {
        for (const Field &field : section.fields)
            showMessage(field.error, {});
        showMessage(section.otherErrors, {});
        section.invalid = false;
    } else {
        judgeFields(id);
    }
    updateFigures(id);
}

SettingsDialog::Judgement SettingsDialog::judgeFields(SectionId id)
{
    Section &section = m_sections[id];
    QJsonObject input{{u"enabled"_s, section.enabled->isChecked()}};
    for (const Field &field : std::as_const(section.fields))
        input.insert(field.name, typedValue(field.edit->text()));
    const QString scopeName = who(m_scopes.at(m_current));
    Judgement judgement = judge(id, scopeName, input, {});

    // Each message goes to the field it names first (a cross-field rule names the one to change).
    QHash<QString, QStringList> byField;
    QStringList other;
    const QString prefix = u"server '%1': "_s.arg(scopeName);
    for (const QString &error : std::as_const(judgement.errors)) {
        const QString text = error.startsWith(prefix) ? error.mid(prefix.size()) : error;
        qsizetype first = -1;
        QString named;
        for (const Field &field : std::as_const(section.fields)) {
            const qsizetype at = text.indexOf(section.name + u'.' + field.name + u" ="_s);
            if (at >= 0 && (first < 0 || at < first)) {
                first = at;
                named = field.name;
            }
        }
        if (named.isEmpty())
            other.append(text);
        else
            byField[named].append(text);
    }
    for (const Field &field : std::as_const(section.fields)) {
        const QString text = inSectionWords(id, byField.value(field.name).join(u'\n'));
        showMessage(field.error, text);
        field.edit->setToolTip(plainToolTip(text));
    }
    showMessage(section.otherErrors, inSectionWords(id, other.join(u'\n')));
    section.invalid = !judgement.errors.isEmpty();
    return judgement;
}

QString SettingsDialog::inSectionWords(SectionId id, const QString &message) const
{
    const Section &section = m_sections[id];
    QList<FieldLabel> labels;
    for (const Field &field : section.fields)
        labels.append({section.name + u'.' + field.name, field.label});
    return inFormWords(message, labels);
}

void SettingsDialog::onFieldEdited(SectionId id)
{
    if (m_loading)
        return;
    const Judgement judgement = judgeFields(id);
    if (judgement.errors.isEmpty())
        currentScope().own[id] = judgement.policy;
    updateFigures(id);
    updateButtons();
}

void SettingsDialog::onUseDefaultsToggled(SectionId id, bool useDefaults)
{
    if (m_loading)
        return;
    Scope &scope = currentScope();
    // Leaving the defaults starts from what they give now: the server's own policy, written whole.
    scope.own[id] = useDefaults ? std::nullopt : std::optional<QJsonObject>(effective(scope, id));
    showSection(id);
    updateButtons();
}

void SettingsDialog::restoreDefaults()
{
    Scope &scope = currentScope();
    if (scope.server.isEmpty())
        scope.own = {toJson(ReconnectPolicy{}), toJson(HeartbeatPolicy{})};
    else
        scope.own = {std::nullopt, std::nullopt};
    showScope(m_current);
}

void SettingsDialog::updateFigures(SectionId id)
{
    const QJsonObject policy = effective(m_scopes.at(m_current), id);
    const Section &section = m_sections[id];
    QString figures;
    if (id == Reconnect) {
        const ReconnectPolicy reconnect = reconnectPolicy(policy);
        m_chart->setPolicy(reconnect);
        m_chart->setEnabled(!section.invalid);
        figures = reconnect.enabled
            ? tr("Gives up after about %1 (%2 retries).\nStability window %3: a connection that stays up this long "
                 "ends the outage, and the next one starts with all %2 retries.")
                  .arg(formatDuration(reconnect.totalRetryTime()))
                  .arg(reconnect.maxAttempts)
                  .arg(formatDuration(reconnect.stabilityWindow()))
            : tr("Reconnect is off: a server whose connection fails or is lost stays Disconnected until you "
                 "reconnect it.");
    } else {
        const HeartbeatPolicy heartbeat = heartbeatPolicy(policy);
        figures = heartbeat.enabled
            ? tr("A hung server is detected within %1 (%2 unanswered pings, one every %3, each given %4).")
                  .arg(formatDuration(hungServerDetectionTime(heartbeat)))
                  .arg(heartbeat.maxFailures)
                  .arg(formatDuration(milliseconds(heartbeat.intervalMs)),
                       formatDuration(milliseconds(heartbeat.timeoutMs)))
            : tr("Heartbeat is off: a server that hangs without exiting is not noticed.");
    }
    // Greyed, and said in words: figures that do not follow what is typed must not pass for its result.
    section.summary->setEnabled(!section.invalid);
    section.summary->setText(section.invalid ? tr("Until the value marked in red is corrected, these figures are "
                                                  "for the last valid values:\n%1").arg(figures)
                                             : figures);
}

QStringList SettingsDialog::serversBrokenByDefaults() const
{
    QStringList messages;
    const Scope &global = m_scopes.first();
    for (const Scope &scope : m_scopes.sliced(1)) {
        for (const SectionId id : {Reconnect, Heartbeat}) {
            if (!scope.own[id])
                continue; // it takes the defaults whole, and they are judged as they are typed
            const QStringList errors = judge(id, who(scope), *scope.own[id], effective(global, id)).errors;
            // What the file already gets wrong is shown on the server's own page, not blamed on the defaults.
            if (errors.isEmpty() || !judge(id, who(scope), *scope.own[id], resolve(global, id, global.initial[id])).errors.isEmpty())
                continue;
            const QString prefix = u"server '%1': "_s.arg(scope.server);
            QStringList reasons;
            for (const QString &error : errors)
                reasons.append(inSectionWords(id, error.startsWith(prefix) ? error.sliced(prefix.size()) : error));
            messages.append(tr("Server '%1' has its own %2 settings, and with these defaults they are not valid: %3. "
                               "Change the defaults, or that server's own settings (Settings for: Server: %1); "
                               "saved like this, Tether would stop the server.")
                                .arg(scope.server, m_sections[id].name, reasons.join(u"; "_s)));
        }
    }
    return messages;
}

void SettingsDialog::updateButtons()
{
    const bool invalid = std::any_of(m_sections.cbegin(), m_sections.cend(), [](const Section &s) { return s.invalid; });
    const QStringList broken = serversBrokenByDefaults();
    showMessage(m_conflicts, broken.join(u'\n'));
    growToFit(this);
    m_saveButton->setEnabled(!invalid && broken.isEmpty());
    // Another scope's values are shown only once these are right: nothing invalid is hidden away.
    m_scope->setEnabled(!invalid);
    m_scope->setToolTip(invalid ? tr("Correct the values marked in red first") : QString());
}

QJsonObject SettingsDialog::editedRoot() const
{
    QJsonObject root = m_document.root;
    const QString &key = m_document.serversKey;
    const Scope &global = m_scopes.first();
    if (effective(global, Reconnect) != resolve(global, Reconnect, global.initial[Reconnect]))
        root = setDefaultReconnectPolicy(root, reconnectPolicy(effective(global, Reconnect)));
    if (effective(global, Heartbeat) != resolve(global, Heartbeat, global.initial[Heartbeat]))
        root = setDefaultHeartbeatPolicy(root, heartbeatPolicy(effective(global, Heartbeat)));
    for (const Scope &scope : m_scopes.sliced(1)) {
        for (const SectionId id : {Reconnect, Heartbeat}) {
            const std::optional<QJsonObject> &own = scope.own[id];
            const std::optional<QJsonObject> &initial = scope.initial[id];
            if (!own && initial) {
                root = id == Reconnect ? clearServerReconnectPolicy(root, key, scope.server)
                                       : clearServerHeartbeatPolicy(root, key, scope.server);
            } else if (own && (!initial || effective(scope, id) != resolve(scope, id, initial))) {
                root = id == Reconnect ? setServerReconnectPolicy(root, key, scope.server, reconnectPolicy(effective(scope, id)))
                                       : setServerHeartbeatPolicy(root, key, scope.server, heartbeatPolicy(effective(scope, id)));
            }
        }
    }
    return root;
}

void SettingsDialog::save()
{
    const QJsonObject root = editedRoot();
    QString error;
    // Nothing changed: the file stays exactly as written.
    if (!m_save || root == m_document.root || m_save(root, &error)) {
        accept();
        return;
    }
    showMessage(m_problem, tr("Not saved: %1").arg(error));
}

} // namespace Tether
