#pragma once

#include <QColor>
#include <QList>
#include <QPlainTextEdit>
#include <QTimer>
#include <QWidget>

#include <chrono>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QPalette;

namespace Tether {

struct ServerEvent;

// How a log line stands out: warnings and errors in colour, the rest in the palette's text colour.
enum class LogSeverity { Other, Warning, Error };

LogSeverity logSeverity(const ServerEvent &event);
// The colour of a warning or an error on `palette`'s base (light or dark) with a contrast that
// reads; invalid for the rest, which keep the palette's text colour.
QColor logSeverityColour(LogSeverity severity, const QPalette &palette);

// An event as the window's logs show it, in columns a fixed-pitch font lines up: the time of
// day, the server (padded to `serverWidth`; no column when it is 0), the level, the kind and
// what happened.
QString logViewLine(const ServerEvent &event, qsizetype serverWidth = 0);

// A log's lines, read-only in a fixed-pitch font, warnings and errors in colour. It follows new
// lines while it is at the bottom: a reader who scrolls up stays where they are, one who comes
// back to the bottom (or turns following on) sees each new line again. New lines are added at
// the end, never by showing the whole log again, and those that come close together are added
// together (within AppendDelay), so that a flood of them lays out and scrolls the view once.
class EventLogText final : public QPlainTextEdit
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EventLogText)

public:
    static constexpr std::chrono::milliseconds AppendDelay{50};

    EventLogText(int maximumLines, QWidget *parent = nullptr);

    // The width of the server column: 0 (the default) for one server's log, which has none.
    void setServerWidth(qsizetype width);
    qsizetype serverWidth() const { return m_serverWidth; }

    // Replaces the lines (those still to be added too) with the last `maximumLines` of `events`,
    // shown from the start of the lines (the times in view) at the bottom, following.
    void setEvents(const QList<ServerEvent> &events);
    // Adds the event's line within AppendDelay.
    void appendEvent(const ServerEvent &event);

    bool isFollowing() const { return m_following; }
    void setFollowing(bool following);

    // A "Follow" check box that shows and sets whether this follows new lines.
    QCheckBox *newFollowToggle(const QString &text, QWidget *parent);

signals:
    void followingChanged(bool following);

protected:
    void changeEvent(QEvent *event) override;

private:
    struct Line
    {
        QString text;
        LogSeverity severity;
    };

    void addPendingLines();
    void colourLines();
    void scrolled(int value);

    int m_maximumLines;
    qsizetype m_serverWidth = 0;
    bool m_following = true;
    QList<Line> m_pending; // to be added, oldest first
    QTimer m_addPending;
};

// The Log tab: one server's events as lines of text, oldest first, narrowed to a kind (warnings
// and errors, state changes, stderr, log messages, config changes) and to a search text.
class EventLogView final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EventLogView)

public:
    explicit EventLogView(QWidget *parent = nullptr);

    // Replaces the lines with those of `events` that pass the filter.
    void setEvents(const QList<ServerEvent> &events);
    void appendEvent(const ServerEvent &event);

signals:
    // The kind or the search text changed: the events are to be shown again through the new filter.
    void filterChanged();

private:
    bool passesFilter(const ServerEvent &event) const;

    EventLogText *m_text;
    QComboBox *m_level;
    QLineEdit *m_search;
};

} // namespace Tether
