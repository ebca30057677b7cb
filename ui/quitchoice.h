#pragma once

class QWidget;

namespace Tether {

// What becomes of the servers when the window that runs them quits: they go on in a headless
// Tether (tetherctl daemon), which tetherctl and a later window attach to, or they stop.
enum class QuitChoice { KeepRunning, Stop, Cancel };

// Asks, unless the user said before not to ask again (window.ini, [quit] servers=keep|stop).
QuitChoice askQuitChoice(QWidget *parent);
// The choice saved, without asking: Stop when there is none (a signal, a session that ends).
QuitChoice savedQuitChoice();

} // namespace Tether
