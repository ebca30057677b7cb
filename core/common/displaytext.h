#pragma once

#include <QByteArrayView>
#include <QJsonValue>
#include <QString>
#include <QStringList>

// Text as Tether shows it to people: in messages, the window and the log.
namespace Tether {

// A short, single-line excerpt of raw input for error messages.
QString excerpt(QByteArrayView bytes, qsizetype maxChars = 80);

// A url as messages may show it: user info and query values become "…" unless they are
// ${env:…} references, which show as written.
QString redactedUrl(const QString &url);

// "SIGKILL", or "signal 64" for a number without a name.
QString signalName(int signalNumber);

enum class LineBreaks { Escape, Keep };

// Text from a server as a terminal or a log may show it: control characters (ESC, CR, BEL,
// DEL, the C1 controls) become visible escapes such as "\x1b" or "\u009b", so that the text
// cannot move the cursor, retitle the window or clear the screen. Tab stays; newline stays
// only where `lineBreaks` is Keep (multi-line text).
QString withVisibleControls(QStringView text, LineBreaks lineBreaks = LineBreaks::Escape);

// Where in `text` something went wrong, for a terminal: the text on one line (controls and line
// breaks made visible, tabs as blanks), cut to about `width` characters around `position` with
// "…" where it is cut, and a caret under the character at `position` (after the last one when
// `position` is the end).
struct PointedText
{
    QString line;
    QString caret;
};
PointedText pointAt(QStringView text, qsizetype position, qsizetype width = 72);

// The values Tether knows as one server's secrets (its env and header values), and what makes
// a text from that server safe to show, store or log: every occurrence of one becomes "…",
// the longest first, and so does the start of one that an excerpt cut short ("SECRET-TO…").
// Values shorter than MinimumLength are not secrets to scrub: "1", "true" or "debug" would
// mangle ordinary text.
class SecretScrubber final
{
public:
    static constexpr qsizetype MinimumLength = 6;

    SecretScrubber() = default;
    explicit SecretScrubber(const QStringList &values);

    bool isEmpty() const { return m_secrets.isEmpty(); }
    // This scrubber and `values` too (a copy of this one when it has them all already).
    SecretScrubber with(const QStringList &values) const;
    QString scrub(QString text) const;
    // Every string in `value`, the keys of objects included.
    QJsonValue scrub(const QJsonValue &value) const;

private:
    QStringList m_secrets; // longest first
};

} // namespace Tether
