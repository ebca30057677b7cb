#include "logging.h"

#include <QDir>
#include <QStandardPaths>

#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

namespace Tether {

void configureCliLogging(LogVerbosity verbosity)
{
    auto logger = spdlog::stderr_color_mt("tether");
    logger->set_pattern("%^%l%$: %v");
    switch (verbosity) {
    case LogVerbosity::Normal: logger->set_level(spdlog::level::err); break;
    case LogVerbosity::Verbose: logger->set_level(spdlog::level::debug); break;
    }
    spdlog::set_default_logger(std::move(logger));
}

QString configureAppLogging()
{
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    QDir().mkpath(folder);
    const QString path = folder + QStringLiteral("/tether.log");
    std::vector<spdlog::sink_ptr> sinks{std::make_shared<spdlog::sinks::stderr_color_sink_mt>()};
    try {
        // Bounded: three files of 5 MiB at most.
        sinks.push_back(std::make_shared<spdlog::sinks::rotating_file_sink_mt>(path.toStdString(), 5 * 1024 * 1024, 3));
    } catch (const spdlog::spdlog_ex &error) {
        spdlog::warn("cannot write the log file {}: {}", path, error.what());
    }
    auto logger = std::make_shared<spdlog::logger>("tether", sinks.begin(), sinks.end());
    logger->set_level(spdlog::level::info);
    logger->flush_on(spdlog::level::info);
    spdlog::set_default_logger(std::move(logger));
    return path;
}

} // namespace Tether
