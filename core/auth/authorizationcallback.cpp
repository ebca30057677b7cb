#include "authorizationcallback.h"

#include "formencoding.h"

#include "common/displaytext.h"

using namespace Qt::StringLiterals;

namespace Tether {

static QString shownParameter(const QString &value)
{
    return withVisibleControls(value.left(200));
}

AuthorizationCallback AuthorizationCallback::parse(QByteArrayView query, const CallbackExpectation &expected)
{
    const FormFields fields = formDecoded(query);
    const auto value = [&fields](const QString &key) { return formValue(fields, key); };
    const auto has = [&fields](const QString &key) {
        bool found = false;
        formValue(fields, key, &found);
        return found;
    };
    // The state first: an answer to a request Tether did not send is not to be believed, errors included.
    if (!has(u"state"_s) || value(u"state"_s) != expected.state)
        return {{},
                u"the sign-in callback carried a state Tether did not send (a stale or forged sign-in link); "
                "nothing was done; sign in again"_s};
    // RFC 9207 §2.4: the issuer is checked before the rest of the answer, error answers included.
    if (has(u"iss"_s) || expected.issuerRequired) {
        if (!has(u"iss"_s))
            return {{},
                    u"the sign-in callback did not say which authorization server sent it, though %1 says it always "
                    "does (RFC 9207); nothing was done; sign in again"_s.arg(expected.issuer)};
        if (value(u"iss"_s) != expected.issuer)
            return {{},
                    u"the sign-in callback came from the authorization server %1, not from %2 where Tether sent you "
                    "(a mix-up or a forged sign-in link); nothing was done; sign in again"_s.arg(
                        shownParameter(value(u"iss"_s)), expected.issuer)};
    }
    if (has(u"error"_s)) {
        const QString description = value(u"error_description"_s);
        return {{},
                u"the authorization server refused: %1%2"_s.arg(
                    shownParameter(value(u"error"_s)),
                    description.isEmpty() ? QString() : u" ("_s + shownParameter(description) + u')')};
    }
    const QString code = value(u"code"_s);
    if (code.isEmpty())
        return {{}, u"the sign-in callback carried no authorization code and no error; sign in again"_s};
    return {code, {}};
}

} // namespace Tether
