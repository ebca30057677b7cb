#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>

#include <initializer_list>
#include <utility>

namespace Tether {

// The header fields of one HTTP message, in the order they came or are to be sent. Names
// compare case-insensitively (RFC 9110 §5.1); values are kept as sent, without the
// whitespace around them.
class HttpHeaders final
{
public:
    using Field = std::pair<QByteArray, QByteArray>; // name, value

    HttpHeaders() = default;
    HttpHeaders(std::initializer_list<Field> fields);

    void append(const QByteArray &name, const QByteArray &value);
    void remove(QByteArrayView name);

    bool contains(QByteArrayView name) const;
    // The field's value, the values of repeated fields joined with ", " as RFC 9110 §5.3 allows;
    // empty when absent.
    QByteArray value(QByteArrayView name) const;
    // Each field of that name, in order.
    QByteArrayList values(QByteArrayView name) const;
    // Whether the comma-separated list in the fields of that name holds the token, ignoring
    // case: hasToken("Connection", "close").
    bool hasToken(QByteArrayView name, QByteArrayView token) const;

    const QList<Field> &fields() const { return m_fields; }
    qsizetype size() const { return m_fields.size(); }
    bool isEmpty() const { return m_fields.isEmpty(); }

    friend bool operator==(const HttpHeaders &, const HttpHeaders &) = default;

private:
    QList<Field> m_fields;
};

} // namespace Tether
