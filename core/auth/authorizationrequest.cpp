#include "authorizationrequest.h"

#include "formencoding.h"

using namespace Qt::StringLiterals;

namespace Tether {

QUrl AuthorizationRequest::url() const
{
    FormFields fields{{u"response_type"_s, u"code"_s},
                      {u"client_id"_s, clientId},
                      {u"redirect_uri"_s, redirectUri.toString(QUrl::FullyEncoded)}};
    if (!scopes.isEmpty())
        fields.append({u"scope"_s, scopes.join(u' ')});
    fields.append({{u"state"_s, state}, {u"code_challenge"_s, codeChallenge}, {u"code_challenge_method"_s, u"S256"_s}});
    if (!resource.isEmpty())
        fields.append({u"resource"_s, resource});
    QUrl url = authorizationEndpoint;
    const QString existing = url.query(QUrl::FullyEncoded);
    const QString added = QString::fromLatin1(formEncoded(fields));
    url.setQuery(existing.isEmpty() ? added : existing + u'&' + added, QUrl::StrictMode);
    return url;
}

} // namespace Tether
