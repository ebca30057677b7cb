#include "connectdialog.h"

#include "gatewaytext.h"
#include "messagelabel.h"

#include "config/clientconnect.h"
#include "config/clientconnectfile.h"
#include "config/configfile.h"
#include "gateway/gatewayreach.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Tether {

ConnectDialog::ConnectDialog(const Setup &setup, QWidget *parent)
    : QDialog(parent)
    , m_setup(setup)
    , m_client(new QComboBox(this))
    , m_path(new QLineEdit(this))
    , m_stdio(new QCheckBox(tr("&Start tetherctl serve rather than reach the gateway's URL"), this))
    , m_move(new QCheckBox(tr("&Move: also remove the servers Tether runs from this file, so they do not run twice"), this))
    , m_preview(new QPlainTextEdit(this))
    , m_problem(newMessageLabel(this))
    , m_serveHttp(new QPushButton(tr("Serve over &HTTP now"), this))
    , m_done(new QLabel(this))
    , m_connect(new QPushButton(tr("&Connect"), this))
    , m_undo(new QPushButton(tr("&Undo last connect"), this))
{
    setWindowTitle(tr("Connect a client"));
    resize(760, 520);
    m_client->setObjectName(u"client"_s);
    m_path->setObjectName(u"clientFile"_s);
    m_stdio->setObjectName(u"useStdio"_s);
    m_move->setObjectName(u"moveServers"_s);
    m_preview->setObjectName(u"preview"_s);
    m_problem->setObjectName(u"problem"_s);
    m_serveHttp->setObjectName(u"serveHttp"_s);
    m_done->setObjectName(u"outcome"_s);
    m_connect->setObjectName(u"connectButton"_s);
    m_undo->setObjectName(u"undoButton"_s);

    for (const QString &name : connectClientNames()) {
        ConnectClient client;
        connectClientFromName(name, &client);
        m_client->addItem(connectClientTitle(client), name);
    }
    connect(m_client, &QComboBox::currentIndexChanged, this, [this] { setClient(currentClient()); });
    connect(m_path, &QLineEdit::editingFinished, this, &ConnectDialog::updatePreview);
    connect(m_stdio, &QCheckBox::toggled, this, &ConnectDialog::updatePreview);
    connect(m_move, &QCheckBox::toggled, this, &ConnectDialog::updatePreview);
    m_serveHttp->setAccessibleDescription(tr("Serves Tether's gateway over HTTP from now on, as File ▸ Gateway… "
                                             "does, and saves that to the config"));
    m_serveHttp->hide();
    connect(m_serveHttp, &QPushButton::clicked, this, &ConnectDialog::serveHttp);
    auto *browseButton = new QPushButton(tr("&Browse…"), this);
    connect(browseButton, &QPushButton::clicked, this, &ConnectDialog::browse);
    auto *pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path);
    pathRow->addWidget(browseButton);

    m_client->setAccessibleName(tr("Client"));
    m_path->setAccessibleName(tr("The client's config file"));
    m_preview->setAccessibleName(tr("What Connect would change"));
    m_preview->setReadOnly(true);
    m_preview->setTabChangesFocus(true);
    m_preview->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_preview->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_done->setWordWrap(true);
    m_done->setTextFormat(Qt::PlainText);

    auto *buttons = new QDialogButtonBox(this);
    buttons->addButton(m_connect, QDialogButtonBox::ActionRole);
    buttons->addButton(m_undo, QDialogButtonBox::ActionRole);
    buttons->addButton(QDialogButtonBox::Close)->setText(tr("Cl&ose"));
    connect(m_connect, &QPushButton::clicked, this, &ConnectDialog::connectClient);
    connect(m_undo, &QPushButton::clicked, this, &ConnectDialog::undoConnect);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *form = new QFormLayout;
    auto *clientLabel = new QLabel(tr("C&lient:"), this);
    clientLabel->setBuddy(m_client);
    form->addRow(clientLabel, m_client);
    auto *pathLabel = new QLabel(tr("&File:"), this);
    pathLabel->setBuddy(m_path);
    form->addRow(pathLabel, pathRow);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_stdio);
    layout->addWidget(m_move);
    layout->addWidget(m_problem);
    layout->addWidget(m_serveHttp, 0, Qt::AlignLeft);
    layout->addWidget(m_preview, 1);
    layout->addWidget(m_done);
    layout->addWidget(buttons);
    setClient(ConnectClient::ClaudeDesktop);
}

void ConnectDialog::setClient(ConnectClient client, const QString &path)
{
    {
        const QSignalBlocker blockClient(m_client);
        const QSignalBlocker blockStdio(m_stdio);
        m_client->setCurrentIndex(m_client->findData(connectClientName(client)));
        m_path->setText(path.isEmpty() ? defaultClientConfigPath(client) : path);
        // Claude Desktop starts its servers itself; the others reach the gateway's URL while one is served.
        m_stdio->setChecked(!clientSpeaksHttp(client) || !m_setup.gatewayHttp.enabled);
        m_stdio->setEnabled(clientSpeaksHttp(client));
    }
    m_done->clear();
    updatePreview();
}

ConnectClient ConnectDialog::currentClient() const
{
    ConnectClient client = ConnectClient::ClaudeDesktop;
    connectClientFromName(m_client->currentData().toString(), &client);
    return client;
}

void ConnectDialog::updatePreview()
{
    const ConnectClient client = currentClient();
    const QString path = m_path->text().trimmed();
    m_undo->setEnabled(!path.isEmpty() && hasConnectRecord(path));
    m_connect->setEnabled(false);
    m_preview->clear();
    const bool http = !m_stdio->isChecked();
    const bool unserved = http && !m_setup.gatewayHttp.enabled;
    m_serveHttp->setVisible(unserved && m_setup.serveHttp);
    const auto problem = [this](const QString &text) {
        showMessage(m_problem, text);
        growToFit(this);
    };
    if (path.isEmpty())
        return problem(tr("Choose the client's config file."));
    if (unserved)
        return problem(tr("Tether does not serve its gateway over HTTP, so nothing answers at %1 yet. Serve it over "
                          "HTTP (here, or with the switch in File ▸ Gateway…), or let the client start tetherctl "
                          "serve.")
                           .arg(gatewayHttpUrl(m_setup.gatewayHttp)));
    const ClientFile file = readClientFile(path);
    if (!file.error.isEmpty())
        return problem(file.error);
    QString error;
    const std::optional<GatewayReach> reach = gatewayReach(http, m_setup.tetherctl, m_setup.config,
                                                           m_setup.gatewayHttp, false, &error);
    if (!reach)
        return problem(error);
    std::optional<QList<ServerConfig>> moveMatching;
    if (m_move->isChecked()) {
        const std::optional<QByteArray> config = readConfigFile(m_setup.config.path, &error);
        if (!config)
            return problem(error);
        moveMatching = serversAsWritten(*config, m_setup.config.path);
    }
    const ConnectPlan plan = planConnect(file.content, path, client, *reach, moveMatching);
    if (!plan.error.isEmpty())
        return problem(plan.error);
    problem({});
    m_preview->setPlainText(connectPreview(path, client, plan, *reach, namesOverBudget(client, m_setup.toolNames),
                                           file.readableByOthers()));
    m_connect->setEnabled(plan.after != file.content);
}

void ConnectDialog::connectClient()
{
    const ConnectClient client = currentClient();
    const QString path = m_path->text().trimmed();
    QString error;
    // Planned again with the real token (made now if there is none yet) on the file as it is now.
    const ClientFile file = readClientFile(path);
    const std::optional<GatewayReach> reach = gatewayReach(!m_stdio->isChecked(), m_setup.tetherctl, m_setup.config,
                                                           m_setup.gatewayHttp, true, &error);
    std::optional<QList<ServerConfig>> moveMatching;
    if (m_move->isChecked()) {
        if (const std::optional<QByteArray> config = readConfigFile(m_setup.config.path, &error))
            moveMatching = serversAsWritten(*config, m_setup.config.path);
    }
    if (file.error.isEmpty() && reach && (!m_move->isChecked() || moveMatching)) {
        const ConnectPlan plan = planConnect(file.content, path, client, *reach, moveMatching);
        error = plan.error;
        if (error.isEmpty() && applyConnect(path, client, file, plan, &error)) {
            updatePreview();
            m_done->setText(tr("Connected: %1 has the \"tether\" entry; its previous content is kept in %2. Restart %3 to "
                               "load it.").arg(path, connectStateFolder(), connectClientTitle(client)));
            return;
        }
    }
    showMessage(m_problem, file.error.isEmpty() ? error : file.error);
}

void ConnectDialog::undoConnect()
{
    const UndoOutcome outcome = Tether::undoConnect(m_path->text().trimmed(), currentClient());
    updatePreview();
    if (!outcome.done)
        showMessage(m_problem, outcome.error);
    else
        m_done->setText(outcome.message);
}

void ConnectDialog::serveHttp()
{
    QString error;
    if (!m_setup.serveHttp(&error)) {
        showMessage(m_problem, tr("Not served over HTTP: %1").arg(httpNotServedText(error, m_setup.gatewayHttp.port)));
        growToFit(this);
        return;
    }
    m_setup.gatewayHttp.enabled = true;
    updatePreview();
    m_done->setText(tr("Tether serves its gateway at %1 now.").arg(gatewayHttpUrl(m_setup.gatewayHttp)));
}

void ConnectDialog::browse()
{
    const QString chosen = QFileDialog::getOpenFileName(this, tr("The client's config file"), m_path->text(),
                                                        tr("JSON files (*.json);;All files (*)"));
    if (chosen.isEmpty())
        return;
    m_path->setText(chosen);
    updatePreview();
}

} // namespace Tether
