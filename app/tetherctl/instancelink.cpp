#include "instancelink.h"

#include "exitstatus.h"
#include "interruption.h"
#include "output.h"

#include "control/controlprotocol.h"

#include <QCoreApplication>

using namespace Qt::StringLiterals;

namespace Tether::Ctl {

InstanceLink linkToInstance(const ConfigOptions &options)
{
    const QString configPath = configSavePath(options.source);
    Attachment attachment = attachToInstance(configPath, QCoreApplication::applicationName());
    if (attachment.client)
        return {std::move(attachment.client), false};
    if (!attachment.why.isEmpty()) {
        printError(attachment.why);
        return {nullptr, true};
    }
    return {};
}

void sayNoInstanceRuns(const ConfigOptions &options)
{
    printNote(u"tetherctl: no Tether runs %1, so this command runs its servers until it ends "
              "(start one with `tetherctl daemon` or the window)"_s.arg(configSavePath(options.source)));
}

std::optional<ControlReply> askInstanceForReply(ControlClient &client, QStringView method, const QJsonObject &params,
                                                int *exitStatus, std::chrono::milliseconds timeout)
{
    Interruption interruption;
    QObject::connect(&interruption, &Interruption::interrupted, &client,
                     [&] { client.close(u"tetherctl was "_s + interruption.reason()); });
    ControlReply reply = client.requestAndWait(method, params, timeout);
    if (reply.error && reply.error->code == Control::NoAnswerInTime && client.isConnected()) {
        // Given up on: the instance cancels what it does for it once the connection ends.
        const QString why = u"no answer within %1 ms (--timeout-ms)"_s.arg(timeout.count());
        client.close(u"tetherctl gave up: "_s + why);
        reply.error->message = why;
        return reply;
    }
    if (const std::optional<int> interrupted = interruption.exitStatus()) {
        *exitStatus = *interrupted;
        return std::nullopt;
    }
    if (!client.isConnected()) {
        printError(reply.error ? reply.error->message : u"the Tether that runs the config has gone"_s);
        *exitStatus = NoInstance;
        return std::nullopt;
    }
    return reply;
}

std::optional<QJsonObject> askInstance(ControlClient &client, QStringView method, const QJsonObject &params,
                                       const QString &what, int *exitStatus)
{
    const std::optional<ControlReply> reply = askInstanceForReply(client, method, params, exitStatus);
    if (!reply)
        return std::nullopt;
    if (reply->error) {
        printError(what.isEmpty() ? reply->error->message : what + u": "_s + reply->error->message);
        *exitStatus = Failure;
        return std::nullopt;
    }
    return reply->result;
}

} // namespace Tether::Ctl
