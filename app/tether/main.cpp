#include "mainwindow.h"

#include <QApplication>

using namespace Qt::StringLiterals;

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(u"tether"_s);
    QApplication::setApplicationDisplayName(u"Tether"_s);
    QApplication::setApplicationVersion(QStringLiteral(TETHER_VERSION));

    Tether::MainWindow window;
    window.show();
    return QApplication::exec();
}
