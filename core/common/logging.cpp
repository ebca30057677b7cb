#include "logging.h"

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

} // namespace Tether
