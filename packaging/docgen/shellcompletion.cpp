#include "shellcompletion.h"

#include <QMap>
#include <QRegularExpression>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Tether::Docgen {

namespace {

// What a placeholder of a usage completes to: SERVER the config's server names, FILE file
// names, "a|b" its words, anything else nothing.
struct Completion
{
    enum class Kind { Nothing, ServerName, FileName, Word };
    Kind kind = Kind::Nothing;
    QStringList words;
};

// A word of a usage without its brackets and quotes: "SERVER...", "FILE", "claude|cursor".
QString unbracketed(const QString &word)
{
    return QString(word).remove(QRegularExpression(u"[\\[\\]'\"]"_s));
}

Completion completionOf(const QString &word)
{
    QString placeholder = unbracketed(word);
    if (placeholder.endsWith(u"..."))
        placeholder.chop(3);
    if (placeholder.contains(u'|'))
        return {Completion::Kind::Word, placeholder.split(u'|')};
    if (placeholder == u"SERVER")
        return {Completion::Kind::ServerName, {}};
    if (placeholder == u"FILE")
        return {Completion::Kind::FileName, {}};
    return {};
}

// The operand at `position` (1 for the first after the command; with `repeats`, that one and
// every later one) of `command`.
struct OperandCompletion
{
    QString command;
    int position = 0;
    bool repeats = false;
    Completion completion;
};

// From the first usage of each command, where its operands are named without options.
QList<OperandCompletion> operandCompletions(const Usage::ProgramUsage &usage)
{
    QList<OperandCompletion> operands;
    for (const QString &name : usage.commandNames()) {
        const QStringList words = usage.command(name)->usage.split(u' ', Qt::SkipEmptyParts).mid(1);
        for (qsizetype i = 0; i < words.size(); ++i) {
            const Completion completion = completionOf(words.at(i));
            const bool repeats = unbracketed(words.at(i)).endsWith(u"...");
            if (completion.kind != Completion::Kind::Nothing)
                operands.append({name, int(i + 1), repeats, completion});
        }
    }
    return operands;
}

QStringList dashedNames(const Usage::Option &option)
{
    QStringList names;
    for (const QString &name : option.names)
        names.append((name.size() == 1 ? u"-"_s : u"--"_s) + name);
    return names;
}

// The first clause of a text, as a completion menu shows beside a word: its first sentence,
// cut at a comma or colon when that is long.
QString shortText(const QString &text)
{
    constexpr qsizetype Long = 60;
    static const QRegularExpression sentenceEnd(u"\\.( |$)|; | \\(|, for example"_s);
    QString clause = text.simplified();
    const qsizetype end = clause.indexOf(sentenceEnd);
    if (end >= 0)
        clause.truncate(end);
    if (clause.size() > Long) {
        const qsizetype comma = std::max(clause.lastIndexOf(u", "_s, Long), clause.lastIndexOf(u": "_s, Long));
        if (comma > 0)
            clause.truncate(comma);
    }
    return clause;
}

QString singleQuotedForShell(const QString &text)
{
    return u'\'' + QString(text).replace(u"'"_s, u"'\\''"_s) + u'\'';
}

QString commandNames(const Usage::ProgramUsage &usage)
{
    return usage.commandNames().join(u' ');
}

QStringList valueOptionNames(const Usage::ProgramUsage &usage)
{
    QStringList names;
    for (const Usage::Option &option : usage.options()) {
        if (!option.value.isEmpty())
            names.append(dashedNames(option));
    }
    return names;
}

QMap<QString, QString> bashPlaceholders(const Usage::ProgramUsage &usage)
{
    const auto action = [](const Completion &completion) -> QString {
        switch (completion.kind) {
        case Completion::Kind::ServerName: return u"_tetherctl_servers"_s;
        case Completion::Kind::FileName: return u"_tetherctl_files"_s;
        case Completion::Kind::Word: return u"_tetherctl_words "_s + singleQuotedForShell(completion.words.join(u' '));
        case Completion::Kind::Nothing: break;
        }
        return QString();
    };
    QStringList options;
    QStringList valueCases;
    for (const Usage::Option &option : usage.options()) {
        options.append(dashedNames(option));
        const Completion completion = completionOf(option.value);
        if (completion.kind != Completion::Kind::Nothing)
            valueCases.append(u"        %1) %2; return ;;"_s.arg(dashedNames(option).join(u'|'), action(completion)));
    }
    QStringList operandCases;
    for (const OperandCompletion &operand : operandCompletions(usage)) {
        operandCases.append(u"        %1:%2) %3 ;;"_s.arg(operand.command, operand.repeats ? u"*"_s : QString::number(operand.position),
                                                        action(operand.completion)));
    }
    return {{u"COMMANDS"_s, commandNames(usage)},
            {u"OPTIONS"_s, options.join(u' ')},
            {u"VALUE_OPTIONS"_s, valueOptionNames(usage).join(u'|')},
            {u"OPTION_VALUE_CASES"_s, valueCases.join(u'\n')},
            {u"OPERAND_CASES"_s, operandCases.join(u'\n')}};
}

QMap<QString, QString> zshPlaceholders(const Usage::ProgramUsage &usage)
{
    // Inside a single-quoted _arguments spec, whose [description] may hold no bare brackets.
    const auto specText = [](const QString &text) -> QString {
        return QString(text).replace(u"'"_s, u"'\\''"_s).replace(u"["_s, u"\\["_s).replace(u"]"_s, u"\\]"_s);
    };
    QStringList specs;
    for (const Usage::Option &option : usage.options()) {
        QString argument;
        if (!option.value.isEmpty()) {
            const Completion completion = completionOf(option.value);
            QString action = u" "_s;
            if (completion.kind == Completion::Kind::FileName)
                action = u"_files"_s;
            else if (completion.kind == Completion::Kind::Word)
                action = u'(' + completion.words.join(u' ') + u')';
            // The message zsh shows while the value is typed: the placeholder, bare.
            const QString message = QString(option.value).remove(QRegularExpression(u"['\":]"_s));
            argument = u':' + message + u':' + action;
        }
        const QString description = u'[' + specText(shortText(option.text)) + u']';
        const QStringList names = dashedNames(option);
        const QString valueSign = option.value.isEmpty() ? QString() : u"="_s;
        if (names.size() == 1) {
            specs.append(u"'"_s + names.first() + valueSign + description + argument + u'\'');
        } else {
            specs.append(u"'("_s + names.join(u' ') + u")'{"_s + names.join(valueSign + u',') + valueSign + u"}'"_s
                         + description + argument + u'\'');
        }
    }
    QStringList commands;
    for (const QString &name : usage.commandNames())
        commands.append(u"        "_s + singleQuotedForShell(name + u':' + shortText(usage.command(name)->text)));
    QStringList operandCases;
    for (const OperandCompletion &operand : operandCompletions(usage)) {
        QString action;
        switch (operand.completion.kind) {
        case Completion::Kind::ServerName: action = u"_tetherctl_servers"_s; break;
        case Completion::Kind::FileName: action = u"_files"_s; break;
        case Completion::Kind::Word:
            action = u"_wanted values expl value compadd -- "_s + operand.completion.words.join(u' ');
            break;
        case Completion::Kind::Nothing: break;
        }
        operandCases.append(u"        (%1:%2) %3 && ret=0 ;;"_s.arg(
            operand.command, operand.repeats ? u"*"_s : QString::number(operand.position), action));
    }
    return {{u"OPTION_SPECS"_s, u"    "_s + specs.join(u" \\\n    "_s)},
            {u"COMMANDS"_s, commands.join(u'\n')},
            {u"OPERAND_CASES"_s, operandCases.join(u'\n')}};
}

QMap<QString, QString> fishPlaceholders(const Usage::ProgramUsage &usage)
{
    const auto fishQuoted = [](const QString &text) -> QString {
        return u'\'' + QString(text).replace(u"\\"_s, u"\\\\"_s).replace(u"'"_s, u"\\'"_s) + u'\'';
    };
    const auto action = [&](const Completion &completion) -> QString {
        switch (completion.kind) {
        case Completion::Kind::ServerName: return u"-a '(__tetherctl_servers)'"_s;
        case Completion::Kind::FileName: return u"-F"_s;
        case Completion::Kind::Word: return u"-a "_s + fishQuoted(completion.words.join(u' '));
        case Completion::Kind::Nothing: break;
        }
        return QString();
    };
    QStringList lines;
    for (const QString &name : usage.commandNames()) {
        lines.append(u"complete -c tetherctl -n '__tetherctl_at_command' -a %1 -d %2"_s.arg(
            name, fishQuoted(shortText(usage.command(name)->text))));
    }
    for (const Usage::Option &option : usage.options()) {
        QString line = u"complete -c tetherctl"_s;
        for (const QString &name : option.names)
            line += (name.size() == 1 ? u" -s "_s : u" -l "_s) + name;
        if (!option.value.isEmpty()) {
            const Completion completion = completionOf(option.value);
            line += completion.kind == Completion::Kind::FileName ? u" -r "_s + action(completion)
                                                                 : u" -x "_s + action(completion);
        }
        lines.append(line.trimmed() + u" -d "_s + fishQuoted(shortText(option.text)));
    }
    for (const OperandCompletion &operand : operandCompletions(usage)) {
        lines.append(u"complete -c tetherctl -n '__tetherctl_at_operand %1 %2' %3"_s.arg(
            operand.command, operand.repeats ? u"any"_s : QString::number(operand.position), action(operand.completion)));
    }
    return {{u"VALUE_OPTIONS"_s, valueOptionNames(usage).join(u' ')}, {u"COMPLETIONS"_s, lines.join(u'\n')}};
}

} // namespace

QString completionScript(const Usage::ProgramUsage &usage, Shell shell, const QString &scriptTemplate, QString *error)
{
    QMap<QString, QString> placeholders;
    switch (shell) {
    case Shell::Bash: placeholders = bashPlaceholders(usage); break;
    case Shell::Zsh: placeholders = zshPlaceholders(usage); break;
    case Shell::Fish: placeholders = fishPlaceholders(usage); break;
    }
    placeholders.insert(u"GENERATED"_s, u"Generated by tether-docgen from %1's usage in app/usage/ and a template in "
                                        "packaging/completions/: edit those, not this."_s.arg(usage.name));
    QString script;
    static const QRegularExpression placeholder(u"@([A-Z_]+)@"_s);
    qsizetype done = 0;
    for (const QRegularExpressionMatch &match : placeholder.globalMatch(scriptTemplate)) {
        if (!placeholders.contains(match.captured(1))) {
            *error = u"unknown placeholder %1"_s.arg(match.captured());
            return {};
        }
        script += scriptTemplate.mid(done, match.capturedStart() - done) + placeholders.value(match.captured(1));
        done = match.capturedEnd();
    }
    return script + scriptTemplate.mid(done);
}

} // namespace Tether::Docgen
