#pragma once

#include <QFrame>

class QLabel;

namespace Tether {

// Above the server table on a first run: says that the servers shown are Tether's built-in demo,
// or that the config has no server yet, and offers the two ways to add the user's own.
class WelcomeBanner final : public QFrame
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WelcomeBanner)

public:
    // `importMenu` lists where servers can be imported from (File ▸ Import servers from).
    WelcomeBanner(QMenu *importMenu, QWidget *parent = nullptr);

    // Shown while the config is the built-in demo (`demo`) or lists no server; hidden otherwise.
    void showFor(bool demo, qsizetype servers);
    QString text() const;

signals:
    void addRequested();

private:
    QLabel *m_text;
};

} // namespace Tether
