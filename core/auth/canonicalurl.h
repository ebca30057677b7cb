#pragma once

#include <QString>
#include <QUrl>

namespace Tether {

// An MCP server's canonical URI (MCP 2025-11-25 §Canonical Server URI, RFC 8707 §2): scheme
// and host in lower case, no default port, no user info, query or fragment, no trailing '/'
// unless the path is '/'. The `resource` of a server without Protected Resource Metadata, and
// the key its sign-in is kept under, so that every way of naming the same url shares it.
QString canonicalResourceUrl(const QUrl &serverUrl);

// Whether `url` reaches this machine only (127.0.0.0/8, ::1, localhost).
bool isLoopbackUrl(const QUrl &url);

} // namespace Tether
