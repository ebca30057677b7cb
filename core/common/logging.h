#pragma once

#include <QString>
#include <QStringView>

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

// Lets spdlog format QString arguments directly: spdlog::warn("server '{}' ...", name).
template<>
struct fmt::formatter<QString> : fmt::formatter<std::string_view>
{
    template<typename FormatContext>
    auto format(const QString &text, FormatContext &context) const
    {
        const QByteArray utf8 = text.toUtf8();
        return fmt::formatter<std::string_view>::format(
            std::string_view(utf8.constData(), size_t(utf8.size())), context);
    }
};

namespace Tether {

enum class LogVerbosity { Normal, Verbose };

// Diagnostics of command-line tools go to stderr: errors only, or everything down to debug.
void configureCliLogging(LogVerbosity verbosity);

// The window's diagnostics: a rotating file in appLogFolder(), and stderr. Returns the file's path.
QString configureAppLogging();

// Where the window writes tether.log: the application data folder, ~/.local/share/tether.
QString appLogFolder();

} // namespace Tether
