#pragma once

#include <QStringList>

namespace Tether {

// The scopes of a sign-in after a server refused a request for want of scope (MCP 2025-11-25
// §Step-Up Authorization Flow), as plain values.

// What the step-up asks for: the scopes held (or asked for before), then those the server asks
// for that are not among them, without repeats.
QStringList stepUpScopes(const QStringList &held, const QStringList &asked);

// Whether signing in again can help: the server asks for a scope the last sign-in did not ask
// for. A server that refuses a token for scopes it was already asked for would refuse the next
// one too, and a sign-in per request would never end (§Scope Challenge Handling: retry limits).
bool stepUpCanHelp(const QStringList &askedAtLastSignIn, const QStringList &asked);

} // namespace Tether
