#pragma once

#include "authmetadata.h"

#include <QObject>
#include <QPointer>
#include <QTimer>

#include <chrono>
#include <memory>

class QNetworkAccessManager;
class QNetworkReply;

namespace Tether {

class AuthDiscoverySteps;
struct BearerChallenge;

// Finds out what signing in to a server needs, after it asked with a challenge: carries out
// AuthDiscoverySteps over the network. Each url is fetched with a GET that follows redirects
// only within its origin, carries MCP-Protocol-Version when it goes to the server's own
// origin, and is given up after `requestTimeout` or past `maxDocumentBytes`.
class AuthDiscovery final : public QObject
{
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AuthDiscovery)

public:
    struct Options
    {
        std::chrono::milliseconds requestTimeout{15000};
        qsizetype maxDocumentBytes = 1024 * 1024;
    };

    explicit AuthDiscovery(QNetworkAccessManager *network, Options options, QObject *parent = nullptr);
    explicit AuthDiscovery(QNetworkAccessManager *network, QObject *parent = nullptr);
    ~AuthDiscovery() override;

    // Ends with found() or failed(), once; a second start() drops the first.
    void start(const QUrl &serverUrl, const BearerChallenge &challenge);

signals:
    void found(const Tether::SignInTarget &target);
    void failed(const QString &reason);

private:
    void fetchNext();
    void onFinished();
    void onTooLarge();
    void onTimeout();
    void dropReply();

    QNetworkAccessManager *m_network;
    Options m_options;
    std::unique_ptr<AuthDiscoverySteps> m_steps;
    QPointer<QNetworkReply> m_reply;
    QTimer m_deadline;
};

} // namespace Tether
