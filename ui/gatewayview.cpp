#include "gatewayview.h"

#include "gatewaytext.h"
#include "messagelabel.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QStackedWidget>
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

GatewayView::GatewayView(GatewayService &service, QWidget *parent)
    : QDialog(parent)
    , m_service(service)
    , m_pages(new QStackedWidget(this))
    , m_offHint(new QLabel(this))
    , m_url(new QLineEdit(this))
    , m_copyUrl(new QPushButton(tr("Copy &URL"), this))
    , m_state(new QLabel(this))
    , m_serveAgain(new QPushButton(tr("&Try again"), this))
    , m_token(new QLineEdit(this))
    , m_showToken(new QPushButton(tr("&Show"), this))
    , m_copyToken(new QPushButton(tr("&Copy token"), this))
    , m_rotateToken(new QPushButton(tr("&Rotate…"), this))
    , m_tokenFile(new QLabel(this))
    , m_rotated(new QLabel(this))
    , m_problem(newMessageLabel(this))
    , m_hosts(newTable({tr("Client"), tr("Version"), tr("Transport"), tr("Connected since"), tr("Calls in flight")}, this))
    , m_calls(newTable({tr("Server"), tr("Tool calls")}, this))
{
    setWindowTitle(tr("Gateway"));
    resize(760, 520);
    m_pages->setObjectName(u"pages"_s);
    m_offHint->setObjectName(u"offHint"_s);
    m_url->setObjectName(u"url"_s);
    m_copyUrl->setObjectName(u"copyUrl"_s);
    m_state->setObjectName(u"state"_s);
    m_serveAgain->setObjectName(u"serveAgain"_s);
    m_token->setObjectName(u"token"_s);
    m_showToken->setObjectName(u"showToken"_s);
    m_copyToken->setObjectName(u"copyToken"_s);
    m_rotateToken->setObjectName(u"rotateToken"_s);
    m_tokenFile->setObjectName(u"tokenFile"_s);
    m_rotated->setObjectName(u"rotated"_s);
    m_problem->setObjectName(u"problem"_s);
    m_hosts->setObjectName(u"hosts"_s);
    m_calls->setObjectName(u"callsByServer"_s);

    // Off: how to turn it on.
    auto *offPage = new QWidget(m_pages);
    m_offHint->setWordWrap(true);
    m_offHint->setTextFormat(Qt::PlainText);
    m_offHint->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *openConfig = new QPushButton(tr("&Open config file"), offPage);
    openConfig->setObjectName(u"openConfig"_s);
    connect(openConfig, &QPushButton::clicked, this, &GatewayView::openConfigRequested);
    auto *offLayout = new QVBoxLayout(offPage);
    offLayout->addWidget(m_offHint);
    offLayout->addWidget(openConfig, 0, Qt::AlignLeft);
    offLayout->addStretch(1);

    // Enabled: served or not, its token, its hosts and calls.
    auto *onPage = new QWidget(m_pages);
    m_url->setReadOnly(true);
    m_token->setReadOnly(true);
    m_state->setWordWrap(true);
    m_state->setTextFormat(Qt::PlainText);
    m_state->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_tokenFile->setWordWrap(true);
    m_tokenFile->setTextFormat(Qt::PlainText);
    m_rotated->setWordWrap(true);
    m_rotated->setTextFormat(Qt::PlainText);
    m_rotated->hide();
    m_showToken->setCheckable(true);
    setTokenShown(false);
    connect(m_copyUrl, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(m_url->text()); });
    connect(m_serveAgain, &QPushButton::clicked, this, [this] {
        m_service.serveAgain();
        refresh();
    });
    connect(m_showToken, &QPushButton::toggled, this, &GatewayView::setTokenShown);
    connect(m_copyToken, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(m_token->text()); });
    connect(m_rotateToken, &QPushButton::clicked, this, &GatewayView::confirmRotation);

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
    auto *addressLabel = new QLabel(tr("&Address:"), onPage);
    addressLabel->setBuddy(m_url);
    form->addRow(addressLabel, urlRow);
    form->addRow(stateRow);
    auto *tokenLabel = new QLabel(tr("To&ken:"), onPage);
    tokenLabel->setBuddy(m_token);
    form->addRow(tokenLabel, tokenRow);
    form->addRow(QString(), m_tokenFile);
    auto *hostsLabel = new QLabel(tr("Hosts co&nnected now:"), onPage);
    hostsLabel->setBuddy(m_hosts);
    auto *callsLabel = new QLabel(tr("Calls through the gateway, &by server:"), onPage);
    callsLabel->setBuddy(m_calls);
    auto *onLayout = new QVBoxLayout(onPage);
    onLayout->setContentsMargins(0, 0, 0, 0);
    onLayout->addLayout(form);
    onLayout->addWidget(m_rotated);
    onLayout->addWidget(m_problem);
    onLayout->addWidget(hostsLabel);
    onLayout->addWidget(m_hosts, 2);
    onLayout->addWidget(callsLabel);
    onLayout->addWidget(m_calls, 1);

    m_pages->addWidget(offPage);
    m_pages->addWidget(onPage);
    auto *buttons = new QDialogButtonBox(this);
    buttons->addButton(QDialogButtonBox::Close)->setText(tr("Close"));
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_pages, 1);
    layout->addWidget(buttons);

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
    if (serving.state == GatewayServing::State::Off) {
        m_offHint->setText(gatewayOffHint(serving));
        m_pages->setCurrentIndex(0);
        return;
    }
    m_pages->setCurrentIndex(1);
    const bool served = serving.state == GatewayServing::State::Serving;
    const bool relaying = serving.state == GatewayServing::State::Relaying;
    m_url->setText(served ? serving.url : QString());
    m_url->setPlaceholderText(relaying ? tr("not served over HTTP") : tr("not served"));
    m_copyUrl->setEnabled(served);
    m_serveAgain->setVisible(serving.state == GatewayServing::State::NotServed);
    if (served)
        m_state->setText(tr("Serving %1 to %2.").arg(toolCountText(serving.status.exposedTools),
                                                      hostCountText(serving.status.hosts.size())));
    else if (relaying)
        m_state->setText(gatewayRelayingText(serving));
    else
        m_state->setText(tr("Not serving: %1").arg(serving.error));
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

void GatewayView::setTokenShown(bool shown)
{
    m_token->setEchoMode(shown ? QLineEdit::Normal : QLineEdit::Password);
    m_showToken->setText(shown ? tr("&Hide") : tr("&Show"));
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
