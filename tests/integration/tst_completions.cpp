// tetherctl's shell completions as bash, zsh and fish run them when Tab is pressed: commands,
// options, option values, and the server names the config gives, from the tetherctl built here.
#include "support/runprogram.h"
#include "support/testfiles.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether::Testing;

namespace {

// bash: the script loaded as bash-completion loads it, then the function `complete` registered
// for tetherctl called as bash calls it on Tab, with the line split into COMP_WORDS.
constexpr char BashDriver[] = R"(
source "$1" || exit 3
line=$2
read -ra COMP_WORDS <<< "$line"
[[ $line == *' ' ]] && COMP_WORDS+=('')
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE=$line
COMP_POINT=${#line}
function=$(complete -p tetherctl | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
"$function" tetherctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\n' "${COMPREPLY[@]}"
)";

// zsh: an interactive zsh on a pseudo-terminal, with the script on its fpath as compinit finds
// it, is sent the line and a Tab; compadd, wrapped, writes the matches it is given to a file.
constexpr char ZshSetup[] = R"(
PS1= RPS1= PROMPT_EOL_MARK=
fpath=("$TETHER_COMPLETION_DIR" $fpath)
autoload -Uz compinit && compinit -u -D
zstyle ':completion:*' list-grouped false
compadd() {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then
    builtin compadd "$@"
    return
  fi
  local -a matches
  builtin compadd -A matches "$@"
  (( $#matches )) && print -rl -- $matches >> "$TETHER_COMPLETION_MATCHES"
  builtin compadd "$@"
}
_tether_completion_done() { print -r -- COMPLETION-DONE }
comppostfuncs=(_tether_completion_done)
print -r -- SETUP-DONE
)";

constexpr char ZshDriver[] = R"(
zmodload zsh/zpty || exit 3
zpty shell zsh -f -i
zpty -w shell "source ${(q)1}"
zpty -r -m shell output '*SETUP-DONE*' || exit 4
zpty -w -n shell "$2"$'\t'
zpty -r -m shell output '*COMPLETION-DONE*' || exit 5
zpty -d shell
[[ -f $TETHER_COMPLETION_MATCHES ]] && cat "$TETHER_COMPLETION_MATCHES"
exit 0
)";

// fish: the completions fish would offer for the line, as `complete -C` lists them.
constexpr char FishDriver[] = R"(
source $argv[1]; or exit 3
# string replace says 1 when a line had no description to cut.
complete -C $argv[2] | string replace -r '\t.*' ''; or true
)";

} // namespace

class TestCompletions final : public QObject
{
    Q_OBJECT

private:
    // The candidates `shell` offers for `line`, with the tetherctl built here first on PATH and
    // the config home empty (so the built-in demo configuration is the config).
    QStringList complete(const QString &shell, const QString &line)
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(u"PATH"_s, QFileInfo(QStringLiteral(TETHERCTL)).absolutePath() + u':' + environment.value(u"PATH"_s));
        environment.insert(u"XDG_CONFIG_HOME"_s, m_configHome.path());
        ProgramRun run;
        if (shell == u"bash") {
            run = runProgram(u"bash"_s, {u"--norc"_s, u"--noprofile"_s, u"-c"_s, QString::fromUtf8(BashDriver), u"bash"_s,
                                         m_scripts.value(shell), line}, environment);
        } else if (shell == u"zsh") {
            // Each run its own file of matches.
            QTemporaryDir matches;
            environment.insert(u"TETHER_COMPLETION_DIR"_s, m_zshFunctionDir.path());
            environment.insert(u"TETHER_COMPLETION_MATCHES"_s, matches.filePath(u"matches"_s));
            run = runProgram(u"zsh"_s, {u"-f"_s, u"-c"_s, QString::fromUtf8(ZshDriver), u"zsh"_s, m_zshSetup, line},
                             environment);
        } else {
            run = runProgram(u"fish"_s, {u"--no-config"_s, u"-c"_s, QString::fromUtf8(FishDriver), m_scripts.value(shell), line},
                             environment);
        }
        if (run.exitCode != 0)
            return {u"%1 exited with %2: %3"_s.arg(shell).arg(run.exitCode).arg(run.err)};
        QStringList candidates = run.out.split(u'\n', Qt::SkipEmptyParts);
        candidates.removeDuplicates();
        candidates.sort();
        return candidates;
    }

    QTemporaryDir m_configHome;
    QTemporaryDir m_files;
    QTemporaryDir m_zshFunctionDir;
    QString m_zshSetup;
    QString m_config;
    QMap<QString, QString> m_scripts;

private slots:
    void initTestCase()
    {
        const QString built = QStringLiteral(TETHER_COMPLETIONS_DIR);
        m_scripts = {{u"bash"_s, built + u"/tetherctl.bash"_s},
                     {u"zsh"_s, built + u"/tetherctl.zsh"_s},
                     {u"fish"_s, built + u"/tetherctl.fish"_s}};
        for (const QString &script : std::as_const(m_scripts))
            QVERIFY2(QFileInfo::exists(script), qPrintable(script));
        // zsh's compinit loads a completion from a file named after its function.
        QVERIFY(QFile::copy(m_scripts.value(u"zsh"_s), m_zshFunctionDir.filePath(u"_tetherctl"_s)));
        m_zshSetup = m_files.filePath(u"setup.zsh"_s);
        QVERIFY(writeFile(m_zshSetup, ZshSetup));
        m_config = m_files.filePath(u"servers.json"_s);
        QVERIFY(writeFile(m_config, R"({"mcpServers": {"alpha": {"command": "true"}, "beta": {"command": "true"}}})"));
    }

    void bashRegistersTheCompletion()
    {
        const ProgramRun run = runProgram(u"bash"_s, {u"--norc"_s, u"--noprofile"_s, u"-c"_s, u"source \"$1\" && complete -p tetherctl"_s,
                                                      u"bash"_s, m_scripts.value(u"bash"_s)});
        QCOMPARE(run.err, QString());
        QCOMPARE(run.out, u"complete -F _tetherctl tetherctl\n"_s);
    }

    void completes_data()
    {
        QTest::addColumn<QString>("shell");
        QTest::addColumn<QString>("line");
        QTest::addColumn<QStringList>("candidates");

        const QStringList demoServers{u"broken"_s, u"demo"_s, u"flaky"_s};
        for (const QString &shell : {u"bash"_s, u"zsh"_s, u"fish"_s}) {
            const auto row = [&](const char *name, const QString &line, const QStringList &candidates) {
                QTest::addRow("%s: %s", qPrintable(shell), name) << shell << line << candidates;
            };
            row("a command", u"tetherctl ca"_s, {u"call"_s});
            row("every command", u"tetherctl "_s,
                {u"call"_s, u"check"_s, u"connect"_s, u"daemon"_s, u"import"_s, u"login"_s, u"logout"_s, u"logs"_s,
                 u"prompt"_s, u"prompts"_s, u"read"_s, u"reconnect"_s, u"resources"_s, u"serve"_s, u"servers"_s,
                 u"start"_s, u"status"_s, u"stop"_s, u"tools"_s, u"watch"_s});
            row("a server of stop", u"tetherctl stop "_s, demoServers);
            row("a server of login", u"tetherctl login "_s, demoServers);
            row("a server of tools", u"tetherctl tools "_s, demoServers);
            row("a server of call, by its start", u"tetherctl call fl"_s, {u"flaky"_s});
            row("a server of read", u"tetherctl read "_s, demoServers);
            row("a server of prompt, by its start", u"tetherctl prompt de"_s, {u"demo"_s});
            row("the servers of watch, one after another", u"tetherctl watch demo "_s, demoServers);
            row("the servers of serve", u"tetherctl serve "_s, demoServers);
            row("the servers of the config named", u"tetherctl --config "_s + m_config + u" tools "_s, {u"alpha"_s, u"beta"_s});
            row("no server besides --stdio", u"tetherctl tools --stdio tether-demo-server "_s, {});
            row("no operand of status", u"tetherctl status "_s, {});
            row("an option", u"tetherctl status --tim"_s, {u"--timeout-ms"_s});
            row("options by their start", u"tetherctl --ver"_s, {u"--verbose"_s, u"--version"_s});
            row("the values of --transport", u"tetherctl tools --url http://127.0.0.1:9/mcp --transport "_s,
                {u"http"_s, u"sse"_s, u"stdio"_s});
            row("what connect writes to", u"tetherctl connect "_s, {u"claude"_s, u"claude-code"_s, u"cursor"_s, u"vscode"_s});
            row("what import reads", u"tetherctl import "_s, {u"claude"_s, u"cursor"_s, u"vscode"_s});
        }
    }

    void completes()
    {
        QFETCH(QString, shell);
        QFETCH(QString, line);
        QFETCH(QStringList, candidates);
        QCOMPARE(complete(shell, line), candidates);
    }

    // A file name where the usage says FILE: the value of --config.
    void completesFileNames_data()
    {
        QTest::addColumn<QString>("shell");
        for (const QString &shell : {u"bash"_s, u"zsh"_s, u"fish"_s})
            QTest::newRow(qPrintable(shell)) << shell;
    }

    void completesFileNames()
    {
        QFETCH(QString, shell);
        // bash and fish offer the path; zsh the file's name, after the folder typed.
        QStringList names;
        for (const QString &candidate : complete(shell, u"tetherctl --config "_s + m_files.filePath(u"serv"_s)))
            names.append(QFileInfo(candidate).fileName());
        QCOMPARE(names, QStringList{QFileInfo(m_config).fileName()});
    }
};

QTEST_GUILESS_MAIN(TestCompletions)
#include "tst_completions.moc"
