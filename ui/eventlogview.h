#pragma once

#include <QList>
#include <QWidget>

class QComboBox;
class QLineEdit;
class QPlainTextEdit;

namespace Tether {

struct ServerEvent;

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

    QPlainTextEdit *m_text;
    QComboBox *m_level;
    QLineEdit *m_search;
};

} // namespace Tether
