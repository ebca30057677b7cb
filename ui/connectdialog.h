#pragma once

#include "config/configlocation.h"
#include "config/gatewayconfig.h"

#include <QDialog>
#include <QStringList>

#include <functional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace Tether {

enum class ConnectClient;

// File ▸ Connect a client…: adds a "tether" entry to an AI client's config file (Claude Desktop,
// Cursor, VS Code, Claude Code), so that it reaches Tether's servers through the gateway. Shows
// what the connect would change before it does (the lines, the servers moved, tool names too
// long for the client); Connect writes it, after a backup; Undo takes the last connect back. The
// same functions as tetherctl connect do the work. While Tether serves no HTTP, clients start
// tetherctl serve: a URL nothing answers is not written, and the dialog offers to serve HTTP.
class ConnectDialog final : public QDialog
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConnectDialog)

public:
    struct Setup
    {
        ConfigSource config;    // Tether's: its servers for --move, its token, its path for stdio
        QString tetherctl;      // the program a stdio client starts
        QStringList toolNames;  // the public names the gateway offers now
        GatewayHttpConfig gatewayHttp; // the config's endpoint, whose URL an HTTP client is given
        // Serves the gateway over HTTP at once and saves that to the config (see
        // serveGatewayOverHttp): offered while the config does not enable it. Empty where this
        // program serves no gateway; false, with `error`, when it cannot.
        std::function<bool(QString *error)> serveHttp = {};
    };

    explicit ConnectDialog(const Setup &setup, QWidget *parent = nullptr);

    // Chooses the client and its file; an empty path is the client's usual file.
    void setClient(ConnectClient client, const QString &path = QString());

private:
    ConnectClient currentClient() const;
    // Reads the file and shows what Connect would do; Connect is enabled when it can.
    void updatePreview();
    void connectClient();
    void undoConnect();
    void browse();
    void serveHttp();

    Setup m_setup;
    QComboBox *m_client;
    QLineEdit *m_path;
    QCheckBox *m_stdio;
    QCheckBox *m_move;
    QPlainTextEdit *m_preview;
    QLabel *m_problem;
    QPushButton *m_serveHttp;
    QLabel *m_done;
    QPushButton *m_connect;
    QPushButton *m_undo;
};

} // namespace Tether
