#include "ctlcommands.h"

#include "common/commandline.h"
#include "common/logging.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTextStream>

using namespace Qt::StringLiterals;
using namespace Tether;

static const char HelpText[] = R"(Usage: tetherctl COMMAND [OPTIONS]

Talks to MCP servers without a window.

Commands:
  tools --stdio "CMD ARGS..."               List the server's tools (name and description).
  call  --stdio "CMD ARGS..." TOOL [JSON]   Call TOOL with JSON arguments (an object; default {})
                                            and print the result content.

Server:
  --stdio "CMD ARGS..."   Run the server as a child process speaking MCP over stdio. The command
                          line is split like a shell splits it ('single' and "double" quotes,
                          backslash escapes) but never runs through a shell.

Options:
  --json                  Print machine-readable JSON: the tools array as the server sent it,
                          or the whole tools/call result object.
  --timeout-ms N          Request timeout in milliseconds, also bounding the handshake
                          (default 60000).
  -v, --verbose           Also print the server's stderr, progress, warnings (skipped input,
                          timeouts) and debug diagnostics on stderr.
  -h, --help              Show this help.
  --version               Show the version.

Exit status:
  0  success
  1  the tool ran and returned an error result (isError)
  2  connection, protocol or usage error; one line on stderr says what went wrong and,
     when the server process died, its last stderr line

Examples:
  tetherctl tools --stdio "tether-demo-server"
  tetherctl call --stdio "tether-demo-server" add '{"a": 2, "b": 3}'
  tetherctl tools --json --stdio "npx -y @modelcontextprotocol/server-everything"
)";

static int usageError(const QString &message)
{
    Ctl::printError(message + u" (see tetherctl --help)"_s);
    return Ctl::Failure;
}

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(u"tetherctl"_s);
    QCoreApplication::setApplicationVersion(QStringLiteral(TETHER_VERSION));

    QCommandLineParser parser;
    parser.setOptionsAfterPositionalArgumentsMode(QCommandLineParser::ParseAsOptions);
    const QCommandLineOption helpOption(QStringList{u"h"_s, u"help"_s});
    const QCommandLineOption versionOption(u"version"_s);
    const QCommandLineOption stdioOption(u"stdio"_s, {}, u"command"_s);
    const QCommandLineOption jsonOption(u"json"_s);
    const QCommandLineOption timeoutOption(u"timeout-ms"_s, {}, u"ms"_s);
    const QCommandLineOption verboseOption(QStringList{u"v"_s, u"verbose"_s});
    parser.addOptions({helpOption, versionOption, stdioOption, jsonOption, timeoutOption, verboseOption});

    if (!parser.parse(QCoreApplication::arguments()))
        return usageError(parser.errorText());
    if (parser.isSet(helpOption)) {
        QTextStream(stdout) << HelpText;
        return Ctl::Success;
    }
    if (parser.isSet(versionOption)) {
        QTextStream(stdout) << "tetherctl " << TETHER_VERSION << Qt::endl;
        return Ctl::Success;
    }

    configureCliLogging(parser.isSet(verboseOption) ? LogVerbosity::Verbose : LogVerbosity::Normal);

    QStringList positional = parser.positionalArguments();
    if (positional.isEmpty())
        return usageError(u"no command given"_s);
    const QString command = positional.takeFirst();
    if (command != u"tools" && command != u"call")
        return usageError(u"unknown command '%1'"_s.arg(command));

    Ctl::CommonOptions options;
    options.json = parser.isSet(jsonOption);
    options.verbose = parser.isSet(verboseOption);
    if (parser.isSet(timeoutOption)) {
        bool ok = false;
        const qint64 timeout = parser.value(timeoutOption).toLongLong(&ok);
        if (!ok || timeout <= 0)
            return usageError(u"--timeout-ms wants a positive number of milliseconds, not '%1'"_s.arg(
                parser.value(timeoutOption)));
        options.timeout = std::chrono::milliseconds(timeout);
    }

    if (!parser.isSet(stdioOption))
        return usageError(u"no server given: name one with --stdio \"CMD ARGS...\""_s);
    const SplitCommandLine split = splitCommandLine(parser.value(stdioOption));
    if (!split.error.isEmpty())
        return usageError(u"--stdio: "_s + split.error);
    options.target.command.program = split.words.first();
    options.target.command.arguments = split.words.mid(1);
    options.target.name = QFileInfo(options.target.command.program).fileName();

    if (command == u"tools") {
        if (!positional.isEmpty())
            return usageError(u"'tools' takes no arguments besides the server, got '%1'"_s.arg(positional.join(u' ')));
        return Ctl::listTools(options);
    }

    if (positional.isEmpty())
        return usageError(u"'call' needs the name of the tool to call"_s);
    if (positional.size() > 2)
        return usageError(u"'call' takes TOOL and one JSON object, got %1 arguments"_s.arg(positional.size()));
    const QString toolName = positional.at(0);
    QJsonObject arguments;
    if (positional.size() == 2) {
        QJsonParseError parseError;
        const QJsonDocument document = QJsonDocument::fromJson(positional.at(1).toUtf8(), &parseError);
        if (parseError.error != QJsonParseError::NoError)
            return usageError(u"the arguments of '%1' are not valid JSON (%2 at offset %3); pass an object such as '{\"message\": \"hi\"}'"_s
                                  .arg(toolName, parseError.errorString())
                                  .arg(parseError.offset));
        if (!document.isObject())
            return usageError(u"the arguments of '%1' must be a JSON object such as '{\"message\": \"hi\"}'"_s.arg(toolName));
        arguments = document.object();
    }
    return Ctl::callTool(options, toolName, arguments);
}
