#include "commandline.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Tether {

SplitCommandLine splitCommandLine(QStringView line)
{
    SplitCommandLine split;
    QString word;
    bool inWord = false;
    enum class Quote { None, Single, Double } quote = Quote::None;

    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line.at(i);
        switch (quote) {
        case Quote::Single:
            if (c == u'\'')
                quote = Quote::None;
            else
                word += c;
            break;
        case Quote::Double:
            if (c == u'"') {
                quote = Quote::None;
            } else if (c == u'\\' && i + 1 < line.size()
                       && QStringView(u"\"\\$`").contains(line.at(i + 1))) {
                word += line.at(++i);
            } else {
                word += c;
            }
            break;
        case Quote::None:
            if (c == u' ' || c == u'\t' || c == u'\n') {
                if (inWord) {
                    split.words.append(word);
                    word.clear();
                    inWord = false;
                }
            } else if (c == u'\'') {
                quote = Quote::Single;
                inWord = true;
            } else if (c == u'"') {
                quote = Quote::Double;
                inWord = true;
            } else if (c == u'\\') {
                if (i + 1 == line.size()) {
                    split.error = QStringLiteral("the command line ends with a lone backslash");
                    return split;
                }
                word += line.at(++i);
                inWord = true;
            } else {
                word += c;
                inWord = true;
            }
            break;
        }
    }
    if (quote != Quote::None) {
        split.error = quote == Quote::Single
                          ? QStringLiteral("the command line has an unterminated ' quote")
                          : QStringLiteral("the command line has an unterminated \" quote");
        return split;
    }
    if (inWord)
        split.words.append(word);
    if (split.words.isEmpty())
        split.error = QStringLiteral("the command line is empty");
    return split;
}

QString joinCommandLine(const QStringList &words)
{
    QStringList quoted;
    for (const QString &word : words) {
        const bool plain = !word.isEmpty() && std::all_of(word.begin(), word.end(), [](QChar c) {
            return c.isLetterOrNumber() || QStringView(u"-_./=:,@%+").contains(c);
        });
        quoted.append(plain ? word : u'\'' + QString(word).replace(u"'"_s, u"'\\''"_s) + u'\'');
    }
    return quoted.join(u' ');
}

} // namespace Tether
