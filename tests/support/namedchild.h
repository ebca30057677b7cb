#pragma once

#include <QObject>
#include <QString>

namespace Tether::Testing {

// The child of `parent`, at any depth, of type T with the objectName `name`. One that is missing
// ends the test with its name: every check after it would only crash on a null pointer.
template <typename T>
T *namedChild(const QObject &parent, const QString &name)
{
    T *found = parent.findChild<T *>(name);
    if (!found)
        qFatal("%s has no %s named \"%s\"", parent.metaObject()->className(), T::staticMetaObject.className(),
               qPrintable(name));
    return found;
}

} // namespace Tether::Testing
