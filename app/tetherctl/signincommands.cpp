#include "signincommands.h"

#include "configoptions.h"
#include "configrun.h"
#include "exitstatus.h"
#include "interruption.h"
#include "output.h"

#include "auth/scopestepup.h"
#include "common/commandline.h"
#include "common/logging.h"

#include <QEventLoop>
#include <QPointer>
#include <QProcess>
#include <QStandardPaths>

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

bool canOpenBrowser(const QString &browser)
{
    return !browser.isEmpty() || !qEnvironmentVariableIsEmpty("DISPLAY")
           || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
}

QString noBrowserText(const QString &server)
{
    return u"server '%1' asks for sign-in, and there is no display to open a browser on: give --browser CMD (or "
           "TETHER_BROWSER) to sign in here"_s.arg(server);
}

void openSignInUrl(const QString &server, const QUrl &url, const QString &browser)
{
    // Always printed: a terminal without a browser copies it.
    const QString link = url.toString(QUrl::FullyEncoded);
    printNote(u"to sign in to %1, open this URL in a browser:"_s.arg(server));
    printNote(u"  "_s + link);
    openInBrowser(link, browser);
}

bool openInBrowser(const QString &link, const QString &browser)
{
    QStringList command;
    if (!browser.isEmpty()) {
        const SplitCommandLine split = splitCommandLine(browser);
        if (!split.error.isEmpty() || split.words.isEmpty()) {
            printError(u"the browser command '%1' cannot be used (%2); open the URL above yourself"_s.arg(
                browser, split.error.isEmpty() ? u"it is empty"_s : split.error));
            return false;
        }
        command = split.words;
    } else if (canOpenBrowser(browser)) {
        const QString xdgOpen = QStandardPaths::findExecutable(u"xdg-open"_s);
        if (xdgOpen.isEmpty())
            return false;
        command = {xdgOpen};
    } else {
        return false;
    }
    if (!QProcess::startDetached(command.first(), command.mid(1) + QStringList{link})) {
        printError(u"could not run the browser command '%1'; open the URL above yourself"_s.arg(command.first()));
        return false;
    }
    return true;
}

SignInAnswer awaitSignIn(const Interruption &interruption, const std::function<void(SignInController::Done)> &start)
{
    // Shared with the callback, which may still come after a signal ended the wait.
    struct Shared
    {
        SignInAnswer answer;
        QPointer<QEventLoop> loop;
    };
    const auto shared = std::make_shared<Shared>();
    QEventLoop loop;
    shared->loop = &loop;
    QObject::connect(&interruption, &Interruption::interrupted, &loop, &QEventLoop::quit);
    start([shared](bool succeeded, const QString &message) {
        shared->answer = {true, succeeded, message};
        if (shared->loop)
            shared->loop->quit();
    });
    if (!shared->answer.finished && !interruption.happened())
        loop.exec();
    return shared->answer;
}

int login(const ConfigOptions &options, const QString &server, const SignInOptions &signIn)
{
    Interruption interruption;
    ConfigRun run(options, &interruption);
    // The server connects first: its challenge says where to sign in and for which scope.
    if (const std::optional<int> status = startAndSettle(run, interruption))
        return *status;
    // Signs in, then waits for the server to start again with the tokens: what it says proves them.
    const auto signInAndSettle = [&](const QStringList &scopes) -> std::optional<int> {
        const SignInAnswer answer = awaitSignIn(interruption, [&](SignInController::Done done) {
            run.manager().signIn(
                server, scopes,
                [server, browser = signIn.browser](const QUrl &url) { openSignInUrl(server, url, browser); },
                std::move(done));
        });
        if (!answer.finished) {
            run.shutDown();
            return interruption.exitStatus().value_or(Failure);
        }
        if (!answer.succeeded) {
            printError(answer.message);
            run.shutDown();
            return Failure;
        }
        printNote(answer.message);
        run.waitUntilSettled();
        return std::nullopt;
    };
    if (const std::optional<int> failed = signInAndSettle(signIn.scopes))
        return *failed;
    std::optional<ServerStatus> status = run.manager().status(server);
    // Refused for want of scope once connected (its tools/list, say): one more sign-in, for the
    // scopes the server named on top of those the tokens have.
    if (status && status->state == ServerState::SignInNeeded && status->scopeRefused && !status->signInScope.isEmpty()) {
        const QStringList scopes = signIn.scopes.isEmpty()
                                       ? QStringList()
                                       : stepUpScopes(signIn.scopes, status->signInScope.split(u' ', Qt::SkipEmptyParts));
        if (const std::optional<int> failed = signInAndSettle(scopes))
            return *failed;
        status = run.manager().status(server);
    }
    run.shutDown();
    if (!status || status->state != ServerState::Connected) {
        printError(u"%1 did not connect after the sign-in: %2"_s.arg(server, status ? status->reason : QString()));
        return Failure;
    }
    printOut(u"%1: Connected, %2 tools"_s.arg(server).arg(status->toolCount));
    return Success;
}

int logout(const ConfigOptions &options, const QString &server)
{
    Interruption interruption;
    ConfigRun run(options, &interruption);
    if (const std::optional<int> status = startAndSettle(run, interruption))
        return *status;
    const SignInAnswer answer = awaitSignIn(
        interruption, [&](SignInController::Done done) { run.manager().signOut(server, std::move(done)); });
    run.shutDown();
    if (!answer.finished)
        return interruption.exitStatus().value_or(Failure);
    if (!answer.succeeded) {
        printError(answer.message);
        return Failure;
    }
    printOut(answer.message);
    return Success;
}

} // namespace Tether::Ctl
