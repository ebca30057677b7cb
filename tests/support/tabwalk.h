#pragma once

#include <QAccessible>
#include <QApplication>
#include <QList>
#include <QStringList>
#include <QTest>
#include <QWidget>

namespace Tether::Testing {

// The controls Tab alone reaches in the shown, active `window`, in order, from the one that has
// the focus until the focus comes back to one already reached (or leaves the window).
inline QList<QWidget *> tabWalk(QWidget *window)
{
    QList<QWidget *> reached;
    for (QWidget *focus = QApplication::focusWidget(); focus && window->isAncestorOf(focus) && !reached.contains(focus);
         focus = QApplication::focusWidget()) {
        reached.append(focus);
        QTest::keyClick(focus, Qt::Key_Tab);
    }
    return reached;
}

// What keeps `window` from being used with the keyboard and a screen reader: a control Tab does
// not reach (one that is shown, enabled and takes the focus by Tab), or one reached that has no
// accessible name. Shows and activates the window first.
inline QStringList keyboardProblems(QWidget *window)
{
    using namespace Qt::StringLiterals;
    window->show();
    window->activateWindow();
    // Platforms that cannot activate windows (offscreen) leave the first one shown active.
    QApplication::setActiveWindow(window);
    if (!QTest::qWaitForWindowActive(window))
        return {u"the window does not become active"_s};
    const auto nameOf = [](const QWidget *widget) {
        return widget->objectName().isEmpty() ? QString::fromLatin1(widget->metaObject()->className())
                                              : widget->objectName();
    };
    const auto accessibleName = [](QWidget *widget) {
        QAccessibleInterface *accessible = QAccessible::queryAccessibleInterface(widget);
        return accessible ? accessible->text(QAccessible::Name).trimmed() : QString();
    };
    // A window just activated may not have taken the focus yet: it goes where Tab would first go.
    if (!window->isAncestorOf(QApplication::focusWidget())) {
        QWidget *first = window->nextInFocusChain();
        while (first != window && !((first->focusPolicy() & Qt::TabFocus) && first->isVisibleTo(window) && first->isEnabled()))
            first = first->nextInFocusChain();
        if (first != window)
            first->setFocus(Qt::TabFocusReason);
    }
    QStringList problems;
    const QList<QWidget *> reached = tabWalk(window);
    for (QWidget *focus : reached) {
        // A part that has no name of its own is named by the control it is the focus of (a spin
        // box's line edit).
        QWidget *control = focus;
        for (QWidget *parent = focus->parentWidget(); accessibleName(control).isEmpty() && parent && parent != window;
             parent = parent->parentWidget()) {
            if (parent->focusProxy() == focus)
                control = parent;
        }
        if (accessibleName(control).isEmpty())
            problems.append(u"%1 has no accessible name"_s.arg(nameOf(control)));
    }
    for (QWidget *widget : window->findChildren<QWidget *>()) {
        const bool tabbable = (widget->focusPolicy() & Qt::TabFocus) && !widget->focusProxy()
                              && widget->isVisibleTo(window) && widget->isEnabled();
        if (tabbable && !reached.contains(widget))
            problems.append(u"Tab does not reach %1"_s.arg(nameOf(widget)));
    }
    return problems;
}

} // namespace Tether::Testing
