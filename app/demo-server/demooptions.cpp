#include "demooptions.h"

#include "demolog.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstdlib>

using namespace Qt::Literals::StringLiterals;

namespace Demo {

namespace {

[[noreturn]] void usageError(const QString &message)
{
    logLine(message);
    logLine(u"see --help for usage"_s);
    std::exit(2);
}

int intValue(const QCommandLineParser &parser, const QCommandLineOption &option, int minimum,
             int maximum)
{
    const QString name = option.names().constFirst();
    const QString text = parser.value(option);
    bool ok = false;
    const int value = text.toInt(&ok);
    if (!ok || value < minimum || value > maximum) {
        usageError(u"invalid value '"_s % text % u"' for --"_s % name % u" (expected an integer in "_s
                   % QString::number(minimum) % u".."_s % QString::number(maximum) % u")"_s);
    }
    return value;
}

} // namespace

const QStringList DemoOptions::DamagedReplyKinds{u"invalid-utf8"_s, u"nul"_s, u"deep-nesting"_s};

QString DemoOptions::leakedValue() const
{
    if (leakEnv.isEmpty())
        return {};
    return u" ("_s % leakEnv % u"="_s % qEnvironmentVariable(qPrintable(leakEnv)) % u")"_s;
}

DemoOptions DemoOptions::fromCommandLine(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        u"A small MCP server speaking JSON-RPC 2.0 over stdio (one JSON message per line).\n"
        "It is Tether's demo server and its integration-test fixture: the flags below make it\n"
        "misbehave on purpose. Tools: echo, add, sleep, fail, crash, hang, format, image\n"
        "(+ --tools N extras), and sample, elicit, elicit-url and roots, which ask the client\n"
        "(sampling/createMessage, elicitation/create in form and URL mode, roots/list) and return\n"
        "its answers; their arguments send many requests at once (count), send them later outside\n"
        "the call (delayMs), send a malformed one (malformed) or leave the call unanswered (silent).\n"
        "stdout carries protocol messages only; stderr is a log whose lines start with \"demo: \"."_s);
    parser.addHelpOption();
    parser.addVersionOption();

    const QCommandLineOption failAtStartup(u"fail-at-startup"_s,
        u"Print an error and exit with code 3 before reading anything."_s);
    const QCommandLineOption crashAfterMs(u"crash-after-ms"_s,
        u"<ms> milliseconds after start, exit with --exit-code."_s, u"ms"_s);
    const QCommandLineOption exitDuringInitialize(u"exit-during-initialize"_s,
        u"Exit with --exit-code when 'initialize' arrives, without replying."_s);
    const QCommandLineOption slowInitializeMs(u"slow-initialize-ms"_s,
        u"Delay the initialize reply by <ms> milliseconds (other messages are still handled)."_s,
        u"ms"_s);
    const QCommandLineOption ignoreSigterm(u"ignore-sigterm"_s,
        u"Ignore SIGTERM and stdin EOF: only SIGKILL stops the server."_s);
    const QCommandLineOption spawnGrandchild(u"spawn-grandchild"_s,
        u"Fork an idle child in the same process group that keeps stdout/stderr open and "
        "outlives the server."_s);
    const QCommandLineOption pidFile(u"pid-file"_s,
        u"With --spawn-grandchild, write the grandchild's pid to <path>."_s, u"path"_s);
    const QCommandLineOption burnCpu(u"burn-cpu"_s,
        u"Fork a child in the same process group that keeps one core busy until it is terminated "
        "or the server exits."_s);
    const QCommandLineOption spawnDaemon(u"spawn-daemon"_s,
        u"Start a daemon that escapes with setsid() (a session and process group of its own, "
        "stdio on /dev/null, SIGTERM and SIGHUP ignored) and outlives the server."_s);
    const QCommandLineOption daemonPidFile(u"daemon-pid-file"_s,
        u"With --spawn-daemon, write the daemon's pid to <path>."_s, u"path"_s);
    const QCommandLineOption logFile(u"log-file"_s,
        u"Also append every line of the log to <path>, which outlives stderr."_s, u"path"_s);
    const QCommandLineOption garbage(u"garbage"_s,
        u"Surround every message with non-message lines, end it with CRLF and write it in two "
        "halves."_s);
    const QCommandLineOption listChangedEveryMs(u"list-changed-every-ms"_s,
        u"Once initialized, send notifications/tools/list_changed every <ms> milliseconds."_s,
        u"ms"_s);
    const QCommandLineOption notifyBeforeInitializeResult(u"notify-before-initialize-result"_s,
        u"Send list_changed and a log message before the initialize result."_s);
    const QCommandLineOption tools(u"tools"_s,
        u"Offer <n> extra tools tool_1..tool_n that echo their 'message' argument."_s, u"n"_s);
    const QCommandLineOption pageSize(u"page-size"_s,
        u"Tools per tools/list page (default 100)."_s, u"n"_s, u"100"_s);
    const QCommandLineOption oversizeLineMb(u"oversize-line-mb"_s,
        u"Right after the initialize reply, write one line of <n> MiB."_s, u"n"_s);
    const QCommandLineOption pingClient(u"ping-client"_s,
        u"Once initialized, send a ping request to the client and log its answer."_s);
    const QCommandLineOption sendUnsupportedRequest(u"send-unsupported-request"_s,
        u"Once initialized, send a sampling/createMessage request and log the answer."_s);
    const QCommandLineOption logNotifications(u"log-notifications"_s,
        u"Once initialized, send a notifications/message log notice."_s);
    const QCommandLineOption stderrLines(u"stderr-lines"_s,
        u"At startup, print <n> numbered lines on stderr."_s, u"n"_s);
    const QCommandLineOption exitCode(u"exit-code"_s,
        u"Exit code for --crash-after-ms and --exit-during-initialize (default 1)."_s, u"code"_s,
        u"1"_s);
    const QCommandLineOption protocolVersion(u"protocol-version"_s,
        u"Answer initialize with protocol version <version> whatever the client asked for."_s,
        u"version"_s);

    const QCommandLineOption leakEnv(u"leak-env"_s,
        u"Repeat the value of the environment variable <name> at the end of every stderr line, "
        "every JSON-RPC error message and a log notice sent once initialized, as a careless server "
        "that logs its token does."_s, u"name"_s);
    const QCommandLineOption escapeSequences(u"escape-sequences"_s,
        u"Put terminal escape sequences (set the window title, clear the screen) in the echo tool's "
        "title and description and in a stderr line at startup."_s);

    const QCommandLineOption closeStdout(u"close-stdout"_s,
        u"After answering the last page of tools/list, close stdout and keep running (reading stdin)."_s);
    const QCommandLineOption pingFlood(u"ping-flood"_s,
        u"Once initialized, stop reading stdin and send ping requests as fast as possible."_s);
    const QCommandLineOption damagedReply(u"damaged-reply"_s,
        u"Answer every tools/call with a line that cannot be parsed, of <kind>: "_s
            % DamagedReplyKinds.join(u", "_s) % u"."_s,
        u"kind"_s);

    parser.addOptions({failAtStartup, crashAfterMs, exitDuringInitialize, slowInitializeMs,
                       ignoreSigterm, spawnGrandchild, pidFile, spawnDaemon, daemonPidFile,
                       logFile, garbage, listChangedEveryMs, notifyBeforeInitializeResult, tools,
                       pageSize, oversizeLineMb, pingClient, sendUnsupportedRequest,
                       logNotifications, stderrLines, exitCode, protocolVersion});
    parser.addOptions({leakEnv, escapeSequences});
    parser.addOptions({closeStdout, pingFlood, damagedReply, burnCpu});
    // parse() rather than process(): usage errors then get our exit code and log prefix.
    if (!parser.parse(app.arguments()))
        usageError(parser.errorText());
    parser.process(app); // the arguments are known to be valid: this only handles --help etc.
    if (!parser.positionalArguments().isEmpty())
        usageError(u"unexpected argument '"_s % parser.positionalArguments().constFirst() % u"'"_s);

    constexpr int maxMs = 24 * 60 * 60 * 1000;
    DemoOptions options;
    options.failAtStartup = parser.isSet(failAtStartup);
    if (parser.isSet(crashAfterMs))
        options.crashAfterMs = intValue(parser, crashAfterMs, 0, maxMs);
    options.exitDuringInitialize = parser.isSet(exitDuringInitialize);
    if (parser.isSet(slowInitializeMs))
        options.slowInitializeMs = intValue(parser, slowInitializeMs, 0, maxMs);
    options.ignoreSigterm = parser.isSet(ignoreSigterm);
    options.spawnGrandchild = parser.isSet(spawnGrandchild);
    options.pidFile = parser.value(pidFile);
    if (!options.pidFile.isEmpty() && !options.spawnGrandchild)
        usageError(u"--pid-file needs --spawn-grandchild"_s);
    options.burnCpu = parser.isSet(burnCpu);
    options.spawnDaemon = parser.isSet(spawnDaemon);
    options.daemonPidFile = parser.value(daemonPidFile);
    if (!options.daemonPidFile.isEmpty() && !options.spawnDaemon)
        usageError(u"--daemon-pid-file needs --spawn-daemon"_s);
    options.logFile = parser.value(logFile);
    options.garbage = parser.isSet(garbage);
    if (parser.isSet(listChangedEveryMs))
        options.listChangedEveryMs = intValue(parser, listChangedEveryMs, 1, maxMs);
    options.notifyBeforeInitializeResult = parser.isSet(notifyBeforeInitializeResult);
    if (parser.isSet(tools))
        options.extraTools = intValue(parser, tools, 0, 1000000);
    options.pageSize = intValue(parser, pageSize, 1, 1000000);
    if (parser.isSet(oversizeLineMb))
        options.oversizeLineMb = intValue(parser, oversizeLineMb, 1, 4096);
    options.pingClient = parser.isSet(pingClient);
    options.sendUnsupportedRequest = parser.isSet(sendUnsupportedRequest);
    options.logNotifications = parser.isSet(logNotifications);
    if (parser.isSet(stderrLines))
        options.stderrLines = intValue(parser, stderrLines, 0, 10000000);
    options.exitCode = intValue(parser, exitCode, 0, 255);
    options.protocolVersion = parser.value(protocolVersion);
    options.leakEnv = parser.value(leakEnv);
    options.escapeSequences = parser.isSet(escapeSequences);
    options.closeStdout = parser.isSet(closeStdout);
    options.pingFlood = parser.isSet(pingFlood);
    options.damagedReply = parser.value(damagedReply);
    if (parser.isSet(damagedReply) && !DamagedReplyKinds.contains(options.damagedReply)) {
        usageError(u"invalid value '"_s % options.damagedReply % u"' for --damaged-reply (expected one of "_s
                   % DamagedReplyKinds.join(u", "_s) % u")"_s);
    }
    return options;
}

} // namespace Demo
