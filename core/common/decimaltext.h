#pragma once

#include <QByteArrayView>
#include <QLatin1StringView>

#include <array>
#include <charconv>

namespace Tether {

// An integer's decimal digits in a buffer of their own: appended to a string or a byte array
// without the temporary that QString::number or QByteArray::number allocates (every call
// through the gateway writes a few).
class DecimalText
{
public:
    explicit DecimalText(qint64 value)
        : m_size(std::to_chars(m_digits.data(), m_digits.data() + m_digits.size(), value).ptr - m_digits.data())
    {
    }

    QByteArrayView bytes() const { return {m_digits.data(), m_size}; }
    QLatin1StringView latin1() const { return QLatin1StringView(m_digits.data(), m_size); }
    qsizetype size() const { return m_size; }

private:
    std::array<char, 20> m_digits{}; // "-9223372036854775808"
    qsizetype m_size;
};

} // namespace Tether
