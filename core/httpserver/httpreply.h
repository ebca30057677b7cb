#pragma once

#include "httpheaders.h"

#include <QByteArray>

namespace Tether {

// A whole response as a value: what an admission function refuses a request with, and what an
// HttpServer answers a malformed request with. Content-Length, Connection and Date are the
// server's to set.
struct HttpReply
{
    int status = 200;
    HttpHeaders headers;
    QByteArray body;
    // A refusal that ends the connection (Connection: close), as one of who the peer is (a missing
    // or wrong token): what else it pipelined is not read.
    bool closeConnection = false;
};

} // namespace Tether
