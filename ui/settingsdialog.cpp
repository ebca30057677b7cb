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
#include <QRegularExpression>
#include <QScrollArea>
#include <QStyle>
#include <QVBoxLayout>

#include <cmath>

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

// A setting the file counts in milliseconds, as the field shows it: a duration people read, or
// what the file holds when that is not a whole number of milliseconds (its message says so).
QString durationFieldText(const QJsonValue &value)
{
    const double ms = value.toDouble(-1);
    if (value.isDouble() && ms >= 0 && ms == std::floor(ms) && ms <= double(qint64(1) << 53))
        return formatDurationExactly(milliseconds(qint64(ms)));
    return fieldText(value);
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
    , m_useDefaults(new QCheckBox(tr("Use the &global defaults"), this))
    , m_chart(new BackoffChart(this))
    , m_problem(newMessageLabel(this))
{
    m_scope->setObjectName(u"scope"_s);
    m_useDefaults->setObjectName(u"useDefaults"_s);
    m_chart->setObjectName(u"backoffChart"_s);
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

    // A server's one choice sits beside the scope it is about: hidden for the defaults
    // themselves, it moves nothing below.
    auto *scopeRow = new QHBoxLayout;
    auto *scopeLabel = new QLabel(tr("Settings &for:"), this);
    scopeLabel->setBuddy(m_scope);
    m_scope->setAccessibleName(tr("Settings for"));
    m_scope->setAccessibleDescription(tr("The global defaults, or one server's settings"));
    const QString useDefaultsHelp = tr("On: this server follows the global defaults, also as they change. Off: it has "
                                       "reconnect and heartbeat settings of its own, kept in its entry in the file.");
    m_useDefaults->setToolTip(useDefaultsHelp);
    m_useDefaults->setAccessibleName(tr("Use the global defaults"));
    m_useDefaults->setAccessibleDescription(useDefaultsHelp);
    scopeRow->addWidget(scopeLabel);
    scopeRow->addWidget(m_scope, 1);
    scopeRow->addWidget(m_useDefaults);
    connect(m_useDefaults, &QCheckBox::toggled, this, &SettingsDialog::onUseDefaultsToggled);

    // Every mnemonic of the dialog is its own, the buttons' included.
    buildSection(Reconnect, tr("Reconnect"), tr("Re&connect when the connection fails or is lost"),
                 {{u"initialDelayMs"_s, tr("First &delay:")},
                  {u"maxDelayMs"_s, tr("&Longest delay:")},
                  {u"maxAttempts"_s, tr("Retries per &outage:")},
                  {u"jitter"_s, tr("&Jitter:")}});
    buildSection(Heartbeat, tr("Heartbeat"), tr("&Ping the server to notice when it hangs"),
                 {{u"intervalMs"_s, tr("Ping &every:")},
                  {u"timeoutMs"_s, tr("&Answer within:")},
                  {u"maxFailures"_s, tr("Unanswered pings in a ro&w:")}});
    // Room the person gives the dialog goes to the chart, not to gaps between the fields.
    m_chart->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    m_sections[Reconnect].box->layout()->addWidget(m_chart);

    // Outside the box: hidden for a server, it would be the box's focus proxy and stop Tab there.
    m_restoreButton = new QPushButton(tr("&Reset to Tether's Defaults"), this);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    m_saveButton = buttons->button(QDialogButtonBox::Save);
    m_restoreButton->setAutoDefault(false);
    m_saveButton->setObjectName(u"save"_s);
    m_restoreButton->setObjectName(u"restoreDefaults"_s);
    // The platform's texts may carry mnemonics of their own.
    m_saveButton->setText(tr("&Save"));
    buttons->button(QDialogButtonBox::Cancel)->setText(tr("Cancel"));
    m_restoreButton->setToolTip(tr("Puts Tether's built-in values in every field of the global defaults"));
    connect(m_saveButton, &QPushButton::clicked, this, &SettingsDialog::save);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_restoreButton, &QPushButton::clicked, this, &SettingsDialog::restoreDefaults);
    auto *buttonRow = new QHBoxLayout;
    buttonRow->addWidget(m_restoreButton);
    buttonRow->addStretch(1);
    buttonRow->addWidget(buttons);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(scopeRow);
    layout->addWidget(m_sections[Reconnect].box, 1);
    layout->addWidget(m_sections[Heartbeat].box);
    layout->addWidget(m_problem);
    layout->addLayout(buttonRow);

    if (!document.isValid()) {
        // Nothing here can be trusted to be what the file means.
        showMessage(m_problem, tr("The config cannot be edited until it loads: %1").arg(document.errors.join(u'\n')));
        for (const Section &section : m_sections)
            section.box->setEnabled(false);
        m_scope->setEnabled(false);
        m_useDefaults->hide();
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

void SettingsDialog::buildSection(SectionId id, const QString &title, const QString &enabledText,
                                  const QList<std::pair<QString, QString>> &fields)
{
    Section &section = m_sections[id];
    section.name = id == Reconnect ? u"reconnect"_s : u"heartbeat"_s;
    section.box = new QGroupBox(title, this);
    auto *box = new QVBoxLayout(section.box);
    section.enabled = new QCheckBox(enabledText, section.box);
    section.box->setObjectName(section.name);
    section.enabled->setObjectName(section.name + u".enabled"_s);
    box->addWidget(section.enabled);

    // What is wrong is said beside the fields, in room their rows take anyway: nothing moves and
    // the dialog keeps its size while values are typed; a longer text scrolls.
    auto *messages = new QWidget;
    auto *messageColumn = new QVBoxLayout(messages);
    messageColumn->setContentsMargins(0, 0, 0, 0);
    section.hint = new QLabel(messages);
    section.hint->setObjectName(section.name + u".hint"_s);
    section.hint->setWordWrap(true);
    section.hint->setForegroundRole(QPalette::PlaceholderText);
    section.hint->setText(id == Reconnect ? tr("Write delays like 500 ms, 2 s, 1.5 s or 1 min; a number alone counts "
                                               "milliseconds. Jitter is from 0 to 1: how far a delay may be spread.")
                                          : tr("Write times like 500 ms, 2 s, 1.5 s or 1 min; a number alone counts "
                                               "milliseconds."));
    messageColumn->addWidget(section.hint);

    auto *grid = new QGridLayout;
    int row = 0;
    for (const auto &[name, labelText] : fields) {
        Field field{name, fieldName(labelText), name.endsWith(u"Ms"), new QLineEdit(section.box), newMessageLabel(messages)};
        field.edit->setObjectName(section.name + u'.' + name);
        field.error->setObjectName(field.edit->objectName() + u"Message"_s);
        field.edit->setMaximumWidth(field.edit->fontMetrics().averageCharWidth() * 16);
        field.edit->setAccessibleName(field.label);
        field.edit->setAccessibleDescription(section.hint->text());
        if (field.isDuration)
            field.edit->setPlaceholderText(tr("e.g. 2 s"));
        field.marker = field.edit->addAction(style()->standardIcon(QStyle::SP_MessageBoxWarning), QLineEdit::TrailingPosition);
        field.marker->setVisible(false);
        auto *label = new QLabel(labelText, section.box);
        label->setBuddy(field.edit);
        grid->addWidget(label, row, 0);
        grid->addWidget(field.edit, row, 1);
        messageColumn->addWidget(field.error);
        ++row;
        connect(field.edit, &QLineEdit::textEdited, this, [this, id] { onFieldEdited(id); });
        if (field.isDuration) {
            const qsizetype index = section.fields.size();
            connect(field.edit, &QLineEdit::editingFinished, this,
                    [this, id, index] { showDurationWritten(m_sections[id].fields.at(index)); });
        }
        section.fields.append(field);
    }
    section.otherErrors = newMessageLabel(messages);
    section.otherErrors->setObjectName(section.name + u"Message"_s);
    messageColumn->addWidget(section.otherErrors);
    section.conflicts = newMessageLabel(messages);
    section.conflicts->setObjectName(section.name + u".conflicts"_s);
    messageColumn->addWidget(section.conflicts);
    messageColumn->addStretch(1);

    auto *messageArea = new QScrollArea(section.box);
    messageArea->setObjectName(section.name + u".messages"_s);
    messageArea->setWidget(messages);
    messageArea->setWidgetResizable(true);
    messageArea->setFrameShape(QFrame::NoFrame);
    messageArea->setFocusPolicy(Qt::NoFocus); // its messages are the fields' accessible descriptions too
    messageArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    messageArea->viewport()->setAutoFillBackground(false);
    messages->setAutoFillBackground(false);
    // As tall as the fields' rows, whatever it holds.
    messageArea->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Ignored);
    messageArea->setMinimumWidth(fontMetrics().averageCharWidth() * 36);
    grid->addWidget(messageArea, 0, 2, row, 1);
    grid->setColumnStretch(2, 1);
    box->addLayout(grid);

    section.summary = new QLabel(section.box);
    section.summary->setObjectName(section.name + u".summary"_s);
    section.summary->setWordWrap(true);
    section.summary->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    // Room for its longest text, the note that the figures are not the typed ones included, so
    // that it never moves what is below it.
    section.summary->setFixedHeight(fontMetrics().lineSpacing() * (id == Reconnect ? 4 : 3));
    box->addWidget(section.summary);

    connect(section.enabled, &QCheckBox::toggled, this, [this, id] { onFieldEdited(id); });
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
    const Scope &scope = m_scopes.at(index);
    m_loading = true;
    m_useDefaults->setVisible(!scope.server.isEmpty());
    m_useDefaults->setChecked(!scope.server.isEmpty() && !scope.own[Reconnect] && !scope.own[Heartbeat]);
    m_loading = false;
    // A server goes back to the defaults with its check box; this is for the defaults themselves.
    m_restoreButton->setVisible(scope.server.isEmpty());
    showSection(Reconnect);
    showSection(Heartbeat);
    updateButtons();
}

void SettingsDialog::showSection(SectionId id)
{
    Section &section = m_sections[id];
    const Scope &scope = m_scopes.at(m_current);
    const bool editable = scope.server.isEmpty() || !m_useDefaults->isChecked();
    // A server's own settings as written, so that a value the file gets wrong is shown with its message.
    QJsonObject shown = effective(scope, id);
    if (scope.own[id]) {
        for (auto it = scope.own[id]->constBegin(); it != scope.own[id]->constEnd(); ++it) {
            if (shown.contains(it.key()))
                shown.insert(it.key(), it.value());
        }
    }

    m_loading = true;
    section.enabled->setChecked(shown.value(u"enabled"_s).toBool(true));
    section.enabled->setEnabled(editable);
    for (const Field &field : section.fields) {
        const QJsonValue value = shown.value(field.name);
        field.edit->setText(field.isDuration ? durationFieldText(value) : fieldText(value));
        field.edit->setEnabled(editable);
    }
    m_loading = false;

    if (!scope.own[id]) {
        // What the defaults give is valid as it is.
        for (const Field &field : section.fields)
            showFieldMessage(id, field, {});
        showMessage(section.otherErrors, {});
        section.invalid = false;
    } else {
        judgeFields(id);
    }
    updateFigures(id);
}

void SettingsDialog::showFieldMessage(SectionId id, const Field &field, const QString &text)
{
    showMessage(field.error, text);
    field.marker->setVisible(!text.isEmpty());
    field.marker->setToolTip(plainToolTip(text));
    field.edit->setToolTip(plainToolTip(text));
    // A screen reader says what is wrong with the field it is on, or else how to write it.
    field.edit->setAccessibleDescription(text.isEmpty() ? m_sections[id].hint->text() : text);
}

void SettingsDialog::showDurationWritten(const Field &field)
{
    QString error;
    if (const std::optional<milliseconds> duration = parseDuration(field.edit->text(), &error)) {
        const QString written = formatDurationExactly(*duration);
        if (written != field.edit->text())
            field.edit->setText(written); // no edit: the value stays the same
    }
}

SettingsDialog::Judgement SettingsDialog::judgeFields(SectionId id)
{
    Section &section = m_sections[id];
    QJsonObject input{{u"enabled"_s, section.enabled->isChecked()}};
    QHash<QString, QString> unreadable; // a duration that cannot be read, and why
    for (const Field &field : std::as_const(section.fields)) {
        if (!field.isDuration) {
            input.insert(field.name, typedValue(field.edit->text()));
            continue;
        }
        QString error;
        if (const std::optional<milliseconds> duration = parseDuration(field.edit->text(), &error)) {
            input.insert(field.name, double(duration->count()));
        } else {
            // As text, so that the resolver refuses it too and judges no rule across it.
            input.insert(field.name, field.edit->text().trimmed());
            unreadable.insert(field.name, tr("%1: %2").arg(field.label, error));
        }
    }
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
        const QString text = unreadable.contains(field.name) ? unreadable.value(field.name)
                                                              : inSectionWords(id, byField.value(field.name).join(u'\n'));
        showFieldMessage(id, field, text);
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
    QString words = inFormWords(message, labels);
    // The judges count milliseconds, as the file does; the fields show durations, and so do their messages.
    static const QRegularExpression range(u"it must be a whole number from (\\d+) to (\\d+)"_s);
    const auto asDuration = [](const QString &ms) { return formatDurationExactly(milliseconds(ms.toLongLong())); };
    for (const Field &field : section.fields) {
        if (!field.isDuration)
            continue;
        const QRegularExpression value(QRegularExpression::escape(field.label) + u" \\((\\d+)\\)"_s);
        for (QRegularExpressionMatch match = value.match(words); match.hasMatch();
             match = value.match(words, match.capturedStart() + 1))
            words.replace(match.capturedStart(1), match.capturedLength(1), asDuration(match.captured(1)));
        if (words.startsWith(field.label + u" ("_s)) {
            if (const QRegularExpressionMatch match = range.match(words); match.hasMatch())
                words.replace(match.capturedStart(), match.capturedLength(),
                              tr("it must be from %1 to %2").arg(asDuration(match.captured(1)), asDuration(match.captured(2))));
        }
    }
    return words;
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

void SettingsDialog::onUseDefaultsToggled(bool useDefaults)
{
    if (m_loading)
        return;
    Scope &scope = currentScope();
    // Leaving the defaults starts from what they give now: the server's own policy, written whole.
    if (useDefaults)
        scope.own = {std::nullopt, std::nullopt};
    else
        scope.own = {effective(scope, Reconnect), effective(scope, Heartbeat)};
    showScope(m_current);
}

void SettingsDialog::restoreDefaults()
{
    Scope &scope = currentScope();
    if (!scope.server.isEmpty())
        return; // a server goes back to the defaults with its check box
    scope.own = {toJson(ReconnectPolicy{}), toJson(HeartbeatPolicy{})};
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
    section.summary->setText(section.invalid ? tr("Until the marked value is corrected, these figures are for the "
                                                  "last valid values:\n%1").arg(figures)
                                             : figures);
    section.summary->setToolTip(section.summary->text());
}

std::array<QStringList, SettingsDialog::SectionCount> SettingsDialog::serversBrokenByDefaults() const
{
    std::array<QStringList, SectionCount> messages;
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
            messages[id].append(tr("Server '%1' has its own %2 settings, and with these defaults they are not valid: %3. "
                                   "Change the defaults, or that server's own settings (Settings for: Server: %1); "
                                   "saved like this, Tether would stop the server.")
                                    .arg(scope.server, m_sections[id].name, reasons.join(u"; "_s)));
        }
    }
    return messages;
}

void SettingsDialog::updateHints()
{
    for (const Section &section : m_sections) {
        const bool anyMessage = !section.otherErrors->isHidden() || !section.conflicts->isHidden()
                                || std::any_of(section.fields.cbegin(), section.fields.cend(),
                                               [](const Field &field) { return !field.error->isHidden(); });
        section.hint->setVisible(!anyMessage);
    }
}

void SettingsDialog::updateButtons()
{
    const bool invalid = std::any_of(m_sections.cbegin(), m_sections.cend(), [](const Section &s) { return s.invalid; });
    const std::array<QStringList, SectionCount> broken = serversBrokenByDefaults();
    for (const SectionId id : {Reconnect, Heartbeat})
        showMessage(m_sections[id].conflicts, broken[id].join(u'\n'));
    updateHints();
    const bool breaksAServer = std::any_of(broken.cbegin(), broken.cend(), [](const QStringList &list) { return !list.isEmpty(); });
    m_saveButton->setEnabled(!invalid && !breaksAServer);
    // Another scope's values are shown only once these are right: nothing invalid is hidden away.
    m_scope->setEnabled(!invalid);
    m_scope->setToolTip(invalid ? tr("Correct the marked values first") : QString());
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
    growToFit(this);
}

} // namespace Tether
