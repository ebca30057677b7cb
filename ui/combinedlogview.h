#pragma once

#include <QWidget>

class QComboBox;
class QLineEdit;

namespace Tether {

struct EventFilter;
struct ServerEvent;
class EventLogText;
class ServerSource;

// The combined log: every server's events in one window, oldest first, in columns (time, server,
// level, kind, text), narrowed to a server, a level and a search text. It follows new events
// while shown; a reader who scrolled up stays where they are, one at the bottom sees each new
// line. Esc, Ctrl+W and Close close it.
class CombinedLogView final : public QWidget
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CombinedLogView)

public:
    // The most lines it shows: as many as the event log keeps of a few busy servers.
    static constexpr int MaximumLines = 10000;
    // The widest the server column grows; a longer name pushes its own line along.
    static constexpr qsizetype MaximumServerWidth = 24;

    explicit CombinedLogView(ServerSource &manager, QWidget *parent = nullptr);

    EventFilter filter() const;

protected:
    void showEvent(QShowEvent *event) override;

private:
    void updateServers();
    void showEvents();
    void appendEvent(const ServerEvent &event);

    ServerSource &m_manager;
    QComboBox *m_server;
    QComboBox *m_level;
    QLineEdit *m_search;
    EventLogText *m_text;
};

} // namespace Tether
