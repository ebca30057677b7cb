#include "fuzzentries.h"
#include "fuzzinput.h"

#include "protocol/jsonrpc.h"
#include "transport/sseparser.h"

using namespace Qt::StringLiterals;

namespace Tether::Fuzz {

static bool sameEvents(const QList<SseEvent> &a, const QList<SseEvent> &b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const SseEvent &x, const SseEvent &y) {
        return x.type == y.type && x.data == y.data && x.id == y.id;
    });
}

// What the HTTP transports do with an event stream: parse events, decode and classify the
// data of each message event.
QString sseStream(QByteArrayView input)
{
    const StreamInput split = streamInput(input);
    const qsizetype maxEventBytes = split.smallBounds ? 64 : SseParser::DefaultMaxEventBytes;
    SseParser whole(maxEventBytes);
    const QList<SseEvent> events = whole.push(split.stream);
    SseParser inPieces(maxEventBytes);
    QList<SseEvent> eventsOfPieces;
    for (const QByteArrayView piece : pieces(split))
        eventsOfPieces += inPieces.push(piece);
    if (!sameEvents(eventsOfPieces, events) || inPieces.lastEventId() != whole.lastEventId()
        || inPieces.retry() != whole.retry() || inPieces.overflowed() != whole.overflowed())
        return u"the stream gives other events in pieces of %1 bytes than in one read"_s.arg(split.pieceBytes);

    for (const SseEvent &event : events) {
        if (event.data.isEmpty() || event.type != "message")
            continue;
        const JsonRpc::DecodedPayload decoded = JsonRpc::decodePayload(event.data);
        for (const QJsonObject &object : decoded.messages)
            JsonRpc::classify(object);
    }
    return {};
}

} // namespace Tether::Fuzz
