#pragma once

#include <QString>
#include <QStringList>
#include <QUrl>

// Signing in to a remote server of the config, and out, from a terminal.
namespace Tether::Ctl {

struct ConfigOptions;

struct SignInOptions
{
    QString browser; // --browser or $TETHER_BROWSER: runs with the URL as its last argument; empty: xdg-open on a display
    QStringList scopes; // --scope; empty: those the server asks for
};

int login(const ConfigOptions &options, const QString &server, const SignInOptions &signIn);
int logout(const ConfigOptions &options, const QString &server);

// Shows the authorization URL of a sign-in to `server`: printed on stderr, then opened with
// `browser` (its words, the URL appended), or xdg-open when there is a display.
void openSignInUrl(const QString &server, const QUrl &url, const QString &browser);
// Whether openSignInUrl reaches a browser on this machine: a browser command, or a display.
bool canOpenBrowser(const QString &browser);
// Why a server given with --url was not signed in: nothing here could open a browser.
QString noBrowserText(const QString &server);

} // namespace Tether::Ctl
