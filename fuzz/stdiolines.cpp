#include "fuzzentries.h"
#include "fuzzinput.h"

#include "common/jsonscan.h"
#include "protocol/jsonrpc.h"
#include "transport/lineframer.h"

#include <QJsonArray>
#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace Tether::Fuzz {

namespace {

// What differs between the members the scan found and those of the object the parser made.
QString differentMembers(const JsonMembersText &members, const QJsonObject &object)
{
    if (object.size() != members.size())
        return u"the scan finds %1 members where the parser finds %2"_s.arg(members.size()).arg(object.size());
    for (const JsonMemberText &member : members) {
        const QJsonDocument value = QJsonDocument::fromJson("[" + member.value.toByteArray() + "]");
        if (!value.isArray() || value.array().first() != object.value(QString::fromUtf8(member.key)))
            return u"the scan gives member '%1' another value than the parser"_s.arg(QString::fromUtf8(member.key));
    }
    return {};
}

} // namespace

// What the stdio transport does with its stdout: frame lines, decode each, classify each message;
// and the scan that reads a reply without parsing it, which may refuse what the parser takes but
// never take what the parser refuses, nor give other members than it does.
QString stdioLines(QByteArrayView input)
{
    const StreamInput split = streamInput(input);
    const qsizetype maxLineBytes = split.smallBounds ? 64 : LineFramer::DefaultMaxLineBytes;
    LineFramer whole(maxLineBytes);
    const QList<QByteArray> lines = whole.push(split.stream);
    LineFramer inPieces(maxLineBytes);
    QList<QByteArray> linesOfPieces;
    for (const QByteArrayView piece : pieces(split))
        linesOfPieces += inPieces.push(piece);
    if (linesOfPieces != lines || inPieces.overflowed() != whole.overflowed())
        return u"the stream gives other lines in pieces of %1 bytes than in one read"_s.arg(split.pieceBytes);

    for (const QByteArray &line : lines) {
        if (line.contains('\n') || line.trimmed().isEmpty())
            return u"the framer gave a line that holds a newline or is blank"_s;
        const JsonRpc::DecodedPayload decoded = JsonRpc::decodePayload(line);
        if (decoded.messages.isEmpty() == decoded.error.isEmpty())
            return u"a decoded line has messages and an error, or neither"_s;
        const std::optional<JsonMembersText> members = validJsonObjectMembers(line);
        if (members) {
            if (!decoded.error.isEmpty() || decoded.text.isEmpty())
                return u"the scan takes a line that the parser refuses as an object: "_s + decoded.error;
            if (const QString wrong = differentMembers(*members, decoded.messages.first()); !wrong.isEmpty())
                return wrong;
        }
        // Read in the same pass, a member's object (a reply's result, a request's params) has the
        // members the parser finds in it.
        for (const QByteArrayView nestedKey : {QByteArrayView("result"), QByteArrayView("params")}) {
            JsonMembersText nested;
            const std::optional<JsonMembersText> outer = validJsonObjectMembers(line, nestedKey, &nested);
            if (outer && !members)
                return u"the scan takes a line with its '%1' that it refuses without"_s.arg(QString::fromLatin1(nestedKey));
            const QJsonValue expected = outer ? decoded.messages.first().value(QString::fromLatin1(nestedKey)) : QJsonValue();
            if (!expected.isObject()) {
                if (!nested.isEmpty())
                    return u"the scan gives members of '%1', which is no object"_s.arg(QString::fromLatin1(nestedKey));
                continue;
            }
            if (const QString wrong = differentMembers(nested, expected.toObject()); !wrong.isEmpty())
                return u"in '%1': "_s.arg(QString::fromLatin1(nestedKey)) + wrong;
        }
        for (const QJsonObject &object : decoded.messages) {
            const JsonRpc::Message message = JsonRpc::classify(object);
            if ((message.kind == JsonRpc::MessageKind::Invalid) == message.invalidReason.isEmpty())
                return u"a message is invalid without a reason, or has a reason and is valid"_s;
        }
    }
    return {};
}

} // namespace Tether::Fuzz
