#include "closenames.h"

#include <QList>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Tether {

int editDistance(QStringView a, QStringView b)
{
    QList<int> previous(b.size() + 1);
    QList<int> current(b.size() + 1);
    for (qsizetype j = 0; j <= b.size(); ++j)
        previous[j] = int(j);
    for (qsizetype i = 1; i <= a.size(); ++i) {
        current[0] = int(i);
        for (qsizetype j = 1; j <= b.size(); ++j) {
            const int substitution = previous[j - 1] + (a.at(i - 1).toLower() == b.at(j - 1).toLower() ? 0 : 1);
            current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
        }
        std::swap(previous, current);
    }
    return previous[b.size()];
}

bool isCloseName(QStringView typed, QStringView candidate)
{
    if (typed.isEmpty())
        return false;
    return editDistance(typed, candidate) <= std::max<qsizetype>(2, typed.size() / 3)
           || candidate.contains(typed, Qt::CaseInsensitive);
}

bool isLikelyTypo(QStringView key, QStringView name)
{
    if (key.size() == name.size() && key.size() >= 2) {
        // Neighbours swapped ("evn"): two edits for editDistance, one slip of the fingers.
        qsizetype first = 0;
        while (first < key.size() && key.at(first).toLower() == name.at(first).toLower())
            ++first;
        if (first + 1 < key.size() && key.at(first).toLower() == name.at(first + 1).toLower()
            && key.at(first + 1).toLower() == name.at(first).toLower()
            && key.sliced(first + 2).compare(name.sliced(first + 2), Qt::CaseInsensitive) == 0)
            return true;
    }
    return editDistance(key, name) <= (key.size() > 4 ? 2 : 1);
}

QStringList closeNames(QStringView typed, const QStringList &candidates, qsizetype limit)
{
    QList<std::pair<int, QString>> close;
    for (const QString &candidate : candidates) {
        if (isCloseName(typed, candidate))
            close.append({editDistance(typed, candidate), candidate});
    }
    std::stable_sort(close.begin(), close.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    QStringList names;
    for (qsizetype i = 0; i < std::min(limit, close.size()); ++i)
        names.append(close.at(i).second);
    return names;
}

QString didYouMean(const QStringList &names)
{
    if (names.isEmpty())
        return {};
    if (names.size() == 1)
        return u"; did you mean "_s + names.first() + u'?';
    return u"; did you mean "_s + names.first(names.size() - 1).join(u", "_s) + u" or "_s + names.last() + u'?';
}

} // namespace Tether
