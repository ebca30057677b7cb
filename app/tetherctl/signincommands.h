#pragma once

#include "manager/signincontroller.h"

#include <QString>
#include <QStringList>
#include <QUrl>

// Signing in to a remote server of the config, and out, from a terminal.
namespace Tether::Ctl {

struct ConfigOptions;
class Interruption;

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
// Opens `link` with `browser` (its words, the link appended), or xdg-open when there is a
// display; false, saying why when something could not run, when nothing was started.
bool openInBrowser(const QString &link, const QString &browser);
// How a sign-in or sign-out ended; `finished` false when a signal came first.
struct SignInAnswer
{
    bool finished = false;
    bool succeeded = false;
    QString message;
};
// Calls `start` with the callback of a sign-in or sign-out and runs an event loop until it is
// answered or `interruption` happens. The callback stays safe to call after this returned.
SignInAnswer awaitSignIn(const Interruption &interruption, const std::function<void(SignInController::Done)> &start);

// Whether openSignInUrl reaches a browser on this machine: a browser command, or a display.
bool canOpenBrowser(const QString &browser);
// Why a server given with --url was not signed in: nothing here could open a browser.
QString noBrowserText(const QString &server);

} // namespace Tether::Ctl
