#pragma once

#include "usage.h"

#include <QDate>
#include <QString>

namespace Tether::Docgen {

// The program's man page (section 1) as groff man source: NAME, SYNOPSIS, DESCRIPTION, COMMANDS,
// OPTIONS, the notes, EXIT STATUS, ENVIRONMENT, FILES, EXAMPLES and SEE ALSO.
QString manPage(const Usage::ProgramUsage &usage, const QString &version, QDate date);

} // namespace Tether::Docgen
