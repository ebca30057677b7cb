#include "jsontextstyle.h"

namespace Tether {

JsonTextStyle jsonTextStyleOf(QByteArrayView text, const JsonTextStyle &fallback)
{
    JsonTextStyle style = fallback;
    const qsizetype firstNewline = text.indexOf('\n');
    if (firstNewline < 0)
        return style;
    style.newline = firstNewline > 0 && text.at(firstNewline - 1) == '\r' ? "\r\n" : "\n";
    for (qsizetype lineStart = firstNewline + 1; lineStart > 0 && lineStart < text.size();) {
        qsizetype at = lineStart;
        while (at < text.size() && (text.at(at) == ' ' || text.at(at) == '\t'))
            ++at;
        if (at > lineStart && at < text.size() && text.at(at) != '\r' && text.at(at) != '\n') {
            style.indentUnit = text.sliced(lineStart, at - lineStart).toByteArray();
            break;
        }
        const qsizetype next = text.indexOf('\n', lineStart);
        lineStart = next < 0 ? -1 : next + 1;
    }
    return style;
}

} // namespace Tether
