#pragma once

#include "config/oauthsettings.h"
#include "manager/resourcesampler.h"

#include <QPlainTextEdit>

namespace Tether {

struct ServerStatus;

// The Details tab: what a server's status says as text: its transport, its state and why, what
// is wrong in its config, the CPU and memory of its process and children, and how its last
// process ended with the last lines of its stderr.
class ServerDetailsView final : public QPlainTextEdit
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ServerDetailsView)

public:
    explicit ServerDetailsView(QWidget *parent = nullptr);

    void showStatus(const ServerStatus &status, const std::optional<ProcessResources> &resources);
    // Appends what is known of the server's sign-in: account, scopes, expiry, where the tokens are.
    void showSignIn(const QString &serverName, const SignInInfo &info);

    static QStringList signInLines(const QString &serverName, const SignInInfo &info, const QDateTime &now);
};

} // namespace Tether
