#include "usage.h"

#include <QCommandLineParser>
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
    QString out;
    for (qsizetype i = 0; i < usage.synopsis.size(); ++i)
        out += (i == 0 ? u"Usage: "_s : u"       "_s) + usage.name + u' ' + usage.synopsis.at(i) + u'\n';
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
    if (!usage.exitStatus.isEmpty()) {
        out += u"\nExit status:\n"_s;
        for (const Entry &entry : usage.exitStatus)
            appendTermAndText(out, entry.term, entry.text, 5);
    }
    if (!usage.examples.isEmpty()) {
        out += u"\nExamples:\n"_s;
        for (const Example &example : usage.examples)
            out += u"  "_s + QString(example.commandLine).replace(u"\n"_s, u" \\\n      "_s) + u'\n';
    }
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
        QTextStream(stdout) << helpText(usage);
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
