#include "serverdialog.h"

#include "config/configedit.h"
#include "config/configparser.h"
#include "messagelabel.h"
#include "namevalueeditor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Tether {

ServerDialog::ServerDialog(const ConfigDocument &document, const QString &editedServer, const ConfigContext &context,
                           QWidget *parent)
    : QDialog(parent)
    , m_document(document)
    , m_editedServer(editedServer)
    , m_context(context)
    , m_serversKey(document.serversKey.isEmpty() ? u"mcpServers"_s : document.serversKey)
    , m_existingNames(document.root.value(m_serversKey).toObject().keys())
    , m_form(new QFormLayout)
    , m_name(new QLineEdit(this))
    , m_transport(new QComboBox(this))
    , m_command(new QLineEdit(this))
    , m_arguments(new QLineEdit(this))
    , m_environment(new NameValueEditor(tr("NAME"), tr("value"), this))
    , m_workingDirectory(new QLineEdit(this))
    , m_url(new QLineEdit(this))
    , m_headers(new NameValueEditor(tr("Header"), tr("value"), this))
    , m_timeout(new QLineEdit(this))
    , m_enabled(new QCheckBox(tr("Enabled: &start the server with Tether"), this))
    , m_messageText(newMessageLabel(this))
    , m_hint(new QLabel(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setWindowTitle(editedServer.isEmpty() ? tr("Add server") : tr("Edit server %1").arg(editedServer));
    setMinimumWidth(560);

    // Object names let tests and style sheets find the fields.
    m_name->setObjectName(u"name"_s);
    m_transport->setObjectName(u"transport"_s);
    m_command->setObjectName(u"command"_s);
    m_arguments->setObjectName(u"arguments"_s);
    m_environment->setObjectName(u"environment"_s);
    m_workingDirectory->setObjectName(u"workingDirectory"_s);
    m_url->setObjectName(u"url"_s);
    m_headers->setObjectName(u"headers"_s);
    m_timeout->setObjectName(u"timeout"_s);
    m_enabled->setObjectName(u"enabled"_s);
    m_messageText->setObjectName(u"messages"_s);
    m_hint->setObjectName(u"hint"_s);

    m_name->setPlaceholderText(tr("how Tether and its tools refer to the server"));
    m_transport->addItem(tr("stdio: a program Tether starts"), transportName(TransportKind::Stdio));
    m_transport->addItem(tr("HTTP: Streamable HTTP"), transportName(TransportKind::StreamableHttp));
    m_transport->addItem(tr("SSE: HTTP with server-sent events (older servers)"), transportName(TransportKind::Sse));
    m_command->setPlaceholderText(tr("the program to start, such as npx"));
    m_arguments->setPlaceholderText(tr("as in a shell, such as -y @modelcontextprotocol/server-everything"));
    m_arguments->setToolTip(tr("Split into words as a shell would: quote a word that holds blanks. Nothing is "
                               "expanded except ${env:NAME}, and nothing runs through a shell."));
    m_environment->setToolTip(tr("Added to Tether's own environment. A value may use ${env:NAME}."));
    m_workingDirectory->setPlaceholderText(tr("Tether's own folder"));
    // Its label leads to it from outside the row's box, where screen readers do not look.
    m_workingDirectory->setAccessibleName(tr("Working directory"));
    m_url->setPlaceholderText(tr("https://example.com/mcp"));
    m_headers->setToolTip(tr("Sent with every request. A value may use ${env:NAME}, such as Bearer ${env:TOKEN}."));
    m_hint->setWordWrap(true);
    m_hint->hide();

    auto *browse = new QPushButton(tr("B&rowse…"), this);
    browse->setObjectName(u"browseWorkingDirectory"_s);
    connect(browse, &QPushButton::clicked, this, &ServerDialog::browseWorkingDirectory);
    auto *workingDirectory = new QWidget(this);
    auto *workingDirectoryLayout = new QHBoxLayout(workingDirectory);
    workingDirectoryLayout->setContentsMargins(0, 0, 0, 0);
    workingDirectoryLayout->addWidget(m_workingDirectory);
    workingDirectoryLayout->addWidget(browse);

    addRow(tr("&Name:"), m_name, Field::Name);
    addRow(tr("&Transport:"), m_transport, Field::Transport);
    m_stdioRows = {m_command, m_arguments, m_environment, workingDirectory};
    addRow(tr("&Command:"), m_command, Field::Command);
    addRow(tr("&Arguments:"), m_arguments, Field::Arguments);
    addRow(tr("&Environment:"), m_environment, Field::Environment);
    addRow(tr("&Working directory:"), m_workingDirectory, Field::WorkingDirectory, workingDirectory);
    m_remoteRows = {m_url, m_headers};
    addRow(tr("&URL:"), m_url, Field::Url);
    addRow(tr("&Headers:"), m_headers, Field::Headers);
    addRow(tr("Request t&imeout (ms):"), m_timeout, Field::Timeout);
    m_form->addRow(QString(), m_enabled);
    m_labels.insert(Field::Enabled, tr("Enabled"));
    // Mnemonics of their own, so that none clashes with the platform's.
    m_buttons->button(QDialogButtonBox::Ok)->setText(editedServer.isEmpty() ? tr("A&dd") : tr("&OK"));
    m_buttons->button(QDialogButtonBox::Cancel)->setText(tr("Cancel"));

    // A fixed height for messages, whichever there are: the fields above stay where they are.
    auto *messages = new QWidget(this);
    auto *messagesLayout = new QVBoxLayout(messages);
    messagesLayout->setContentsMargins(0, 0, 0, 0);
    messagesLayout->addWidget(m_messageText);
    messagesLayout->addWidget(m_hint);
    messagesLayout->addStretch();
    auto *messageArea = new QScrollArea(this);
    messageArea->setObjectName(u"messageArea"_s);
    messageArea->setAccessibleName(tr("What is wrong with the entry"));
    messageArea->setWidget(messages);
    messageArea->setWidgetResizable(true);
    messageArea->setFrameShape(QFrame::NoFrame);
    messageArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    messageArea->setFixedHeight(fontMetrics().lineSpacing() * 5);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(m_form);
    layout->addWidget(messageArea);
    layout->addStretch();
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    if (const ServerConfig *server = document.server(editedServer)) {
        load(*server);
    } else {
        m_enabled->setChecked(true);
        m_untouched = {Field::Name, Field::Command, Field::Arguments, Field::Environment, Field::WorkingDirectory,
                       Field::Url, Field::Headers, Field::Timeout};
    }
    showTransportFields();

    const QList<std::pair<QLineEdit *, Field>> edits{{m_name, Field::Name}, {m_command, Field::Command},
                                                     {m_arguments, Field::Arguments}, {m_workingDirectory, Field::WorkingDirectory},
                                                     {m_url, Field::Url}, {m_timeout, Field::Timeout}};
    for (const auto &[edit, field] : edits) {
        connect(edit, &QLineEdit::textChanged, this, [this, field] {
            m_untouched.remove(field);
            validate();
        });
    }
    for (const auto &[editor, field] : {std::pair{m_environment, Field::Environment}, std::pair{m_headers, Field::Headers}}) {
        connect(editor, &NameValueEditor::changed, this, [this, field] {
            m_untouched.remove(field);
            validate();
        });
    }
    connect(m_enabled, &QCheckBox::toggled, this, &ServerDialog::validate);
    connect(m_transport, &QComboBox::currentIndexChanged, this, [this] {
        showTransportFields();
        validate();
    });
    validate();
}

QString ServerDialog::serverName() const
{
    return m_name->text().trimmed();
}

void ServerDialog::addRow(const QString &labelText, QWidget *field, Field which, QWidget *row)
{
    auto *label = new QLabel(labelText, this);
    label->setBuddy(field); // the field itself: the row around it takes no focus
    m_form->addRow(label, row ? row : field);
    m_labels.insert(which, fieldName(labelText).remove(u" (ms)"_s));
}

QList<FieldLabel> ServerDialog::fieldLabels() const
{
    // The paths the config's messages name, to the labels of the form.
    const QString server = memberPath(m_serversKey, serverName());
    const QList<std::tuple<QString, Field, QString>> keys{
        {u"type"_s, Field::Transport, QString()},       {u"command"_s, Field::Command, QString()},
        {u"args"_s, Field::Arguments, tr("Argument")},  {u"env"_s, Field::Environment, tr("Environment variable")},
        {u"cwd"_s, Field::WorkingDirectory, QString()}, {u"url"_s, Field::Url, QString()},
        {u"headers"_s, Field::Headers, tr("Header")},   {u"timeoutMs"_s, Field::Timeout, QString()},
        {u"enabled"_s, Field::Enabled, QString()}};
    // The policies, which the form does not show, are judged with paths of their own.
    QList<FieldLabel> labels{{server, tr("The server")},
                             {u"reconnect"_s, {}, tr("Reconnect setting")},
                             {u"heartbeat"_s, {}, tr("Heartbeat setting")},
                             {server + u".pool"_s, {}, tr("Pool setting")}};
    for (const auto &[key, field, item] : keys)
        labels.append({server + u'.' + key, m_labels.value(field), item});
    return labels;
}

TransportKind ServerDialog::currentTransport() const
{
    const QString name = m_transport->currentData().toString();
    if (name == transportName(TransportKind::StreamableHttp))
        return TransportKind::StreamableHttp;
    if (name == transportName(TransportKind::Sse))
        return TransportKind::Sse;
    return TransportKind::Stdio;
}

void ServerDialog::load(const ServerConfig &server)
{
    m_original = server.source;
    m_originalTransport = server.transport;
    m_name->setText(server.name);
    const ServerEntryFields fields = serverEntryFields(server);
    m_transport->setCurrentIndex(m_transport->findData(transportName(fields.transport)));
    m_command->setText(fields.command);
    m_arguments->setText(fields.arguments);
    m_environment->setEntries(fields.environment);
    m_workingDirectory->setText(fields.workingDirectory);
    m_url->setText(fields.url);
    m_headers->setEntries(fields.headers);
    m_timeout->setText(fields.timeoutMs);
    m_enabled->setChecked(fields.enabled);
}

void ServerDialog::showTransportFields()
{
    const bool stdio = currentTransport() == TransportKind::Stdio;
    for (QWidget *row : std::as_const(m_stdioRows))
        m_form->setRowVisible(row, stdio);
    for (QWidget *row : std::as_const(m_remoteRows))
        m_form->setRowVisible(row, !stdio);
}

ServerEntryFields ServerDialog::enteredFields() const
{
    ServerEntryFields fields;
    fields.transport = currentTransport();
    fields.enabled = m_enabled->isChecked();
    fields.command = m_command->text();
    fields.arguments = m_arguments->text();
    fields.environment = m_environment->entries();
    fields.workingDirectory = m_workingDirectory->text();
    fields.url = m_url->text();
    fields.headers = m_headers->entries();
    fields.timeoutMs = m_timeout->text();
    return fields;
}

ServerDialog::Field ServerDialog::fieldOf(const QString &message) const
{
    // Messages name the server's JSON path first: "mcpServers.demo.command = …".
    const QString at = memberPath(m_serversKey, serverName());
    if (!message.startsWith(at))
        return Field::Other;
    const QStringView rest = QStringView(message).sliced(at.size());
    if (rest.startsWith(u' '))
        return Field::Name; // about the server as a whole: from this dialog, only its name can be wrong
    if (!rest.startsWith(u'.'))
        return Field::Other;
    qsizetype end = 1;
    while (end < rest.size() && (rest.at(end).isLetterOrNumber() || rest.at(end) == u'_'))
        ++end;
    static const QMap<QString, Field> fields{
        {u"type"_s, Field::Transport}, {u"command"_s, Field::Command},   {u"args"_s, Field::Arguments},
        {u"env"_s, Field::Environment}, {u"cwd"_s, Field::WorkingDirectory}, {u"url"_s, Field::Url},
        {u"headers"_s, Field::Headers}, {u"timeoutMs"_s, Field::Timeout}, {u"enabled"_s, Field::Enabled}};
    return fields.value(rest.sliced(1, end - 1).toString(), Field::Other);
}

void ServerDialog::validate()
{
    QMap<Field, QStringList> problems;
    const BuiltServerEntry built = buildServerEntry(enteredFields(), m_original, m_originalTransport);
    m_entry = built.entry;
    if (!built.argumentsError.isEmpty())
        problems[Field::Arguments].append(
            tr("The arguments cannot be split into words: %1. Close the quote, or put a backslash before a quote or "
               "backslash that is meant literally.").arg(built.argumentsError));
    const auto addRepeated = [&problems](Field field, const QString &what, const QStringList &names) {
        // JSON would keep only one of them, silently.
        for (const QString &name : names)
            problems[field].append(tr("The %1 \"%2\" is given twice: keep one row.").arg(what, name));
    };
    addRepeated(Field::Environment, tr("environment variable"), built.repeatedEnvironment);
    addRepeated(Field::Headers, tr("header"), built.repeatedHeaders);

    const QString name = serverName();
    if (!name.isEmpty() && name != m_editedServer && m_existingNames.contains(name))
        problems[Field::Name].append(tr("A server named \"%1\" already exists: choose another name.").arg(name));

    // One server under the config's own defaults, read as the file will be read.
    QJsonObject root{{m_serversKey, QJsonObject{{name, m_entry}}}};
    if (m_document.root.contains(u"defaults"_s))
        root.insert(u"defaults"_s, m_document.root.value(u"defaults"_s));
    const ConfigDocument judged = parseConfig(QJsonDocument(root).toJson(), m_document.path, m_context);
    const QString filePrefix = m_document.path + u": "_s;
    const auto withoutFile = [&filePrefix](const QString &message) {
        return message.startsWith(filePrefix) ? message.sliced(filePrefix.size()) : message;
    };
    for (const QString &error : judged.errors)
        problems[Field::Other].append(withoutFile(error));
    if (!judged.servers.isEmpty()) {
        const ServerConfig &server = judged.servers.constFirst();
        for (const QString &error : server.errors) {
            const QString message = withoutFile(error);
            problems[fieldOf(message)].append(message);
        }
        if (m_timeout->text().trimmed().isEmpty())
            m_timeout->setPlaceholderText(tr("default: %1").arg(server.requestTimeout.count()));
    }

    // Shown in the form's words, but for the fields of a new server that nobody has changed yet.
    const QList<FieldLabel> labels = fieldLabels();
    m_problems.clear();
    m_messages.clear();
    QStringList toFillIn;
    QStringList shown;
    for (auto it = problems.constBegin(); it != problems.constEnd(); ++it) {
        QStringList &messages = m_problems[it.key()];
        // The dialog is about this one server: the policies' messages need not name it.
        const QString aboutServer = u"server '%1': "_s.arg(serverName());
        for (const QString &problem : it.value())
            messages.append(inFormWords(problem.startsWith(aboutServer) ? problem.sliced(aboutServer.size()) : problem, labels));
        if (m_untouched.contains(it.key())) {
            toFillIn.append(m_labels.value(it.key()));
            continue;
        }
        m_messages.insert(it.key(), messages);
        shown += messages;
    }
    showMessage(m_messageText, shown.join(u'\n'));
    showMessage(m_hint, toFillIn.isEmpty() ? QString()
                        : m_editedServer.isEmpty() ? tr("To add the server, fill in: %1.").arg(toFillIn.join(u", "_s))
                                                   : tr("Fill in: %1.").arg(toFillIn.join(u", "_s)));
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(isEntryValid());
}

void ServerDialog::browseWorkingDirectory()
{
    const QString folder = QFileDialog::getExistingDirectory(
        this, tr("Working directory of %1").arg(serverName()), m_workingDirectory->text());
    if (!folder.isEmpty())
        m_workingDirectory->setText(folder);
}

} // namespace Tether
