#pragma once

#include "authmetadata.h"
#include "discoveryrules.h"

#include "transport/bearerchallenge.h"

#include <QByteArrayView>
#include <QList>
#include <QString>
#include <QUrl>

#include <optional>

namespace Tether {

// The decisions of discovery for one server that asked for sign-in, as plain values: which
// url to fetch next, what each answer means, and when it is over (design 15 §2.1):
//   Protected Resource Metadata at A0–A2 → for each authorization server it names, its
//   metadata at B1–B3 → found;
//   no Protected Resource Metadata at all → metadata at the server's origin (MCP 2025-03-26)
//   → found; every url answered 404 → the default endpoints at the origin (MCP 2025-03-26
//   §Fallbacks for Servers without Metadata Discovery); else failed naming every url tried.
// AuthDiscovery carries it out over the network.
class AuthDiscoverySteps final
{
public:
    AuthDiscoverySteps(const QUrl &serverUrl, const BearerChallenge &challenge);

    // The url to fetch now; empty once discovery is over.
    QUrl next() const;
    // The HTTP answer to next(): its status (a 3xx is a redirect that was not followed) and body.
    void answered(int status, QByteArrayView body);
    // next() could not be fetched (network failure, timeout): discovery fails with `reason`.
    void unreachable(const QString &reason);

    bool isOver() const { return m_phase == Phase::Over; }
    const std::optional<SignInTarget> &target() const { return m_target; } // once over, when found
    const QString &failure() const { return m_failure; }                   // once over, when not found
    const QUrl &serverUrl() const { return m_serverUrl; }

private:
    enum class Phase { ResourceMetadata, AuthServer, ServerOrigin, Over };

    // Whether the document is the one this phase looked for (and the next phase began);
    // else `*refusal` says why it is not used, empty when it is no JSON object.
    bool readResourceMetadata(QByteArrayView body, const QUrl &url, QString *refusal);
    bool readAuthServerMetadata(QByteArrayView body, const QUrl &url, QString *refusal);
    void advance();
    void startAuthServer(qsizetype issuerIndex);
    void finish(const SignInTarget &target);
    void fail(const QString &reason);

    QUrl m_serverUrl;
    BearerChallenge m_challenge;
    Phase m_phase = Phase::ResourceMetadata;
    QList<QUrl> m_urls; // of this phase, fetched in order
    qsizetype m_at = 0;
    QList<TriedUrl> m_triedForServer; // Protected Resource Metadata and the server's origin
    QList<TriedUrl> m_triedForIssuer; // the current authorization server's
    QString m_firstRefusal;           // of this phase: a document found but not used, and why
    bool m_onlyNotFound = true;       // every url of the server and its origin answered 404
    std::optional<ProtectedResourceMetadata> m_resource;
    qsizetype m_issuerIndex = 0;
    QStringList m_issuerFailures;
    std::optional<SignInTarget> m_target;
    QString m_failure;
};

} // namespace Tether
