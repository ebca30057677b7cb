#include "eventlogview.h"

#include "common/displaytext.h"
#include "manager/eventfilter.h"
#include "manager/eventlogtext.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QScrollBar>
#include <QTextBlock>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

// Columns as wide as their longest words: "emergency" (MCP's levels are syslog's), and "stderr"
// or "config". A level of a server's own making that is longer pushes its line's text along.
constexpr qsizetype LevelWidth = 9;
constexpr qsizetype KindWidth = 6;
constexpr auto ColumnGap = u"  ";

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

QTextCharFormat severityFormat(LogSeverity severity, const QPalette &palette)
{
    QTextCharFormat format;
    if (const QColor colour = logSeverityColour(severity, palette); colour.isValid())
        format.setForeground(colour);
    return format;
}

} // namespace

LogSeverity logSeverity(const ServerEvent &event)
{
    EventFilter filter;
    filter.level = EventFilter::Level::Errors;
    if (filter.matches(event))
        return LogSeverity::Error;
    filter.level = EventFilter::Level::WarningsAndErrors;
    return filter.matches(event) ? LogSeverity::Warning : LogSeverity::Other;
}

QColor logSeverityColour(LogSeverity severity, const QPalette &palette)
{
    // Darker on a light base, lighter on a dark one: each at a contrast of 4.5:1 or more (WCAG AA)
    // against a base from white to #e0e0e0, or from black to #3c3c3c. The words say it too.
    const bool dark = palette.color(QPalette::Base).lightness() < 128;
    switch (severity) {
    case LogSeverity::Error:
        return dark ? QColor(0xff, 0x8a, 0x80) : QColor(0xb0, 0x1c, 0x1c);
    case LogSeverity::Warning:
        return dark ? QColor(0xff, 0xcc, 0x66) : QColor(0x8f, 0x4f, 0x00);
    case LogSeverity::Other:
        break;
    }
    return {};
}

QString logViewLine(const ServerEvent &event, qsizetype serverWidth)
{
    QString line = event.time.toLocalTime().toString(u"HH:mm:ss.zzz"_s) + ColumnGap;
    if (serverWidth > 0)
        line += withVisibleControls(event.server).leftJustified(serverWidth) + ColumnGap;
    return line + eventLevel(event).leftJustified(LevelWidth) + ColumnGap + eventKindName(event).leftJustified(KindWidth)
           + ColumnGap + eventText(event);
}

EventLogText::EventLogText(int maximumLines, QWidget *parent)
    : QPlainTextEdit(parent)
    , m_maximumLines(maximumLines)
{
    setReadOnly(true);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    document()->setUndoRedoEnabled(false); // lines come and go by the thousand; nothing to undo
    m_addPending.setSingleShot(true);
    m_addPending.setInterval(AppendDelay);
    connect(&m_addPending, &QTimer::timeout, this, &EventLogText::addPendingLines);
    connect(verticalScrollBar(), &QScrollBar::valueChanged, this, &EventLogText::scrolled);
    // The view's own scrolling (the keyboard's, a selection's) moves the scroll bar without its
    // signals, but repaints the view scrolled.
    connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect &, int dy) {
        if (dy != 0)
            scrolled(verticalScrollBar()->value());
    });
    // More lines, or fewer in view: one who follows stays at the bottom.
    connect(verticalScrollBar(), &QScrollBar::rangeChanged, this, [this](int, int maximum) {
        if (m_following)
            verticalScrollBar()->setValue(maximum);
    });
}

void EventLogText::setServerWidth(qsizetype width)
{
    m_serverWidth = width;
}

void EventLogText::setEvents(const QList<ServerEvent> &events)
{
    m_pending.clear();
    m_addPending.stop();
    const qsizetype first = std::max<qsizetype>(0, events.size() - m_maximumLines);
    QStringList lines;
    lines.reserve(events.size() - first);
    for (qsizetype at = first; at < events.size(); ++at)
        lines.append(logViewLine(events.at(at), m_serverWidth));
    setPlainText(lines.join(u'\n'));
    QTextBlock block = document()->firstBlock();
    for (qsizetype at = first; at < events.size() && block.isValid(); ++at, block = block.next())
        block.setUserState(int(logSeverity(events.at(at))));
    colourLines();
    // The last line at its start: a cursor at its end would scroll the times out of view.
    setTextCursor(QTextCursor(document()->lastBlock()));
    horizontalScrollBar()->setValue(0);
    setFollowing(true);
}

void EventLogText::appendEvent(const ServerEvent &event)
{
    if (m_pending.size() == m_maximumLines)
        m_pending.removeFirst(); // it would go again as soon as it came
    m_pending.append({logViewLine(event, m_serverWidth), logSeverity(event)});
    if (!m_addPending.isActive())
        m_addPending.start();
}

void EventLogText::addPendingLines()
{
    if (m_pending.isEmpty())
        return;
    QScrollBar *scroll = verticalScrollBar();
    const int top = scroll->value();
    const QPalette shown = palette();
    QTextCursor cursor(document());
    cursor.beginEditBlock();
    cursor.movePosition(QTextCursor::End);
    for (const Line &line : std::as_const(m_pending)) {
        const QTextCharFormat format = severityFormat(line.severity, shown);
        if (!document()->isEmpty())
            cursor.insertBlock(QTextBlockFormat(), format);
        cursor.insertText(line.text, format);
        cursor.block().setUserState(int(line.severity));
    }
    m_pending.clear();
    const int excess = document()->blockCount() - m_maximumLines;
    if (excess > 0) {
        cursor.movePosition(QTextCursor::Start);
        cursor.movePosition(QTextCursor::NextBlock, QTextCursor::KeepAnchor, excess);
        cursor.removeSelectedText();
    }
    cursor.endEditBlock();
    if (m_following)
        scroll->setValue(scroll->maximum());
    else if (excess > 0)
        scroll->setValue(std::max(0, top - excess)); // a reader who scrolled up keeps their lines in view
}

void EventLogText::setFollowing(bool following)
{
    if (following)
        verticalScrollBar()->setValue(verticalScrollBar()->maximum());
    if (m_following == following)
        return;
    m_following = following;
    emit followingChanged(following);
}

QCheckBox *EventLogText::newFollowToggle(const QString &text, QWidget *parent)
{
    auto *toggle = new QCheckBox(text, parent);
    toggle->setChecked(m_following);
    toggle->setAccessibleDescription(tr("Keeps the newest lines in view; scrolling up stops it, scrolling to the end "
                                        "starts it again"));
    connect(toggle, &QCheckBox::toggled, this, &EventLogText::setFollowing);
    connect(this, &EventLogText::followingChanged, toggle, &QCheckBox::setChecked);
    return toggle;
}

void EventLogText::changeEvent(QEvent *event)
{
    QPlainTextEdit::changeEvent(event);
    // A switch between light and dark at run time: the colours follow.
    if (event->type() == QEvent::PaletteChange)
        colourLines();
}

void EventLogText::colourLines()
{
    const QPalette shown = palette();
    QTextCursor cursor(document());
    cursor.beginEditBlock();
    for (QTextBlock block = document()->firstBlock(); block.isValid(); block = block.next()) {
        const auto severity = LogSeverity(std::max(0, block.userState()));
        if (severity == LogSeverity::Other)
            continue;
        cursor.setPosition(block.position());
        cursor.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
        cursor.setCharFormat(severityFormat(severity, shown));
    }
    cursor.endEditBlock();
}

void EventLogText::scrolled(int value)
{
    // The last line in view counts as the bottom too (its text, not the document's margin below
    // it): the keyboard's Ctrl+End may leave the scroll bar a line short of its end.
    const qreal lastLineBottom = blockBoundingGeometry(document()->lastBlock()).translated(contentOffset()).bottom()
                                 - document()->documentMargin();
    const bool atBottom = value >= verticalScrollBar()->maximum() || lastLineBottom <= viewport()->rect().bottom() + 1;
    if (atBottom != m_following) {
        m_following = atBottom;
        emit followingChanged(atBottom);
    }
}

EventLogView::EventLogView(QWidget *parent)
    : QWidget(parent)
    , m_text(new EventLogText(EventLog::DefaultCapPerServer, this)) // as many as the event log keeps
    , m_level(new QComboBox(this))
    , m_search(new QLineEdit(this))
{
    m_text->setObjectName(u"logText"_s);
    m_level->setObjectName(u"logLevel"_s);
    m_search->setObjectName(u"logSearch"_s);
    m_text->setAccessibleName(tr("Server log"));
    m_level->setAccessibleName(tr("Events to show"));
    m_search->setAccessibleName(tr("Search the log"));
    m_level->addItems({tr("Everything"), tr("Warnings and errors"), tr("State changes"), tr("Server stderr"),
                       tr("Server log messages"), tr("Config changes"), tr("Tool calls")});
    m_search->setPlaceholderText(tr("Search the log"));
    m_search->setClearButtonEnabled(true);
    // Alt+F opens the window's File menu.
    QCheckBox *follow = m_text->newFollowToggle(tr("Follo&w"), this);
    follow->setObjectName(u"logFollow"_s);
    connect(m_level, &QComboBox::currentIndexChanged, this, &EventLogView::filterChanged);
    connect(m_search, &QLineEdit::textChanged, this, &EventLogView::filterChanged);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_level);
    bar->addWidget(m_search, 1);
    bar->addWidget(follow);
    layout->addLayout(bar);
    layout->addWidget(m_text);
    setTabOrder(m_level, m_search);
    setTabOrder(m_search, follow);
    setTabOrder(follow, m_text);
}

void EventLogView::setEvents(const QList<ServerEvent> &events)
{
    QList<ServerEvent> shown;
    for (const ServerEvent &event : events) {
        if (passesFilter(event))
            shown.append(event);
    }
    m_text->setEvents(shown);
}

void EventLogView::appendEvent(const ServerEvent &event)
{
    if (passesFilter(event))
        m_text->appendEvent(event);
}

bool EventLogView::passesFilter(const ServerEvent &event) const
{
    EventFilter filter = kindFilter(m_level->currentIndex());
    filter.text = m_search->text();
    return filter.matches(event);
}

} // namespace Tether
