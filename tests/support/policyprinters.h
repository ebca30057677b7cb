#pragma once

#include "config/policy.h"

#include <QJsonDocument>
#include <QTest>

namespace Tether {

// Readable QCOMPARE failures for the policy structs (found by argument-dependent lookup).
inline char *toString(const ReconnectPolicy &policy)
{
    return qstrdup(QJsonDocument(toJson(policy)).toJson(QJsonDocument::Compact).constData());
}

inline char *toString(const HeartbeatPolicy &policy)
{
    return qstrdup(QJsonDocument(toJson(policy)).toJson(QJsonDocument::Compact).constData());
}

} // namespace Tether
