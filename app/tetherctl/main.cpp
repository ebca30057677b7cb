#include "catalogcommands.h"
#include "configcommands.h"
#include "configoptions.h"
#include "connectcommand.h"
#include "exitstatus.h"
#include "importcommand.h"
#include "instancecommands.h"
#include "output.h"
#include "servecommand.h"
#include "servercommands.h"
#include "servertarget.h"
#include "signincommands.h"
#include "tetherctlusage.h"
#include "watchcommands.h"

#include "auth/signinservice.h"
#include "common/closenames.h"
#include "common/commandline.h"
#include "common/displaytext.h"
#include "common/logging.h"
#include "config/configlocation.h"
#include "config/policy.h"
#include "keyring/tokenstore.h"
#include "supervisor/connectionsupervisor.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonDocument>
#include <QTextStream>

#include <array>

using namespace Qt::StringLiterals;
using namespace Tether;

static int usageError(const QString &message)
{
    Ctl::printError(message + u" (see tetherctl --help)"_s);
    return Ctl::Failure;
}

int main(int argc, char *argv[])
{
    // GLib's event dispatcher, Qt's default, is kept although Qt's own costs the gateway two
    // system calls fewer per message: the system keyring (libsecret, through QtKeychain) answers
    // only on GLib's main loop.
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(u"tetherctl"_s);
    QCoreApplication::setApplicationVersion(QStringLiteral(TETHER_VERSION));

    const Usage::ProgramUsage &usage = Usage::tetherctlUsage();
    QStringList commandLine = QCoreApplication::arguments();
    // "tetherctl help [COMMAND]", as git and many others take it, is --help.
    if (commandLine.value(1) == u"help")
        commandLine[1] = u"--help"_s;
    if (const std::optional<int> status = Usage::answerHelpOrVersion(usage, commandLine))
        return *status;
    QCommandLineParser parser;
    parser.setOptionsAfterPositionalArgumentsMode(QCommandLineParser::ParseAsOptions);
    parser.addOptions(Usage::commandLineOptions(usage));
    if (!parser.parse(commandLine))
        return usageError(parser.errorText());
    // The options by name; usage.cpp gives their values and help.
    const QCommandLineOption stdioOption(u"stdio"_s);
    const QCommandLineOption urlOption(u"url"_s);
    const QCommandLineOption transportOption(u"transport"_s);
    const QCommandLineOption headerOption(u"header"_s);
    const QCommandLineOption protocolOption(u"protocol"_s);
    const QCommandLineOption configOption(u"config"_s);
    const QCommandLineOption jsonOption(u"json"_s);
    const QCommandLineOption timeoutOption(u"timeout-ms"_s);
    const QCommandLineOption verboseOption(u"verbose"_s);
    const QCommandLineOption argOption(u"arg"_s);
    const QCommandLineOption httpOption(u"http"_s);
    const QCommandLineOption portOption(u"port"_s);
    const QCommandLineOption noBridgeOption(u"no-bridge"_s);
    const QCommandLineOption moveOption(u"move"_s);
    const QCommandLineOption undoOption(u"undo"_s);
    const QCommandLineOption dryRunOption(u"dry-run"_s);
    const QCommandLineOption browserOption(u"browser"_s);
    const QCommandLineOption followOption(u"follow"_s);
    const QCommandLineOption scopeOption(u"scope"_s);
    // Policy flags of watch: each maps to a field that resolveReconnectPolicy/resolveHeartbeatPolicy judge.
    const std::array<std::pair<QCommandLineOption, QString>, 4> reconnectFlags{{
        {QCommandLineOption(u"initial-delay-ms"_s), u"initialDelayMs"_s},
        {QCommandLineOption(u"max-delay-ms"_s), u"maxDelayMs"_s},
        {QCommandLineOption(u"max-attempts"_s), u"maxAttempts"_s},
        {QCommandLineOption(u"jitter"_s), u"jitter"_s},
    }};
    const std::array<std::pair<QCommandLineOption, QString>, 3> heartbeatFlags{{
        {QCommandLineOption(u"heartbeat-ms"_s), u"intervalMs"_s},
        {QCommandLineOption(u"heartbeat-timeout-ms"_s), u"timeoutMs"_s},
        {QCommandLineOption(u"heartbeat-failures"_s), u"maxFailures"_s},
    }};
    const QCommandLineOption noReconnectOption(u"no-reconnect"_s);
    const QCommandLineOption noHeartbeatOption(u"no-heartbeat"_s);

    configureCliLogging(parser.isSet(verboseOption) ? LogVerbosity::Verbose : LogVerbosity::Normal);

    QStringList positional = parser.positionalArguments();
    if (positional.isEmpty())
        return usageError(u"no command given"_s);
    const QString command = positional.takeFirst();
    if (!usage.commandNames().contains(command))
        return usageError(u"unknown command '%1'"_s.arg(command) + didYouMean(closeNames(command, usage.commandNames())));

    std::chrono::milliseconds timeout{60000};
    if (parser.isSet(timeoutOption)) {
        bool ok = false;
        const qint64 value = parser.value(timeoutOption).toLongLong(&ok);
        if (!ok || value <= 0)
            return usageError(u"--timeout-ms wants a positive number of milliseconds, not '%1'"_s.arg(
                parser.value(timeoutOption)));
        timeout = std::chrono::milliseconds(value);
    }

    // Policy flags: a flag's text that is not a number goes through as a string, so that the
    // policy resolution names it with the same words as a bad config value.
    const auto flagValue = [&](const QCommandLineOption &option) {
        bool isNumber = false;
        const double number = parser.value(option).toDouble(&isNumber);
        return isNumber ? QJsonValue(number) : QJsonValue(parser.value(option));
    };
    QJsonObject reconnectOverrides;
    QJsonObject heartbeatOverrides;
    for (const auto &[option, field] : reconnectFlags) {
        if (parser.isSet(option))
            reconnectOverrides.insert(field, flagValue(option));
    }
    for (const auto &[option, field] : heartbeatFlags) {
        if (parser.isSet(option))
            heartbeatOverrides.insert(field, flagValue(option));
    }
    if (parser.isSet(noReconnectOption))
        reconnectOverrides.insert(u"enabled", false);
    if (parser.isSet(noHeartbeatOption))
        heartbeatOverrides.insert(u"enabled", false);
    if (command != u"watch" && command != u"serve" && !(reconnectOverrides.isEmpty() && heartbeatOverrides.isEmpty()))
        return usageError(u"the reconnect and heartbeat flags apply to 'watch' and 'serve' only"_s);
    if (command != u"serve" && (parser.isSet(httpOption) || parser.isSet(portOption) || parser.isSet(noBridgeOption)))
        return usageError(u"--http, --port and --no-bridge apply to 'serve'"_s);

    // The arguments of 'prompt', each --arg NAME=VALUE.
    QJsonObject promptArguments;
    if (parser.isSet(argOption) && command != u"prompt")
        return usageError(u"--arg applies to 'prompt' only"_s);
    for (const QString &argument : parser.values(argOption)) {
        const qsizetype equals = argument.indexOf(u'=');
        if (equals <= 0)
            return usageError(u"--arg wants NAME=VALUE, such as --arg city=Paris, not '%1'"_s.arg(argument));
        promptArguments.insert(argument.left(equals), argument.mid(equals + 1));
    }

    // The tool arguments of 'call': the last word when it is JSON, after the tool's name.
    QJsonObject arguments;
    const auto takeArguments = [&]() -> bool {
        const QString last = positional.isEmpty() ? QString() : positional.last().trimmed();
        const QString toolName = positional.value(positional.size() - 2);
        const QString whose = toolName.isEmpty() ? u"the tool's arguments"_s : u"the arguments of '%1'"_s.arg(toolName);
        if (last.isEmpty() && positional.size() >= 2) {
            usageError(u"%1 are empty; pass an object such as '{}', or leave them out"_s.arg(whose));
            return false;
        }
        if (!last.startsWith(u'{') && !last.startsWith(u'['))
            return true;
        QJsonParseError parseError;
        const QByteArray text = positional.last().toUtf8();
        const QJsonDocument document = QJsonDocument::fromJson(text, &parseError);
        if (parseError.error != QJsonParseError::NoError) {
            // The offset counts bytes of UTF-8; the caret goes under the character.
            qsizetype position = QString::fromUtf8(text.first(std::min<qsizetype>(parseError.offset, text.size()))).size();
            QString fault = parseError.errorString();
            // The usual slip, JavaScript's quotes: the parser's words would point past it.
            if (const qsizetype quote = positional.last().indexOf(u'\''); quote >= 0 && quote <= position) {
                position = quote;
                fault = u"a single quote, where JSON takes double quotes only"_s;
            }
            const PointedText pointed = pointAt(positional.last(), position);
            usageError(u"%1 are not valid JSON: %2 at character %3 (marked below); pass an object such as "
                       "'{\"message\": \"hi\"}'"_s.arg(whose, fault).arg(position + 1));
            Ctl::printNote(u"  "_s + pointed.line);
            Ctl::printNote(u"  "_s + pointed.caret);
            return false;
        }
        if (!document.isObject()) {
            usageError(u"%1 must be a JSON object such as '{\"message\": \"hi\"}'"_s.arg(whose));
            return false;
        }
        arguments = document.object();
        positional.removeLast();
        return true;
    };

    const bool adHocServer = parser.isSet(stdioOption) || parser.isSet(urlOption);
    if (parser.isSet(stdioOption) && parser.isSet(urlOption))
        return usageError(u"give one server: --stdio or --url, not both"_s);
    if (command == u"connect") {
        if (adHocServer || positional.isEmpty() || positional.size() > 2 || parser.isSet(headerOption))
            return usageError(u"use: tetherctl connect claude|cursor|vscode|claude-code [FILE] [--transport stdio|http] "
                              "[--move] [--undo] [--dry-run] [--config TETHER_CONFIG]"_s);
        Ctl::ConnectOptions options;
        options.client = positional.first();
        options.file = positional.value(1);
        options.transport = parser.value(transportOption);
        options.move = parser.isSet(moveOption);
        options.undo = parser.isSet(undoOption);
        options.dryRun = parser.isSet(dryRunOption);
        options.config.source = locateConfig(parser.value(configOption));
        options.config.timeout = timeout;
        options.config.verbose = parser.isSet(verboseOption);
        return Ctl::connectClient(options);
    }
    if (command != u"logs" && parser.isSet(followOption))
        return usageError(u"--follow applies to 'logs'"_s);
    if (parser.isSet(moveOption) || parser.isSet(undoOption) || parser.isSet(dryRunOption))
        return usageError(u"--move, --undo and --dry-run apply to 'connect'"_s);
    if (!parser.isSet(urlOption) && (parser.isSet(transportOption) || parser.isSet(headerOption)))
        return usageError(u"--transport and --header apply to a server given with --url"_s);
    std::optional<ProtocolEra> pinnedEra;
    if (parser.isSet(protocolOption)) {
        const QString protocol = parser.value(protocolOption);
        if (!parser.isSet(urlOption) && !parser.isSet(stdioOption))
            return usageError(u"--protocol applies to a server given with --stdio or --url; a server of the config "
                              "takes \"protocol\" in its entry"_s);
        if (protocol != u"auto" && protocol != u"2026-07-28" && protocol != u"2025-11-25")
            return usageError(u"--protocol wants auto, 2026-07-28 or 2025-11-25, not '%1'"_s.arg(protocol));
        pinnedEra = eraOfVersion(protocol);
    }

    if (command == u"import") {
        if (adHocServer || positional.isEmpty() || positional.size() > 2)
            return usageError(u"use: tetherctl import claude|cursor|vscode [FILE] [--config TARGET]"_s);
        const QString target = parser.isSet(configOption) ? parser.value(configOption) : defaultConfigPath();
        return Ctl::importConfig(positional.first(), positional.value(1), target);
    }

    const bool signingIn = command == u"login" || command == u"logout";
    if (!signingIn && parser.isSet(scopeOption))
        return usageError(u"--scope applies to 'login'"_s);
    if (!signingIn && parser.isSet(browserOption) && !parser.isSet(urlOption))
        return usageError(u"--browser applies to 'login' and to a server given with --url"_s);
    const QString browser = parser.isSet(browserOption) ? parser.value(browserOption) : qEnvironmentVariable("TETHER_BROWSER");
    if (signingIn && (adHocServer || positional.size() != 1))
        return usageError(u"'%1' takes the name of one server of the config, got '%2'"_s.arg(command, positional.join(u' ')));
    if (command == u"logout" && (parser.isSet(browserOption) || parser.isSet(scopeOption)))
        return usageError(u"--browser and --scope apply to 'login'"_s);

    if (!adHocServer) {
        Ctl::ConfigOptions options;
        options.source = locateConfig(parser.value(configOption));
        options.timeout = timeout;
        options.json = parser.isSet(jsonOption);
        options.verbose = parser.isSet(verboseOption);
        options.reconnectOverrides = reconnectOverrides;
        options.heartbeatOverrides = heartbeatOverrides;
        if (command == u"status" || command == u"check" || command == u"servers") {
            if (!positional.isEmpty())
                return usageError(u"'%1' takes no arguments, got '%2'"_s.arg(command, positional.join(u' ')));
            if (command == u"servers")
                return Ctl::configServers(options);
            return command == u"status" ? Ctl::configStatus(options) : Ctl::configCheck(options);
        }
        if (command == u"watch") {
            options.servers = positional;
            return Ctl::configWatch(options);
        }
        if (command == u"start" || command == u"stop" || command == u"reconnect") {
            if (positional.isEmpty())
                return usageError(u"'%1' takes the names of the servers, such as: tetherctl %1 demo"_s.arg(command));
            options.servers = positional;
            return Ctl::controlServers(options, command, positional);
        }
        if (command == u"logs") {
            if (positional.size() > 1)
                return usageError(u"'logs' takes at most one server name, got '%1'"_s.arg(positional.join(u' ')));
            options.servers = positional;
            return Ctl::showLogs(options, positional.value(0), parser.isSet(followOption));
        }
        if (command == u"daemon") {
            if (!positional.isEmpty())
                return usageError(u"'daemon' runs every server of the config; it takes no names, got '%1'"_s.arg(
                    positional.join(u' ')));
            if (options.json)
                return usageError(u"'daemon' prints no table; it takes no --json"_s);
            return Ctl::runDaemon(options);
        }
        if (signingIn) {
            options.servers = positional;
            if (command == u"logout")
                return Ctl::logout(options, positional.first());
            Ctl::SignInOptions signIn;
            signIn.browser = browser;
            for (const QString &scope : parser.values(scopeOption))
                signIn.scopes += scope.split(u' ', Qt::SkipEmptyParts);
            return Ctl::login(options, positional.first(), signIn);
        }
        if (command == u"serve") {
            if (options.json)
                return usageError(u"'serve' speaks MCP on stdout; it takes no --json"_s);
            Ctl::ServeOptions serveOptions;
            serveOptions.http = parser.isSet(httpOption);
            serveOptions.bridge = !parser.isSet(noBridgeOption);
            if (serveOptions.http && parser.isSet(noBridgeOption))
                return usageError(u"--no-bridge applies to 'serve' over stdio; 'serve --http' never bridges"_s);
            if (parser.isSet(portOption)) {
                bool ok = false;
                const uint port = parser.value(portOption).toUInt(&ok);
                if (!ok || port > 65535)
                    return usageError(u"--port wants a port number from 1 to 65535 (0: any free one), not '%1'"_s.arg(
                        parser.value(portOption)));
                if (!serveOptions.http)
                    return usageError(u"--port applies to 'serve --http'"_s);
                serveOptions.port = quint16(port);
            }
            options.servers = positional;
            return Ctl::serve(options, serveOptions);
        }
        if (command == u"tools" || command == u"resources" || command == u"prompts") {
            if (positional.size() > 1)
                return usageError(u"'%1' takes at most one server name, got '%2'"_s.arg(command, positional.join(u' ')));
            options.servers = positional;
            if (command == u"resources")
                return Ctl::configResources(options);
            return command == u"tools" ? Ctl::configTools(options) : Ctl::configPrompts(options);
        }
        if (command == u"read" || command == u"prompt") {
            const QString operand = command == u"read" ? u"URI"_s : u"NAME"_s;
            if (positional.isEmpty() || positional.size() > 2)
                return usageError(u"'%1' takes [SERVER] %2, got '%3'"_s.arg(command, operand, positional.join(u' ')));
            const QString server = positional.size() == 2 ? positional.first() : QString();
            if (command == u"read")
                return Ctl::configRead(options, server, positional.last());
            return Ctl::configPrompt(options, server, positional.last(), promptArguments);
        }
        if (positional.isEmpty())
            return usageError(u"'call' needs the name of the tool to call"_s);
        if (!takeArguments())
            return Ctl::Failure;
        if (positional.isEmpty() || positional.size() > 2)
            return usageError(u"'call' takes [SERVER] TOOL ['JSON'], got '%1'"_s.arg(positional.join(u' ')));
        const QString server = positional.size() == 2 ? positional.first() : QString();
        return Ctl::configCall(options, server, positional.last(), arguments);
    }

    static const QStringList configOnly{u"status"_s, u"check"_s,     u"servers"_s, u"serve"_s, u"start"_s,
                                        u"stop"_s,   u"reconnect"_s, u"logs"_s,    u"daemon"_s};
    if (configOnly.contains(command))
        return usageError(u"'%1' works on the config file; it takes no --stdio or --url"_s.arg(command));
    std::unique_ptr<SignInService> signIn;
    Ctl::CommonOptions options;
    options.json = parser.isSet(jsonOption);
    options.verbose = parser.isSet(verboseOption);
    options.timeout = timeout;
    options.pinnedEra = pinnedEra;
    if (parser.isSet(stdioOption)) {
        const SplitCommandLine split = splitCommandLine(parser.value(stdioOption));
        if (!split.error.isEmpty())
            return usageError(u"--stdio: "_s + split.error);
        StdioServerCommand serverCommand;
        serverCommand.program = split.words.first();
        serverCommand.arguments = split.words.mid(1);
        options.target = Ctl::stdioTarget(serverCommand);
    } else {
        Ctl::RemoteServerFlags flags;
        flags.url = parser.value(urlOption);
        flags.transport = parser.value(transportOption);
        flags.headers = parser.values(headerOption);
        flags.timeout = timeout;
        QString error;
        // A server that asks signs in within this run, keeping the tokens for its URL.
        signIn = systemSignInService(TokenStoreChoice::Auto);
        const std::optional<Ctl::ServerTarget> target = Ctl::remoteTarget(flags, signIn.get(), &error);
        if (!target)
            return usageError(error);
        options.target = *target;
        options.signIn = signIn.get();
        options.browser = browser;
    }
    const QString serverFlag = parser.isSet(stdioOption) ? u"--stdio"_s : u"--url"_s;

    if (command == u"watch") {
        if (!positional.isEmpty())
            return usageError(u"'watch' takes no server names with %1, got '%2'"_s.arg(serverFlag, positional.join(u' ')));
        const auto reconnectPolicy = resolveReconnectPolicy(options.target.name, reconnectOverrides);
        const auto heartbeatPolicy = resolveHeartbeatPolicy(options.target.name, heartbeatOverrides);
        const QStringList errors = reconnectPolicy.errors + heartbeatPolicy.errors;
        if (!errors.isEmpty())
            return usageError(errors.join(u"; "_s));
        SupervisorSettings settings;
        settings.reconnect = reconnectPolicy.policy;
        settings.heartbeat = heartbeatPolicy.policy;
        settings.requestTimeout = options.timeout;
        settings.pinnedEra = options.pinnedEra;
        settings.pinnedBy = EraPinnedBy::Option;
        settings.signInAdvice = Ctl::signInThisRunAdvice();
        return Ctl::watch(options, settings);
    }

    if (command == u"tools" || command == u"resources" || command == u"prompts") {
        if (!positional.isEmpty())
            return usageError(u"'%1' with %2 takes no more arguments: its server is the one %2 gives; got '%3'"_s.arg(
                command, parser.isSet(stdioOption) ? u"--stdio"_s : u"--url"_s, positional.join(u' ')));
        if (command == u"resources")
            return Ctl::listResources(options);
        return command == u"tools" ? Ctl::listTools(options) : Ctl::listPrompts(options);
    }
    if (command == u"read" || command == u"prompt") {
        const QString operand = command == u"read" ? u"URI"_s : u"NAME"_s;
        if (positional.size() != 1)
            return usageError(u"'%1' takes %2 besides the server, got '%3'"_s.arg(command, operand, positional.join(u' ')));
        if (command == u"read")
            return Ctl::readResource(options, positional.first());
        return Ctl::getPrompt(options, positional.first(), promptArguments);
    }

    if (positional.isEmpty())
        return usageError(u"'call' needs the name of the tool to call"_s);
    if (!takeArguments())
        return Ctl::Failure;
    if (positional.size() != 1)
        return usageError(u"'call' takes TOOL and one JSON object, got %1 arguments"_s.arg(positional.size() + 1));
    return Ctl::callTool(options, positional.first(), arguments);
}
