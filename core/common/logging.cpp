#include "logging.h"

#include "displaytext.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <sys/stat.h>

namespace Tether {

namespace {

// Log lines quote what servers write: a control character among them would reach the terminal
// (or `cat tether.log`) raw, and a line break would forge a line of its own.
class VisibleControlsFormatter final : public spdlog::formatter
{
public:
    explicit VisibleControlsFormatter(std::unique_ptr<spdlog::formatter> inner)
        : m_inner(std::move(inner))
    {
    }

    void format(const spdlog::details::log_msg &message, spdlog::memory_buf_t &destination) override
    {
        const QByteArray payload = QByteArray::fromRawData(message.payload.data(), qsizetype(message.payload.size()));
        const QByteArray shown = withVisibleControls(QString::fromUtf8(payload)).toUtf8();
        if (shown == payload) {
            m_inner->format(message, destination);
            return;
        }
        spdlog::details::log_msg visible = message;
        visible.payload = spdlog::string_view_t(shown.constData(), size_t(shown.size()));
        m_inner->format(visible, destination);
    }

    std::unique_ptr<spdlog::formatter> clone() const override
    {
        return std::make_unique<VisibleControlsFormatter>(m_inner->clone());
    }

private:
    std::unique_ptr<spdlog::formatter> m_inner;
};

std::unique_ptr<spdlog::formatter> formatterFor(std::unique_ptr<spdlog::formatter> pattern)
{
    return std::make_unique<VisibleControlsFormatter>(std::move(pattern));
}

constexpr QFileDevice::Permissions OwnerOnlyFolder = QFileDevice::ReadOwner | QFileDevice::WriteOwner
                                                     | QFileDevice::ExeOwner;
constexpr QFileDevice::Permissions OwnerOnlyFile = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
constexpr std::size_t LogFileCount = 3;

} // namespace

void configureCliLogging(LogVerbosity verbosity)
{
    auto logger = spdlog::stderr_color_mt("tether");
    logger->set_formatter(formatterFor(std::make_unique<spdlog::pattern_formatter>("%^%l%$: %v")));
    switch (verbosity) {
    case LogVerbosity::Normal: logger->set_level(spdlog::level::err); break;
    case LogVerbosity::Verbose: logger->set_level(spdlog::level::debug); break;
    }
    spdlog::set_default_logger(std::move(logger));
}

QString configureAppLogging()
{
    // The log quotes what servers say: it is the user's alone, whatever the umask, also when the
    // folder or the files were made before with a wider mode.
    const QString folder = appLogFolder();
    QDir().mkpath(folder);
    QFile::setPermissions(folder, OwnerOnlyFolder);
    const QString path = folder + QStringLiteral("/tether.log");
    for (std::size_t index = 1; index <= LogFileCount; ++index) {
        const QString rotated = QString::fromStdString(
            spdlog::sinks::rotating_file_sink_mt::calc_filename(path.toStdString(), index));
        if (QFile::exists(rotated))
            QFile::setPermissions(rotated, OwnerOnlyFile);
    }
    spdlog::file_event_handlers handlers;
    // Every opening: the first, and the fresh file after each rotation (older ones are renamed).
    handlers.after_open = [](const spdlog::filename_t &, std::FILE *file) {
        ::fchmod(::fileno(file), S_IRUSR | S_IWUSR);
    };

    std::vector<spdlog::sink_ptr> sinks{std::make_shared<spdlog::sinks::stderr_color_sink_mt>()};
    try {
        // Bounded: three files of 5 MiB at most.
        sinks.push_back(std::make_shared<spdlog::sinks::rotating_file_sink_mt>(path.toStdString(), 5 * 1024 * 1024,
                                                                               LogFileCount, false, handlers));
    } catch (const spdlog::spdlog_ex &error) {
        spdlog::warn("cannot write the log file {}: {}", path, error.what());
    }
    auto logger = std::make_shared<spdlog::logger>("tether", sinks.begin(), sinks.end());
    logger->set_formatter(formatterFor(std::make_unique<spdlog::pattern_formatter>()));
    logger->set_level(spdlog::level::info);
    logger->flush_on(spdlog::level::info);
    spdlog::set_default_logger(std::move(logger));
    return path;
}

QString appLogFolder()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
}

} // namespace Tether
