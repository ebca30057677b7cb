#include "eventlogview.h"

#include "manager/eventfilter.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// The filter's entries, in order: everything, warnings and errors, then one kind each.
EventFilter kindFilter(int entry)
{
    using Kind = ServerEvent::Kind;
    static const QList<std::optional<Kind>> kinds{std::nullopt, std::nullopt, Kind::StateChange, Kind::Stderr,
                                                  Kind::ServerLog, Kind::ConfigChange, Kind::ToolCall};
    EventFilter filter;
    filter.level = entry == 1 ? EventFilter::Level::WarningsAndErrors : EventFilter::Level::Any;
    filter.kind = kinds.value(entry);
    return filter;
}

QString logLine(const ServerEvent &event)
{
    const QString time = event.time.toLocalTime().toString(u"HH:mm:ss.zzz"_s);
    switch (event.kind) {
    case ServerEvent::Kind::StateChange:
        return u"%1  %2  %3"_s.arg(time, stateName(event.status.state), event.text);
    case ServerEvent::Kind::Stderr:
        return u"%1  stderr  %2"_s.arg(time, event.text);
    case ServerEvent::Kind::ServerLog:
        return u"%1  %2  %3"_s.arg(time, event.level, event.text);
    case ServerEvent::Kind::ConfigChange:
        return u"%1  config  %2"_s.arg(time, event.text);
    case ServerEvent::Kind::ToolCall:
        return u"%1  call  %2"_s.arg(time, event.text);
    }
    return {};
}

} // namespace

EventLogView::EventLogView(QWidget *parent)
    : QWidget(parent)
    , m_text(new QPlainTextEdit(this))
    , m_level(new QComboBox(this))
    , m_search(new QLineEdit(this))
{
    m_text->setObjectName(u"logText"_s);
    m_level->setObjectName(u"logLevel"_s);
    m_search->setObjectName(u"logSearch"_s);
    m_text->setReadOnly(true);
    m_text->setMaximumBlockCount(EventLog::DefaultCapPerServer); // as many as the event log keeps
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_level->addItems({tr("Everything"), tr("Warnings and errors"), tr("State changes"), tr("Server stderr"),
                       tr("Server log messages"), tr("Config changes"), tr("Tool calls")});
    m_search->setPlaceholderText(tr("Search the log"));
    m_search->setClearButtonEnabled(true);
    connect(m_level, &QComboBox::currentIndexChanged, this, &EventLogView::filterChanged);
    connect(m_search, &QLineEdit::textChanged, this, &EventLogView::filterChanged);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_level);
    bar->addWidget(m_search, 1);
    layout->addLayout(bar);
    layout->addWidget(m_text);
}

void EventLogView::setEvents(const QList<ServerEvent> &events)
{
    QStringList lines;
    for (const ServerEvent &event : events) {
        if (passesFilter(event))
            lines.append(logLine(event));
    }
    m_text->setPlainText(lines.join(u'\n'));
    m_text->moveCursor(QTextCursor::End);
}

void EventLogView::appendEvent(const ServerEvent &event)
{
    if (passesFilter(event))
        m_text->appendPlainText(logLine(event));
}

bool EventLogView::passesFilter(const ServerEvent &event) const
{
    EventFilter filter = kindFilter(m_level->currentIndex());
    filter.text = m_search->text();
    return filter.matches(event);
}

} // namespace Tether
