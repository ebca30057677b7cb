#pragma once

#include <QPlainTextEdit>

namespace Tether {

class ConfigStore;
struct ServerConfig;

// The Config tab: a server's entry as its config file gives it (in the file's key order, nothing
// filled in), with its secrets hidden (env and header values, a url's user info and query
// values), under where the config comes from and the warnings of its entry (a key written twice);
// then, marked apart, the settings in effect that the entry leaves to the defaults.
class ServerConfigView final : public QPlainTextEdit
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ServerConfigView)

public:
    explicit ServerConfigView(QWidget *parent = nullptr);

    // `config` is one of `store`'s document's servers.
    void showConfig(const ServerConfig &config, const ConfigStore &store);
};

} // namespace Tether
