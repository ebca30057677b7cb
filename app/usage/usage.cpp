#include "usage.h"

#include <QCommandLineParser>
#include <QRegularExpression>
#include <QTextStream>

using namespace Qt::StringLiterals;

namespace Tether::Usage {

namespace {

constexpr qsizetype HelpWidth = 80;
// Where the text of a command or an option starts, so that every group lines up.
constexpr qsizetype TermColumn = 28;

// `text` in lines of at most `width` characters (a longer word stands alone); paragraphs are
// separated by an empty line.
QStringList wrapped(const QString &text, qsizetype width)
{
    QStringList lines;
    const QStringList paragraphs = text.split(u"\n\n"_s);
    for (const QString &paragraph : paragraphs) {
        if (!lines.isEmpty())
            lines.append(QString());
        QString line;
        for (const QString &word : paragraph.simplified().split(u' ', Qt::SkipEmptyParts)) {
            if (!line.isEmpty() && line.size() + 1 + word.size() > width) {
                lines.append(line);
                line.clear();
            }
            line += (line.isEmpty() ? QString() : u" "_s) + word;
        }
        if (!line.isEmpty())
            lines.append(line);
    }
    return lines;
}

// "  term      text..." with the text wrapped at `column`; a term too wide for its column puts
// the text on the lines below it.
void appendTermAndText(QString &out, const QString &term, const QString &text, qsizetype column)
{
    QString line = u"  "_s + term;
    const QStringList lines = wrapped(text, HelpWidth - column);
    if (lines.isEmpty() || line.size() + 2 > column) {
        out += line + u'\n';
        line.clear();
    }
    for (const QString &textLine : lines) {
        out += (textLine.isEmpty() ? QString() : line.leftJustified(column) + textLine) + u'\n';
        line.clear();
    }
}

QString synopsisLines(const ProgramUsage &usage, const QStringList &forms)
{
    QString out;
    for (qsizetype i = 0; i < forms.size(); ++i)
        out += (i == 0 ? u"Usage: "_s : u"       "_s) + usage.name + u' ' + forms.at(i) + u'\n';
    return out;
}

void appendOptions(QString &out, const QString &title, const QList<Option> &options, qsizetype column)
{
    if (options.isEmpty())
        return;
    out += u'\n' + title + u":\n"_s;
    for (const Option &option : options)
        appendTermAndText(out, optionTerm(option), option.text, column);
}

// The exit statuses, all of them, or those `commandName` can end with.
void appendExitStatus(QString &out, const ProgramUsage &usage, QStringView commandName = {})
{
    if (usage.exitStatus.isEmpty())
        return;
    out += u"\nExit status:\n"_s;
    for (const Entry &entry : usage.exitStatus) {
        if (commandName.isEmpty() || entry.commands.isEmpty() || entry.commands.contains(commandName))
            appendTermAndText(out, entry.term, entry.text, 5);
    }
}

// The options of every command: those that name none.
QList<Option> commonOptions(const ProgramUsage &usage)
{
    QList<Option> common;
    for (const Option &option : usage.options()) {
        if (option.commands.isEmpty())
            common.append(option);
    }
    return common;
}

} // namespace

QStringList ProgramUsage::commandNames() const
{
    QStringList names;
    for (const CommandGroup &group : commandGroups) {
        for (const Command &entry : group.commands) {
            const QString commandName = entry.usage.section(u' ', 0, 0);
            if (!names.contains(commandName))
                names.append(commandName);
        }
    }
    return names;
}

const Command *ProgramUsage::command(QStringView commandName) const
{
    for (const CommandGroup &group : commandGroups) {
        for (const Command &entry : group.commands) {
            if (entry.usage.section(u' ', 0, 0) == commandName)
                return &entry;
        }
    }
    return nullptr;
}

QList<Option> ProgramUsage::options() const
{
    QList<Option> all;
    for (const OptionGroup &group : optionGroups)
        all.append(group.options);
    return all;
}

QString optionTerm(const Option &option)
{
    QStringList names;
    for (const QString &name : option.names)
        names.append((name.size() == 1 ? u"-"_s : u"--"_s) + name);
    return names.join(u", "_s) + (option.value.isEmpty() ? QString() : u' ' + option.value);
}

QString helpText(const ProgramUsage &usage)
{
    QString out = synopsisLines(usage, usage.synopsis);
    out += u'\n' + wrapped(usage.description, HelpWidth).join(u'\n') + u'\n';
    for (const CommandGroup &group : usage.commandGroups) {
        out += u'\n' + group.title + u":\n"_s;
        for (const Command &entry : group.commands)
            appendTermAndText(out, entry.usage, entry.text, TermColumn);
    }
    for (const OptionGroup &group : usage.optionGroups) {
        out += u'\n' + group.title + u":\n"_s;
        for (const Option &option : group.options)
            appendTermAndText(out, optionTerm(option), option.text, TermColumn);
    }
    for (const Note &note : usage.notes)
        out += u'\n' + note.title + u":\n"_s + wrapped(note.text, HelpWidth).join(u'\n') + u'\n';
    appendExitStatus(out, usage);
    if (!usage.examples.isEmpty()) {
        out += u"\nExamples:\n"_s;
        for (const Example &example : usage.examples)
            out += u"  "_s + QString(example.commandLine).replace(u"\n"_s, u" \\\n      "_s) + u'\n';
    }
    return out;
}

QString summaryText(const ProgramUsage &usage)
{
    QString out = synopsisLines(usage, usage.synopsis);
    out += u'\n' + wrapped(usage.description.section(u"\n\n"_s, 0, 0), HelpWidth).join(u'\n') + u'\n';
    const QList<Option> common = commonOptions(usage);
    // One column for the commands and the options, as narrow as their names allow.
    qsizetype column = 0;
    for (const CommandGroup &group : usage.overview) {
        for (const Command &entry : group.commands)
            column = std::max(column, entry.usage.size() + 4);
    }
    for (const Option &option : common)
        column = std::max(column, optionTerm(option).size() + 4);
    column = std::min(column, TermColumn);
    for (const CommandGroup &group : usage.overview) {
        out += u'\n' + group.title + u":\n"_s;
        for (const Command &entry : group.commands)
            appendTermAndText(out, entry.usage, entry.text, column);
    }
    appendOptions(out, u"Options of every command"_s, common, column);
    out += u'\n'
           + wrapped(u"%1 --help COMMAND (or %1 COMMAND --help) shows a command's usage, options, examples and exit "
                     "statuses; man %1 shows everything."_s.arg(usage.name),
                     HelpWidth)
                 .join(u'\n')
           + u'\n';
    return out;
}

QString commandHelpText(const ProgramUsage &usage, QStringView commandName)
{
    QStringList forms;
    QList<std::pair<QStringList, QString>> described; // each text with the forms it describes
    for (const CommandGroup &group : usage.commandGroups) {
        QString text; // an entry without text has the text of the one above it
        for (const Command &entry : group.commands) {
            if (!entry.text.isEmpty())
                text = entry.text;
            if (entry.usage.section(u' ', 0, 0) != commandName)
                continue;
            forms.append(entry.usage);
            if (text.isEmpty())
                continue;
            const auto same = std::find_if(described.begin(), described.end(), [&](const auto &pair) { return pair.second == text; });
            if (same == described.end())
                described.append({{entry.usage}, text});
            else
                same->first.append(entry.usage);
        }
    }
    QString out = synopsisLines(usage, forms);
    if (described.size() == 1) {
        out += u'\n' + wrapped(described.first().second, HelpWidth).join(u'\n') + u'\n';
    } else {
        // Each form with what it does, so that a text is not read as another form's.
        for (const auto &[textForms, text] : std::as_const(described)) {
            out += u'\n';
            for (const QString &form : textForms)
                out += usage.name + u' ' + form + u'\n';
            for (const QString &line : wrapped(text, HelpWidth - 4))
                out += (line.isEmpty() ? QString() : u"    "_s + line) + u'\n';
        }
    }
    QList<Option> own;
    for (const Option &option : usage.options()) {
        if (option.commands.contains(commandName))
            own.append(option);
    }
    appendOptions(out, u"Options"_s, own, TermColumn);
    appendOptions(out, u"Options of every command"_s, commonOptions(usage), TermColumn);
    for (const Note &note : usage.notes) {
        if (note.commands.contains(commandName))
            out += u'\n' + note.title + u":\n"_s + wrapped(note.text, HelpWidth).join(u'\n') + u'\n';
    }
    // The examples that run the command, each with what it does.
    const QString run = usage.name + u' ' + commandName;
    static const QRegularExpression commandSeparator(u"\\s*(?:&&|;|\\n)\\s*"_s);
    QString examples;
    for (const Example &example : usage.examples) {
        const QStringList commandLines = example.commandLine.split(commandSeparator);
        const bool runsIt = std::any_of(commandLines.cbegin(), commandLines.cend(), [&](const QString &commandLine) {
            return commandLine == run || commandLine.startsWith(run + u' ');
        });
        if (!runsIt)
            continue;
        examples += u"  "_s + QString(example.commandLine).replace(u"\n"_s, u" \\\n      "_s) + u'\n';
        for (const QString &line : wrapped(example.text, HelpWidth - 6))
            examples += u"      "_s + line + u'\n';
    }
    if (!examples.isEmpty())
        out += u"\nExamples:\n"_s + examples;
    appendExitStatus(out, usage, commandName);
    return out;
}

QList<QCommandLineOption> commandLineOptions(const ProgramUsage &usage)
{
    QList<QCommandLineOption> options;
    for (const Option &option : usage.options())
        options.append(QCommandLineOption(option.names, option.text, option.value));
    return options;
}

std::optional<int> answerHelpOrVersion(const ProgramUsage &usage, const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setOptionsAfterPositionalArgumentsMode(QCommandLineParser::ParseAsOptions);
    parser.addOptions(commandLineOptions(usage));
    if (!parser.parse(arguments))
        return std::nullopt;
    if (parser.isSet(u"help"_s)) {
        if (usage.overview.isEmpty()) {
            QTextStream(stdout) << helpText(usage);
            return 0;
        }
        const QStringList operands = parser.positionalArguments();
        if (operands.isEmpty()) {
            QTextStream(stdout) << summaryText(usage);
            return 0;
        }
        if (!usage.command(operands.first()))
            return std::nullopt;
        QTextStream(stdout) << commandHelpText(usage, operands.first());
        return 0;
    }
    if (parser.isSet(u"version"_s)) {
        QTextStream(stdout) << usage.name << ' ' << TETHER_VERSION << Qt::endl;
        return 0;
    }
    return std::nullopt;
}

QStringList argumentsOf(int argc, char **argv)
{
    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments.append(QString::fromLocal8Bit(argv[i]));
    return arguments;
}

} // namespace Tether::Usage
