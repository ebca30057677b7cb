#include "configcontext.h"

using namespace Qt::StringLiterals;

namespace Tether {

EnvironmentLookup systemEnvironment()
{
    return [](const QString &name) -> std::optional<QString> {
        const QByteArray key = name.toLocal8Bit();
        if (key.isEmpty() || key.contains('=') || !qEnvironmentVariableIsSet(key.constData()))
            return std::nullopt;
        return qEnvironmentVariable(key.constData());
    };
}

VariableExpansion expandVariables(const QString &where, const QString &text, const ConfigContext &context)
{
    const EnvironmentLookup environment = context.environment ? context.environment : systemEnvironment();
    VariableExpansion expansion;
    qsizetype from = 0;
    while (true) {
        const qsizetype start = text.indexOf(u"${"_s, from);
        if (start < 0) {
            expansion.text += text.mid(from);
            break;
        }
        expansion.text += text.mid(from, start - from);
        const qsizetype end = text.indexOf(u'}', start + 2);
        if (end < 0) {
            expansion.errors.append(
                u"%1 has \"${\" without a closing \"}\": write ${env:NAME} to use an environment variable"_s.arg(where));
            break;
        }
        const QString variable = text.mid(start + 2, end - start - 2);
        from = end + 1;
        if (variable.startsWith(u"env:")) {
            const QString name = variable.mid(4);
            const std::optional<QString> value = name.isEmpty() ? std::nullopt : environment(name);
            if (value)
                expansion.text += *value;
            else if (name.isEmpty())
                expansion.errors.append(u"%1 uses ${env:}, which names no variable: write ${env:NAME}"_s.arg(where));
            else
                expansion.errors.append(u"%1 uses ${env:%2}, but %2 is not set: set %2 in the environment Tether "
                                        "starts from, or write the value in the file"_s.arg(where, name));
        } else if (variable == u"tether:bindir") {
            if (!context.binDir.isEmpty())
                expansion.text += context.binDir;
            else
                expansion.errors.append(u"%1 uses ${tether:bindir}, but the folder of Tether's programs is not known "
                                        "here: write the path itself"_s.arg(where));
        } else if (variable.startsWith(u"input:")) {
            expansion.errors.append(u"%1 uses ${%2}, which Tether cannot expand: VS Code prompts for inputs, Tether "
                                    "does not; write ${env:NAME} and set NAME in Tether's environment, or write the "
                                    "value"_s.arg(where, variable));
        } else {
            expansion.errors.append(u"%1 uses ${%2}, which Tether cannot expand: Tether expands only ${env:NAME} and "
                                    "${tether:bindir}; write the value itself"_s.arg(where, variable));
        }
    }
    return expansion;
}

} // namespace Tether
