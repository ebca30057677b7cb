#include "gatewayview.h"

#include "emptyhint.h"
#include "gatewaytext.h"
#include "messagelabel.h"

#include "config/configedit.h"
#include "config/configstore.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QShortcut>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// A read-only table whose first column takes the room the others, sized to their contents, leave.
QTableWidget *newTable(const QStringList &headers, QWidget *parent)
{
    auto *table = new QTableWidget(0, int(headers.size()), parent);
    table->setHorizontalHeaderLabels(headers);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    table->setAlternatingRowColors(true);
    table->setWordWrap(false);
    // Tab leaves the table rather than walking its cells.
    table->setTabKeyNavigation(false);
    return table;
}

void setRow(QTableWidget *table, int row, const QStringList &cells)
{
    for (int column = 0; column < cells.size(); ++column) {
        auto *item = new QTableWidgetItem(cells.at(column));
        item->setToolTip(plainToolTip(cells.at(column)));
        table->setItem(row, column, item);
    }
}

} // namespace

bool serveGatewayOverHttp(GatewayService &service, ConfigStore &config, quint16 port, QString *error)
{
    const ConfigDocument document = config.document();
    GatewayHttpConfig http = document.gateway.http;
    http.enabled = true;
    http.port = port;
    if (!service.serveHttp(http, error))
        return false;
    const QJsonObject root = setGatewayHttpServed(document.root, true, port);
    if (root == document.root || config.save(root, error))
        return true;
    // Nothing half-on: served as the config says again.
    service.applyConfig(config.document().gateway, service.serving().configPath);
    return false;
}

bool stopServingGatewayOverHttp(ConfigStore &config, QString *error)
{
    const ConfigDocument &document = config.document();
    return config.save(setGatewayHttpServed(document.root, false, document.gateway.http.port), error);
}

GatewayView::GatewayView(GatewayService &service, ConfigStore &config, QWidget *parent)
    : QDialog(parent)
    , m_service(service)
    , m_config(config)
    , m_serveHttp(new QCheckBox(tr("Serve over &HTTP"), this))
    , m_port(new QSpinBox(this))
    , m_url(new QLineEdit(this))
    , m_copyUrl(new QPushButton(tr("Copy &URL"), this))
    , m_problem(newMessageLabel(this))
    , m_state(new QLabel(this))
    , m_serveAgain(new QPushButton(tr("&Try again"), this))
    , m_token(new QLineEdit(this))
    , m_showToken(new QPushButton(tr("&Show"), this))
    , m_copyToken(new QPushButton(tr("&Copy token"), this))
    , m_rotateToken(new QPushButton(tr("&Rotate…"), this))
    , m_tokenFile(new QLabel(this))
    , m_rotated(new QLabel(this))
    , m_hosts(newTable({tr("Client"), tr("Version"), tr("Transport"), tr("Connected since"), tr("Calls in flight")}, this))
    , m_calls(newTable({tr("Server"), tr("Tool calls")}, this))
{
    setWindowTitle(tr("Gateway"));
    resize(760, 560);
    m_serveHttp->setObjectName(u"serveHttp"_s);
    m_port->setObjectName(u"httpPort"_s);
    m_url->setObjectName(u"url"_s);
    m_copyUrl->setObjectName(u"copyUrl"_s);
    m_problem->setObjectName(u"problem"_s);
    m_state->setObjectName(u"state"_s);
    m_serveAgain->setObjectName(u"serveAgain"_s);
    m_token->setObjectName(u"token"_s);
    m_showToken->setObjectName(u"showToken"_s);
    m_copyToken->setObjectName(u"copyToken"_s);
    m_rotateToken->setObjectName(u"rotateToken"_s);
    m_tokenFile->setObjectName(u"tokenFile"_s);
    m_rotated->setObjectName(u"rotated"_s);
    m_hosts->setObjectName(u"hosts"_s);
    m_calls->setObjectName(u"callsByServer"_s);

    // Served over HTTP or not, and where.
    m_serveHttp->setAccessibleDescription(tr("Serves this window's servers at once to AI clients that take a URL, "
                                             "and saves that to the config"));
    connect(m_serveHttp, &QCheckBox::toggled, this, &GatewayView::setHttpServed);
    // What the config takes; 0 (any free port) would give clients no address to keep.
    m_port->setRange(1, 65535);
    m_port->setAccessibleName(tr("HTTP port"));
    m_port->setAccessibleDescription(tr("The port AI clients reach the gateway at; it can be changed while HTTP is "
                                        "not served"));
    auto *portLabel = new QLabel(tr("P&ort:"), this);
    portLabel->setBuddy(m_port);
    m_url->setReadOnly(true);
    m_url->setAccessibleName(tr("Gateway address"));
    m_copyUrl->setAccessibleDescription(tr("Copies the gateway's address to the clipboard"));
    connect(m_copyUrl, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(m_url->text()); });

    m_state->setWordWrap(true);
    m_state->setTextFormat(Qt::PlainText);
    m_state->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_serveAgain->setAccessibleDescription(tr("Serves over HTTP on the port shown"));
    connect(m_serveAgain, &QPushButton::clicked, this, [this] { setHttpServed(true); });

    m_token->setReadOnly(true);
    m_token->setAccessibleName(tr("Gateway token"));
    m_tokenFile->setWordWrap(true);
    m_tokenFile->setTextFormat(Qt::PlainText);
    m_rotated->setWordWrap(true);
    m_rotated->setTextFormat(Qt::PlainText);
    m_rotated->hide();
    m_showToken->setCheckable(true);
    setTokenShown(false);
    m_copyToken->setAccessibleDescription(tr("Copies the gateway token to the clipboard"));
    m_rotateToken->setAccessibleDescription(tr("Replaces the gateway token; clients that reach the URL must be "
                                               "connected again"));
    connect(m_showToken, &QPushButton::toggled, this, &GatewayView::setTokenShown);
    connect(m_copyToken, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(m_token->text()); });
    connect(m_rotateToken, &QPushButton::clicked, this, &GatewayView::confirmRotation);

    m_hosts->setAccessibleName(tr("AI clients connected now"));
    setEmptyHint(m_hosts, tr("No AI client is connected. Use File ▸ Connect a client… to add Tether to Claude "
                             "Desktop, Cursor or VS Code."));
    m_calls->setAccessibleName(tr("Tool calls through the gateway, by server"));
    setEmptyHint(m_calls, tr("No tool has been called through the gateway yet."));

    auto *httpRow = new QHBoxLayout;
    httpRow->addWidget(m_serveHttp);
    httpRow->addSpacing(fontMetrics().averageCharWidth() * 4);
    httpRow->addWidget(portLabel);
    httpRow->addWidget(m_port);
    httpRow->addStretch(1);
    auto *urlRow = new QHBoxLayout;
    urlRow->addWidget(m_url, 1);
    urlRow->addWidget(m_copyUrl);
    auto *stateRow = new QHBoxLayout;
    stateRow->addWidget(m_state, 1);
    stateRow->addWidget(m_serveAgain, 0, Qt::AlignTop);
    auto *tokenRow = new QHBoxLayout;
    tokenRow->addWidget(m_token, 1);
    tokenRow->addWidget(m_showToken);
    tokenRow->addWidget(m_copyToken);
    tokenRow->addWidget(m_rotateToken);
    auto *form = new QFormLayout;
    form->addRow(httpRow);
    form->addRow(m_problem);
    auto *addressLabel = new QLabel(tr("&Address:"), this);
    addressLabel->setBuddy(m_url);
    form->addRow(addressLabel, urlRow);
    form->addRow(stateRow);
    auto *tokenLabel = new QLabel(tr("To&ken:"), this);
    tokenLabel->setBuddy(m_token);
    form->addRow(tokenLabel, tokenRow);
    form->addRow(QString(), m_tokenFile);
    auto *hostsLabel = new QLabel(tr("Hosts co&nnected now:"), this);
    hostsLabel->setBuddy(m_hosts);
    auto *callsLabel = new QLabel(tr("Calls through the gateway, &by server:"), this);
    callsLabel->setBuddy(m_calls);

    auto *buttons = new QDialogButtonBox(this);
    QPushButton *close = buttons->addButton(QDialogButtonBox::Close);
    close->setText(tr("C&lose"));
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    // Not modal, so it closes as other windows do; Esc closes it as a dialog.
    connect(new QShortcut(QKeySequence::Close, this), &QShortcut::activated, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_rotated);
    layout->addWidget(hostsLabel);
    layout->addWidget(m_hosts, 2);
    layout->addWidget(callsLabel);
    layout->addWidget(m_calls, 1);
    layout->addWidget(buttons);
    QWidget *order[] = {m_serveHttp, m_port, m_url, m_copyUrl, m_serveAgain, m_token, m_showToken, m_copyToken,
                        m_rotateToken, m_hosts, m_calls, close};
    for (std::size_t i = 1; i < std::size(order); ++i)
        setTabOrder(order[i - 1], order[i]);

    connect(&m_service, &GatewayService::changed, this, &GatewayView::refresh);
    // "Connected since … (5 min ago)" ages while nothing changes.
    auto *ageing = new QTimer(this);
    ageing->setInterval(std::chrono::seconds(10));
    connect(ageing, &QTimer::timeout, this, [this] {
        if (isVisible())
            refresh();
    });
    ageing->start();
    refresh();
}

void GatewayView::refresh()
{
    showServing(m_service.serving());
}

void GatewayView::showServing(const GatewayServing &serving)
{
    using State = GatewayServing::State;
    const bool served = serving.state == State::Serving;
    {
        const QSignalBlocker quiet(m_serveHttp);
        m_serveHttp->setChecked(served || serving.state == State::NotServed);
    }
    if (serving.port != m_portShown) {
        m_portShown = serving.port;
        m_port->setValue(serving.port);
    }
    m_port->setEnabled(!served);
    m_url->setText(served ? serving.url : QString());
    m_url->setPlaceholderText(served ? QString() : tr("not served over HTTP"));
    m_copyUrl->setEnabled(served);
    m_serveAgain->setVisible(serving.state == State::NotServed);
    switch (serving.state) {
    case State::Off:
        m_state->setText(gatewayOffHint(serving));
        break;
    case State::Relaying:
        m_state->setText(gatewayRelayingText(serving));
        break;
    case State::Serving:
        m_state->setText(tr("Serving %1 to %2.").arg(toolCountText(serving.status.exposedTools),
                                                      hostCountText(serving.status.hosts.size())));
        break;
    case State::NotServed:
        m_state->setText(tr("Not serving over HTTP: %1").arg(httpNotServedText(serving.error, serving.port)));
        break;
    }
    m_token->setText(QString::fromLatin1(serving.token));
    m_showToken->setEnabled(served);
    m_copyToken->setEnabled(served);
    m_rotateToken->setEnabled(served);
    m_tokenFile->setText(tr("Hosts send it as \"Authorization: Bearer <token>\". It is kept in %1, readable by you "
                            "alone.")
                             .arg(serving.tokenFile));

    const QDateTime now = QDateTime::currentDateTime();
    m_hosts->setRowCount(int(serving.status.hosts.size()));
    for (int row = 0; row < serving.status.hosts.size(); ++row) {
        const GatewayHost &host = serving.status.hosts.at(row);
        setRow(m_hosts, row,
               {host.clientName.isEmpty() ? tr("(not initialized yet)") : host.clientName, host.clientVersion,
                host.transport, connectedSinceText(host.since, now), QString::number(host.callsInFlight)});
    }
    m_calls->setRowCount(int(serving.status.callsByServer.size()));
    for (int row = 0; row < serving.status.callsByServer.size(); ++row) {
        const auto &[server, calls] = serving.status.callsByServer.at(row);
        setRow(m_calls, row, {server, QString::number(calls)});
    }
}

void GatewayView::setHttpServed(bool served)
{
    const auto port = quint16(m_port->value());
    QString error;
    if (served ? serveGatewayOverHttp(m_service, m_config, port, &error) : stopServingGatewayOverHttp(m_config, &error))
        showMessage(m_problem, {});
    else if (served)
        showMessage(m_problem, tr("Not served over HTTP: %1").arg(httpNotServedText(error, port)));
    else
        showMessage(m_problem, tr("Still served over HTTP: %1").arg(error));
    refresh();
    growToFit(this);
}

void GatewayView::setTokenShown(bool shown)
{
    m_token->setEchoMode(shown ? QLineEdit::Normal : QLineEdit::Password);
    m_showToken->setText(shown ? tr("Hi&de") : tr("&Show"));
    m_showToken->setAccessibleDescription(shown ? tr("Hides the gateway token") : tr("Shows the gateway token"));
}

void GatewayView::confirmRotation()
{
    QMessageBox confirm(QMessageBox::Question, tr("Rotate the gateway token"),
                        tr("Replace the gateway token with a new one? The current token is refused from then on: "
                           "the hosts connected now are disconnected, and every client that reaches the gateway's "
                           "URL with it (set up with tetherctl connect or File ▸ Connect a client…) must be "
                           "connected again. Clients that start tetherctl serve pick up the new token themselves."),
                        QMessageBox::Cancel, this);
    confirm.setObjectName(u"confirmRotation"_s);
    const QAbstractButton *rotate = confirm.addButton(tr("Rotate"), QMessageBox::DestructiveRole);
    confirm.setDefaultButton(QMessageBox::Cancel);
    confirm.exec();
    if (confirm.clickedButton() == rotate)
        rotateToken();
}

void GatewayView::rotateToken()
{
    QString error;
    if (!m_service.rotateToken(&error)) {
        showMessage(m_problem, tr("The token was not replaced: %1").arg(error));
        return;
    }
    showMessage(m_problem, {});
    m_rotated->setText(tr("A new token is in use; the old one is refused. Clients that reach the gateway's URL "
                          "(set up with tetherctl connect or File ▸ Connect a client…) still send the old one: "
                          "connect them again. Clients that start tetherctl serve need nothing."));
    m_rotated->show();
    refresh();
}

} // namespace Tether
