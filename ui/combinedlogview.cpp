#include "combinedlogview.h"

#include "manager/eventfilter.h"
#include "manager/eventlogtext.h"
#include "manager/serversource.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// The time of day where the export says the full UTC time: the window shows today's events.
QString combinedLogLine(const ServerEvent &event)
{
    return event.time.toLocalTime().toString(u"HH:mm:ss.zzz"_s) + u"  "_s + eventLogLineWithoutTime(event);
}

} // namespace

CombinedLogView::CombinedLogView(ServerSource &manager, QWidget *parent)
    : QWidget(parent, Qt::Window)
    , m_manager(manager)
    , m_server(new QComboBox(this))
    , m_level(new QComboBox(this))
    , m_search(new QLineEdit(this))
    , m_text(new QPlainTextEdit(this))
{
    setWindowTitle(tr("Combined log — Tether"));
    m_server->setObjectName(u"combinedLogServer"_s);
    m_level->setObjectName(u"combinedLogLevel"_s);
    m_search->setObjectName(u"combinedLogSearch"_s);
    m_text->setObjectName(u"combinedLogText"_s);
    m_server->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_level->addItem(tr("All levels"), int(EventFilter::Level::Any));
    m_level->addItem(tr("Warnings and errors"), int(EventFilter::Level::WarningsAndErrors));
    m_level->addItem(tr("Errors"), int(EventFilter::Level::Errors));
    m_search->setPlaceholderText(tr("Search every server's log"));
    m_search->setClearButtonEnabled(true);
    m_text->setReadOnly(true);
    m_text->setMaximumBlockCount(MaximumLines);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_server);
    bar->addWidget(m_level);
    bar->addWidget(m_search, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_text);
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
    for (const ServerStatus &status : m_manager.statuses())
        names.append(status.name);
    names.sort(Qt::CaseInsensitive);
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
    if (isVisible() && m_server->currentData().toString() != current)
        showEvents();
}

void CombinedLogView::showEvents()
{
    if (!isVisible())
        return;
    const EventFilter current = filter();
    const QList<ServerEvent> events = current.server.isEmpty() ? m_manager.eventLog().allEvents()
                                                               : m_manager.eventLog().events(current.server);
    QStringList lines;
    for (const ServerEvent &event : events) {
        if (current.matches(event))
            lines.append(combinedLogLine(event));
    }
    if (lines.size() > MaximumLines)
        lines.remove(0, lines.size() - MaximumLines);
    m_text->setPlainText(lines.join(u'\n'));
    m_text->moveCursor(QTextCursor::End);
    // All the way down, as appendPlainText() scrolls: with the last line only in view, the next
    // line would count as the reader's having scrolled up.
    m_text->verticalScrollBar()->setValue(m_text->verticalScrollBar()->maximum());
}

void CombinedLogView::appendEvent(const ServerEvent &event)
{
    // QPlainTextEdit keeps a reader's place when they scrolled up, and follows at the bottom.
    if (isVisible() && filter().matches(event))
        m_text->appendPlainText(combinedLogLine(event));
}

} // namespace Tether
