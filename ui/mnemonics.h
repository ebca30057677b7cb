#pragma once

#include <QChar>
#include <QList>
#include <QString>

class QWidget;

namespace Tether {

// Keyboard mnemonics: the letter after '&' in a label or button that Alt reaches it with.
struct Mnemonic
{
    QChar letter; // lower case
    QString text; // the text it is in
};

// The mnemonic letter of `text`, lower case; null when it has none ("&&" is a literal '&').
QChar mnemonicOf(const QString &text);

// The mnemonics `root` and its children offer: their buttons, group boxes and labels that have
// a buddy, one entry for each.
QList<Mnemonic> mnemonicsIn(const QWidget *root);

// `text` as a label shows it without a mnemonic: a '&' in it (from a server, say) shown as is.
QString withoutMnemonic(const QString &text);

// `text` (which may come from a server: a '&' in it is shown as is) with a mnemonic on its first
// letter or digit that `taken` does not hold, which then holds it too. Without a free letter the
// text gets none.
QString withMnemonic(const QString &text, QString *taken);

} // namespace Tether
