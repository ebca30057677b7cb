#include "quitchoice.h"

#include "mainwindow.h"

#include <QCheckBox>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

const QString SettingKey = u"quit/servers"_s;

} // namespace

QuitChoice savedQuitChoice()
{
    return MainWindow::windowSettings().value(SettingKey).toString() == u"keep" ? QuitChoice::KeepRunning : QuitChoice::Stop;
}

QuitChoice askQuitChoice(QWidget *parent)
{
    const QString saved = MainWindow::windowSettings().value(SettingKey).toString();
    if (saved == u"keep")
        return QuitChoice::KeepRunning;
    if (saved == u"stop")
        return QuitChoice::Stop;
    QMessageBox box(QMessageBox::Question, QObject::tr("Quit Tether"),
                    QObject::tr("Keep the servers running without the window?"), QMessageBox::NoButton, parent);
    box.setInformativeText(QObject::tr("A headless Tether (tetherctl daemon) runs them from now on: AI clients, "
                                       "tetherctl and the window when it opens again use it. The servers start again "
                                       "there."));
    QPushButton *keep = box.addButton(QObject::tr("&Keep them running"), QMessageBox::AcceptRole);
    QPushButton *stop = box.addButton(QObject::tr("&Stop them"), QMessageBox::DestructiveRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(stop);
    auto *remember = new QCheckBox(QObject::tr("&Do not ask again"), &box);
    box.setCheckBox(remember);
    box.exec();
    const QuitChoice choice = box.clickedButton() == keep   ? QuitChoice::KeepRunning
                              : box.clickedButton() == stop ? QuitChoice::Stop
                                                            : QuitChoice::Cancel;
    if (choice != QuitChoice::Cancel && remember->isChecked())
        MainWindow::windowSettings().setValue(SettingKey, choice == QuitChoice::KeepRunning ? u"keep"_s : u"stop"_s);
    return choice;
}

} // namespace Tether
