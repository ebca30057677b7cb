#pragma once

#include <QCommandLineOption>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

// How a program is used, written once: --help prints it, the program's parser takes its options
// from it, and the build renders the man page and the shell completions from it.
//
// In a command's usage and an option's value, a word in capitals is a placeholder (SERVER,
// FILE), "a|b" a choice and "..." after a placeholder a repetition; the man page sets them in
// italics and the completions read them: SERVER completes to the config's server names, FILE to
// file names, a choice to its words.
namespace Tether::Usage {

struct Command
{
    QString usage; // the command's name and its operands: "tools [SERVER]"
    QString text;  // empty: the entry above says it
};

struct CommandGroup
{
    QString title;
    QList<Command> commands;
};

struct Option
{
    QStringList names; // without dashes, the short one first: {"v", "verbose"}
    QString value;     // its placeholder ("FILE", "http|sse"); empty for a flag
    QString text;
    QStringList commands = {}; // the commands it applies to; empty: every command
};

struct OptionGroup
{
    QString title;
    QList<Option> options;
};

// A term and what it means: an exit status, a file, an environment variable.
struct Entry
{
    QString term;
    QString text;
    QStringList commands = {}; // an exit status: the commands that exit with it; empty: every command
};

// Text under a title of its own.
struct Note
{
    QString title;
    QString text;
    QStringList commands = {}; // the commands whose own help shows it too
};

struct Example
{
    QString commandLine; // "\n" continues it on the next line, as a shell's backslash does
    QString text;        // what it does; the man page shows it, --help shows the command line alone
};

struct ProgramUsage
{
    QString name;
    QString summary;      // the man page's NAME line: what the program does, in a few words
    QStringList synopsis; // the forms of its command line, each after the program's name
    QString description;  // paragraphs separated by an empty line
    // What the short --help lists: each command by its name with what it does in a few words. A
    // program with none has one help, the whole of it.
    QList<CommandGroup> overview = {};
    QList<CommandGroup> commandGroups;
    QList<OptionGroup> optionGroups;
    QList<Note> notes;
    QList<Entry> exitStatus;
    QList<Entry> environment; // the man page's alone, as are the files
    QList<Entry> files;
    QList<Example> examples;
    QStringList seeAlso; // "tether(1)"

    // Each command's name (the first word of its usage) once, in the order they appear.
    QStringList commandNames() const;
    // The first command whose usage starts with `commandName`; nullptr if none does.
    const Command *command(QStringView commandName) const;
    QList<Option> options() const;
};

// The whole help, everything but the environment and the files (the man page's alone): lines of
// at most 80 characters, as are those of the two below.
QString helpText(const ProgramUsage &usage);
// --help of a program with an overview: its commands one a line, the options of every command,
// and how to ask for more.
QString summaryText(const ProgramUsage &usage);
// --help COMMAND: the command's usage, what it does, its options and the options of every
// command, its notes and examples, the exit statuses it can end with.
QString commandHelpText(const ProgramUsage &usage, QStringView commandName);
// "--config FILE", "-v, --verbose": an option as --help and the man page name it.
QString optionTerm(const Option &option);
// The options for a QCommandLineParser.
QList<QCommandLineOption> commandLineOptions(const ProgramUsage &usage);

// Prints the help or the version when `arguments` ask for one and returns the exit status; nullopt
// when they ask for neither, or cannot be parsed, or ask for the help of a command the program
// does not have (the program's own parser says why). The help is the summary, or with a command
// among the arguments (--help COMMAND, COMMAND --help) that command's.
std::optional<int> answerHelpOrVersion(const ProgramUsage &usage, const QStringList &arguments);
// A program's arguments before any QCoreApplication exists.
QStringList argumentsOf(int argc, char **argv);

} // namespace Tether::Usage
