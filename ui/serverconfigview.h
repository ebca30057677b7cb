#pragma once

#include <QPlainTextEdit>

namespace Tether {

struct ServerConfig;

// The Config tab: the settings a server runs with, as its config file gives them, with its secrets
// hidden (env and header values, a url's user info and query values), under the file's path and
// the warnings of its entry (a key written twice).
class ServerConfigView final : public QPlainTextEdit
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ServerConfigView)

public:
    explicit ServerConfigView(QWidget *parent = nullptr);

    void showConfig(const ServerConfig &config, const QString &filePath);
};

} // namespace Tether
