#pragma once

#include <QList>
#include <QTreeWidget>

namespace Tether {

struct ServerEvent;

// The Timeline tab: one server's state changes, oldest first, each with its attempt, how the
// process ended (the last lines of its stderr in a tool tip) and why; as many as the event log
// keeps, however long a flapping server stays shown. Fixed-pitch, warnings and errors in colour;
// it follows new rows while scrolled to the bottom, and stays put while the reader looks above.
class TimelineView final : public QTreeWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TimelineView)

public:
    explicit TimelineView(QWidget *parent = nullptr);

    // Replaces the rows with the state changes among `events`; the other events are not shown.
    void setEvents(const QList<ServerEvent> &events);
    void appendEvent(const ServerEvent &event);

protected:
    void changeEvent(QEvent *event) override;

private:
    void colourRows();
    void scrolled(int value);

    bool m_following = true;
};

} // namespace Tether
