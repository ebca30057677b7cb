// tether-docgen: renders what the package installs besides the programs from the sources that the
// programs and the README share: the man pages and shell completions from app/usage/, the Debian
// changelog from CHANGELOG.md. Run by the build; not installed.
#include "changelog.h"
#include "manpage.h"
#include "shellcompletion.h"
#include "tetherctlusage.h"
#include "tetherusage.h"

#include <QCoreApplication>
#include <QFile>
#include <QSaveFile>
#include <QTextStream>

#include <optional>

using namespace Qt::StringLiterals;
using namespace Tether;

namespace {

constexpr char HowToRun[] = "usage: tether-docgen man tether|tetherctl CHANGELOG.md OUT\n"
                         "       tether-docgen completion bash|zsh|fish TEMPLATE OUT\n"
                         "       tether-docgen changelog CHANGELOG.md MAINTAINER OUT\n"
                         "       tether-docgen metainfo TEMPLATE CHANGELOG.md OUT\n";

int fail(const QString &message)
{
    QTextStream(stderr) << "tether-docgen: " << message << Qt::endl;
    return 1;
}

std::optional<QString> readText(const QString &path, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = u"cannot read %1: %2"_s.arg(path, file.errorString());
        return std::nullopt;
    }
    return QString::fromUtf8(file.readAll());
}

int writeText(const QString &path, const QString &text)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(text.toUtf8()) < 0 || !file.commit())
        return fail(u"cannot write %1: %2"_s.arg(path, file.errorString()));
    return 0;
}

// The releases of the changelog, the latest of which must be this build's version: the package
// and its man pages take their version from the build and their date from that entry.
std::optional<QList<Docgen::Release>> releasesOf(const QString &changelogPath, QString *error)
{
    const std::optional<QString> markdown = readText(changelogPath, error);
    if (!markdown)
        return std::nullopt;
    const QList<Docgen::Release> releases = Docgen::parseChangelog(*markdown, error);
    if (releases.isEmpty()) {
        *error = changelogPath + u": "_s + *error;
        return std::nullopt;
    }
    if (releases.first().version != QLatin1StringView(TETHER_VERSION)) {
        *error = u"%1: the latest release is %2 but Tether's version (project() in CMakeLists.txt) is %3; add an "
                 "entry '## [%3] - YYYY-MM-DD' saying what changed"_s.arg(changelogPath, releases.first().version,
                                                                            QStringLiteral(TETHER_VERSION));
        return std::nullopt;
    }
    return releases;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const QStringList arguments = QCoreApplication::arguments().mid(1);
    if (arguments.size() != 4) {
        QTextStream(stderr) << HowToRun;
        return 2;
    }
    const QString &what = arguments.at(0);
    const QString &out = arguments.at(3);
    QString error;

    if (what == u"man") {
        const Usage::ProgramUsage *usage = arguments.at(1) == u"tether"      ? &Usage::tetherUsage()
                                           : arguments.at(1) == u"tetherctl" ? &Usage::tetherctlUsage()
                                                                             : nullptr;
        if (!usage)
            return fail(u"no usage of a program named '%1'"_s.arg(arguments.at(1)));
        const std::optional<QList<Docgen::Release>> releases = releasesOf(arguments.at(2), &error);
        if (!releases)
            return fail(error);
        return writeText(out, Docgen::manPage(*usage, QStringLiteral(TETHER_VERSION), releases->first().date));
    }
    if (what == u"completion") {
        const QMap<QString, Docgen::Shell> shells{
            {u"bash"_s, Docgen::Shell::Bash}, {u"zsh"_s, Docgen::Shell::Zsh}, {u"fish"_s, Docgen::Shell::Fish}};
        if (!shells.contains(arguments.at(1)))
            return fail(u"no completion for a shell named '%1'"_s.arg(arguments.at(1)));
        const std::optional<QString> scriptTemplate = readText(arguments.at(2), &error);
        if (!scriptTemplate)
            return fail(error);
        const QString script =
            Docgen::completionScript(Usage::tetherctlUsage(), shells.value(arguments.at(1)), *scriptTemplate, &error);
        if (!error.isEmpty())
            return fail(arguments.at(2) + u": "_s + error);
        return writeText(out, script);
    }
    if (what == u"changelog") {
        const std::optional<QList<Docgen::Release>> releases = releasesOf(arguments.at(1), &error);
        if (!releases)
            return fail(error);
        return writeText(out, Docgen::debianChangelog(*releases, u"tether"_s, arguments.at(2)));
    }
    if (what == u"metainfo") {
        const std::optional<QString> metainfo = readText(arguments.at(1), &error);
        if (!metainfo)
            return fail(error);
        if (!metainfo->contains(u"<releases/>"))
            return fail(arguments.at(1) + u": there is no <releases/> to fill in"_s);
        const std::optional<QList<Docgen::Release>> releases = releasesOf(arguments.at(2), &error);
        if (!releases)
            return fail(error);
        return writeText(out, QString(*metainfo).replace(u"<releases/>"_s, Docgen::appStreamReleases(*releases)));
    }
    QTextStream(stderr) << HowToRun;
    return 2;
}
