#include "configinstance.h"

#include "instancecontrol.h"

#include "auth/signinservice.h"
#include "gateway/gatewayinstance.h"

namespace Tether {

ConfigInstance::ConfigInstance(const ConfigSource &source, Options options, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
    , m_config(source, programConfigContext())
    , m_control(std::make_unique<InstanceControl>(m_manager, m_options.kind, [this] { return m_config.reload(); }))
    , m_gateway(m_manager)
{
    if (m_options.adjustment)
        m_config.setAdjustment(m_options.adjustment);
    m_gateway.setLocalService(m_control.get());
    connect(&m_config, &ConfigStore::documentChanged, this, &ConfigInstance::apply);
    connect(&m_manager, &ServerManager::allStopped, this, &ConfigInstance::finishStopping);
}

ConfigInstance::~ConfigInstance() = default;

bool ConfigInstance::claim(qint64 *holder, QString *error)
{
    m_claim = InstanceClaim::claim(configPath(), holder, error);
    return m_claim != nullptr;
}

void ConfigInstance::releaseClaim()
{
    m_claim.reset();
}

void ConfigInstance::start()
{
    m_config.load(ConfigStore::FileChanges::Follow);
}

void ConfigInstance::apply(const ConfigDocument &document)
{
    if (m_stopping)
        return;
    // Where tokens are kept is read once, from the first document; its servers already sign in.
    if (!m_signIn && m_options.signIn) {
        m_signIn = m_options.signIn(document.oauthDefaults.tokenStore);
        m_manager.setSignIn(m_signIn.get());
    }
    m_manager.applyConfig(document);
    // The built-in demo's token and record are kept where the user's file would be.
    m_gateway.applyConfig(m_options.gateway ? m_options.gateway(document.gateway) : document.gateway, configPath());
}

void ConfigInstance::stop()
{
    if (std::exchange(m_stopping, true))
        return;
    m_gateway.close(); // the hosts' sessions end, and so does the instance record
    m_manager.stopAll();
    if (m_manager.isAllStopped())
        QMetaObject::invokeMethod(this, &ConfigInstance::finishStopping, Qt::QueuedConnection);
}

void ConfigInstance::finishStopping()
{
    if (m_stopping && !std::exchange(m_stoppedSaid, true))
        emit stopped();
}

} // namespace Tether
