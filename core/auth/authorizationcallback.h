#pragma once

#include <QByteArrayView>
#include <QString>

namespace Tether {

// What the callback to the redirect URI must match: the request's `state` and, where the
// server says it sends one (RFC 9207 §3), its issuer as `iss`.
struct CallbackExpectation
{
    QString state;
    QString issuer;
    bool issuerRequired = false;
};

// The browser's answer at the redirect URI (RFC 6749 §4.1.2): the code, or why there is none.
struct AuthorizationCallback
{
    QString code;
    QString error; // for people; empty when there is a code

    // `query`: the callback URL's query as it came, form-encoded.
    static AuthorizationCallback parse(QByteArrayView query, const CallbackExpectation &expected);
};

} // namespace Tether
