#include "mainwindow.h"

#include <QLabel>

using namespace Qt::StringLiterals;

namespace Tether {

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
{
    setWindowTitle(u"Tether"_s);
    auto *placeholder = new QLabel(tr("No servers are supervised yet."), this);
    placeholder->setAlignment(Qt::AlignCenter);
    setCentralWidget(placeholder);
    resize(900, 560);
}

} // namespace Tether
