#include "combinedlogview.h"

#include "eventlogview.h"

#include "manager/eventfilter.h"
#include "manager/serversource.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Tether {

CombinedLogView::CombinedLogView(ServerSource &manager, QWidget *parent)
    : QWidget(parent, Qt::Window)
    , m_manager(manager)
    , m_server(new QComboBox(this))
    , m_level(new QComboBox(this))
    , m_search(new QLineEdit(this))
    , m_text(new EventLogText(MaximumLines, this))
{
    setWindowTitle(tr("Combined log — Tether"));
    m_server->setObjectName(u"combinedLogServer"_s);
    m_level->setObjectName(u"combinedLogLevel"_s);
    m_search->setObjectName(u"combinedLogSearch"_s);
    m_text->setObjectName(u"combinedLogText"_s);
    m_server->setAccessibleName(tr("Server"));
    m_server->setAccessibleDescription(tr("Shows the events of one server, or of all of them"));
    m_level->setAccessibleName(tr("Level"));
    m_level->setAccessibleDescription(tr("Shows every event, or only warnings and errors, or only errors"));
    m_search->setAccessibleName(tr("Search every server's log"));
    m_text->setAccessibleName(tr("Combined log"));
    m_server->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_level->addItem(tr("All levels"), int(EventFilter::Level::Any));
    m_level->addItem(tr("Warnings and errors"), int(EventFilter::Level::WarningsAndErrors));
    m_level->addItem(tr("Errors"), int(EventFilter::Level::Errors));
    m_search->setPlaceholderText(tr("Search every server's log"));
    m_search->setClearButtonEnabled(true);
    QCheckBox *follow = m_text->newFollowToggle(tr("&Follow"), this);
    follow->setObjectName(u"combinedLogFollow"_s);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton *closeButton = buttons->button(QDialogButtonBox::Close);
    closeButton->setText(tr("&Close"));
    closeButton->setObjectName(u"combinedLogClose"_s);
    connect(buttons, &QDialogButtonBox::rejected, this, &QWidget::close);
    // A window of its own, not a dialog: Esc and Ctrl+W close it as they close a dialog.
    auto *closeAction = new QAction(tr("Close"), this);
    closeAction->setObjectName(u"combinedLogCloseAction"_s);
    QList<QKeySequence> closeKeys = QKeySequence::keyBindings(QKeySequence::Close);
    for (const QKeySequence &key : {QKeySequence(Qt::CTRL | Qt::Key_W), QKeySequence(Qt::Key_Escape)}) {
        if (!closeKeys.contains(key))
            closeKeys.append(key);
    }
    closeAction->setShortcuts(closeKeys);
    connect(closeAction, &QAction::triggered, this, &QWidget::close);
    addAction(closeAction);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_server);
    bar->addWidget(m_level);
    bar->addWidget(m_search, 1);
    bar->addWidget(follow);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_text);
    layout->addWidget(buttons);
    setTabOrder(m_server, m_level);
    setTabOrder(m_level, m_search);
    setTabOrder(m_search, follow);
    setTabOrder(follow, m_text);
    setTabOrder(m_text, closeButton);
    resize(900, 500);

    connect(m_server, &QComboBox::currentIndexChanged, this, &CombinedLogView::showEvents);
    connect(m_level, &QComboBox::currentIndexChanged, this, &CombinedLogView::showEvents);
    connect(m_search, &QLineEdit::textChanged, this, &CombinedLogView::showEvents);
    connect(&m_manager.eventLog(), &EventLog::appended, this, &CombinedLogView::appendEvent);
    connect(&m_manager, &ServerSource::serverAdded, this, &CombinedLogView::updateServers);
    connect(&m_manager, &ServerSource::serverRemoved, this, &CombinedLogView::updateServers);
    updateServers();
}

EventFilter CombinedLogView::filter() const
{
    EventFilter filter;
    filter.server = m_server->currentData().toString();
    filter.level = EventFilter::Level(m_level->currentData().toInt());
    filter.text = m_search->text();
    return filter;
}

void CombinedLogView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    showEvents(); // hidden, it does not follow the log
}

void CombinedLogView::updateServers()
{
    QStringList names;
    qsizetype serverWidth = 0;
    for (const ServerStatus &status : m_manager.statuses()) {
        names.append(status.name);
        serverWidth = std::max(serverWidth, status.name.size());
    }
    names.sort(Qt::CaseInsensitive);
    serverWidth = std::min(serverWidth, MaximumServerWidth);
    const bool widthChanged = serverWidth != m_text->serverWidth();
    m_text->setServerWidth(serverWidth);
    const QString current = m_server->currentData().toString();
    {
        const QSignalBlocker blocker(m_server);
        m_server->clear();
        m_server->addItem(tr("All servers"), QString());
        for (const QString &name : std::as_const(names))
            m_server->addItem(name, name);
        m_server->setCurrentIndex(std::max(0, m_server->findData(current)));
    }
    // A server that went away takes its events with it; the filter may have fallen back to all.
    // A longer or shorter name moves the columns of every line.
    if (isVisible() && (widthChanged || m_server->currentData().toString() != current))
        showEvents();
}

void CombinedLogView::showEvents()
{
    if (!isVisible())
        return;
    const EventFilter current = filter();
    const QList<ServerEvent> events = current.server.isEmpty() ? m_manager.eventLog().allEvents()
                                                               : m_manager.eventLog().events(current.server);
    QList<ServerEvent> shown;
    for (const ServerEvent &event : events) {
        if (current.matches(event))
            shown.append(event);
    }
    m_text->setEvents(shown);
}

void CombinedLogView::appendEvent(const ServerEvent &event)
{
    if (isVisible() && filter().matches(event))
        m_text->appendEvent(event);
}

} // namespace Tether
