#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QString>

// The params of the requests a server makes of its client, as the unit tests send them.
namespace Tether::Testing {

using namespace Qt::StringLiterals;

inline QJsonObject samplingParams()
{
    return {{u"messages"_s, QJsonArray{QJsonObject{{u"role"_s, u"user"_s},
                                                   {u"content"_s, QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, u"hi"_s}}}}}},
            {u"maxTokens"_s, 100}};
}

inline QJsonObject formParams()
{
    return {{u"message"_s, u"Your name?"_s},
            {u"requestedSchema"_s, QJsonObject{{u"type"_s, u"object"_s}, {u"properties"_s, QJsonObject{}}}}};
}

inline QJsonObject urlParams(const QString &elicitationId)
{
    return {{u"mode"_s, u"url"_s},
            {u"message"_s, u"Sign in to the service"_s},
            {u"url"_s, u"https://example.com/authorize"_s},
            {u"elicitationId"_s, elicitationId}};
}

// The _meta of a message that belongs to a task.
inline QJsonObject taskMeta(const QString &taskId)
{
    return {{u"io.modelcontextprotocol/related-task"_s, QJsonObject{{u"taskId"_s, taskId}}}};
}

} // namespace Tether::Testing
