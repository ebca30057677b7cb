#pragma once

#include "usage.h"

#include <QString>
#include <QStringList>

namespace Tether::Docgen {

enum class Shell { Bash, Zsh, Fish };

// A completion script: `scriptTemplate` (the shell's own logic, in packaging/completions/) with
// its @PLACEHOLDERS@ filled from the program's usage: its commands, its options, and what each
// operand and option value completes to. `error` says which placeholder is unknown, if one is.
QString completionScript(const Usage::ProgramUsage &usage, Shell shell, const QString &scriptTemplate,
                         QString *error);

} // namespace Tether::Docgen
