#pragma once

#include <QString>
#include <QStringList>
#include <QStringView>

// What a mistyped name probably meant: a command, a server, a tool.
namespace Tether {

// The edits (insert, delete, replace a character; case ignored) that turn `a` into `b`.
int editDistance(QStringView a, QStringView b);

// Whether `candidate` is a typo away from `typed`: a few edits (two, or a third of its length
// when longer), or it contains `typed` as it is.
bool isCloseName(QStringView typed, QStringView candidate);

// Whether `key` is most likely `name` mistyped: one edit away (two when it is longer than four
// characters), or two neighbouring characters swapped. Stricter than isCloseName, for warnings
// nobody asked for: another program's own short keys ("id") are not taken for typos of "cwd".
bool isLikelyTypo(QStringView key, QStringView name);

// The names of `candidates` close to `typed`, the closest first (ties in their order), at most
// `limit` of them.
QStringList closeNames(QStringView typed, const QStringList &candidates, qsizetype limit = 5);

// "; did you mean status?", "; did you mean echo or add?": the suggestion a message ends with,
// empty when there is none.
QString didYouMean(const QStringList &names);

} // namespace Tether
