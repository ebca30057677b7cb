#include "clientconnect.h"

#include "common/jsontext.h"
#include "configimport.h"
#include "configparser.h"
#include "jsoncscan.h"
#include "jsontextstyle.h"

#include <QDir>
#include <QStandardPaths>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <functional>

using namespace Qt::StringLiterals;

namespace Tether {

namespace {

constexpr char16_t MaskedToken[] = u"••••••";

// What a splice adds follows the file's line ends and indentation; two spaces a level in a file
// that shows none.
JsonTextStyle styleOf(QByteArrayView text)
{
    return jsonTextStyleOf(text, {"\n", "  "});
}

qsizetype lineStartOf(QByteArrayView text, qsizetype offset)
{
    return text.first(offset).lastIndexOf('\n') + 1;
}

bool isBlank(QByteArrayView bytes)
{
    return std::all_of(bytes.begin(), bytes.end(), [](char c) { return c == ' ' || c == '\t'; });
}

// The indentation before `offset` when nothing else precedes it on its line; nothing otherwise.
std::optional<QByteArray> indentBefore(QByteArrayView text, qsizetype offset)
{
    const qsizetype lineStart = lineStartOf(text, offset);
    const QByteArrayView before = text.sliced(lineStart, offset - lineStart);
    if (!isBlank(before))
        return std::nullopt;
    return before.toByteArray();
}

QByteArray quoted(const QString &text)
{
    return jsonText(text).toUtf8();
}

QByteArray render(const QJsonValue &value, const QByteArray &indent, const JsonTextStyle &style);

QByteArray renderMembers(const JsonMembers &members, const QByteArray &indent, const JsonTextStyle &style)
{
    if (members.isEmpty())
        return "{}";
    QByteArray text = "{" + style.newline;
    const QByteArray inner = indent + style.indentUnit;
    for (qsizetype i = 0; i < members.size(); ++i) {
        text += inner + quoted(members.at(i).first) + ": " + render(members.at(i).second, inner, style);
        text += (i + 1 < members.size() ? "," : "") + style.newline;
    }
    return text + indent + "}";
}

// Objects one member a line, arrays on one line: as clients' documentation writes their entries.
QByteArray render(const QJsonValue &value, const QByteArray &indent, const JsonTextStyle &style)
{
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        JsonMembers members;
        for (auto it = object.constBegin(); it != object.constEnd(); ++it)
            members.append({it.key(), it.value()});
        return renderMembers(members, indent, style);
    }
    if (value.isArray()) {
        QByteArrayList elements;
        for (const QJsonValue &element : value.toArray())
            elements.append(render(element, indent, style));
        return "[" + elements.join(", ") + "]";
    }
    return jsonText(value).toUtf8();
}

// The text of a member's value, given the indentation of the member's line.
using ValueText = std::function<QByteArray(const QByteArray &memberIndent)>;

struct Splice
{
    qsizetype start = 0;
    qsizetype end = 0;
    QByteArray text;
};

QByteArray applied(QByteArray text, QList<Splice> splices)
{
    std::sort(splices.begin(), splices.end(), [](const Splice &a, const Splice &b) { return a.start > b.start; });
    for (const Splice &splice : splices)
        text.replace(splice.start, splice.end - splice.start, splice.text);
    return text;
}

class FileEditor final
{
public:
    FileEditor(QByteArray text, const QString &path)
        : m_text(std::move(text))
        , m_path(path)
        , m_style(styleOf(m_text))
    {
    }

    const QByteArray &text() const { return m_text; }
    const QString &error() const { return m_error; }

    std::optional<JsoncValue> scan()
    {
        JsoncScan scan = scanJsonc(m_text);
        if (!scan.root) {
            m_error = u"%1: %2: the file is not valid JSON, so nothing was written: fix it (or move it away) and "
                      "connect again"_s.arg(m_path, scan.error);
            return std::nullopt;
        }
        if (!scan.root->value.isObject()) {
            m_error = u"%1 holds %2, not a JSON object, so nothing was written: an MCP config file is an object "
                      "such as {\"mcpServers\": {}}"_s.arg(m_path, jsonKind(scan.root->value));
            return std::nullopt;
        }
        return scan.root;
    }

    // Adds the member `name` to the object at `path` (made when missing), or replaces its value.
    bool put(const QStringList &path, const QString &name, const ValueText &valueText)
    {
        const std::optional<JsoncValue> root = scan();
        if (!root)
            return false;
        const JsoncValue *object = jsoncObjectAt(*root, path);
        if (!object) {
            // The parent holds no such object yet: it gets one, holding the member.
            const QStringList parentPath = path.mid(0, path.size() - 1);
            const JsoncValue *parent = jsoncObjectAt(*root, parentPath);
            if (const JsoncMember *existing = parent ? jsoncMember(*parent, path.last()) : nullptr) {
                m_error = u"%1: \"%2\" is %3, not an object of servers, so nothing was written: fix it and connect "
                          "again"_s.arg(m_path, path.join(u'.'), jsonKind(existing->value.value));
                return false;
            }
            if (!parent)
                return false;
            const auto holder = [&](const QByteArray &indent) -> QByteArray {
                const QByteArray inner = indent + m_style.indentUnit;
                return "{" + m_style.newline + inner + quoted(name) + ": " + valueText(inner) + m_style.newline + indent + "}";
            };
            return put(parentPath, path.last(), holder);
        }
        if (const JsoncMember *member = jsoncMember(*object, name)) {
            const QByteArray indent = indentBefore(m_text, member->keyStart).value_or(QByteArray());
            m_text = applied(m_text, {{member->value.start, member->value.end, valueText(indent)}});
            return true;
        }
        m_text = applied(m_text, insertion(*object, name, valueText));
        return true;
    }

    // Removes the member `name` of the object at `path` with its line; false when there is none.
    bool remove(const QStringList &path, const QString &name)
    {
        const std::optional<JsoncValue> root = scan();
        const JsoncValue *object = root ? jsoncObjectAt(*root, path) : nullptr;
        if (!object)
            return false;
        const auto found = std::find_if(object->members.rbegin(), object->members.rend(),
                                        [&](const JsoncMember &member) { return member.name == name; });
        if (found == object->members.rend())
            return false;
        const JsoncMember &member = *found;
        QList<Splice> splices;
        const bool ownLine = indentBefore(m_text, member.keyStart).has_value();
        qsizetype start = ownLine ? lineStartOf(m_text, member.keyStart) : member.keyStart;
        qsizetype end = member.commaAfter >= 0 ? member.commaAfter + 1 : member.value.end;
        while (end < m_text.size() && (m_text.at(end) == ' ' || m_text.at(end) == '\t'))
            ++end;
        if (ownLine && m_text.sliced(end).startsWith("\r\n"))
            end += 2;
        else if (ownLine && m_text.sliced(end).startsWith("\n"))
            end += 1;
        else if (ownLine)
            start = member.keyStart; // something follows on its line: that stays where it is
        splices.append({start, end, {}});
        // The last member leaves the comma before it without anything to separate.
        const qsizetype index = object->members.rend() - found - 1;
        if (member.commaAfter < 0 && index > 0) {
            const qsizetype previousComma = object->members.at(index - 1).commaAfter;
            if (previousComma >= 0)
                splices.append({previousComma, previousComma + 1, {}});
        }
        m_text = applied(m_text, splices);
        return true;
    }

private:
    QList<Splice> insertion(const JsoncValue &object, const QString &name, const ValueText &valueText) const
    {
        const qsizetype close = object.end - 1;
        const qsizetype closeLineStart = lineStartOf(m_text, close);
        const bool closeOnOwnLine = closeLineStart > object.start && isBlank(QByteArrayView(m_text).sliced(closeLineStart, close - closeLineStart));
        const QByteArray closeIndent = indentBefore(m_text, close).value_or(QByteArray());
        if (object.members.empty()) {
            // The indentation of the line that opens the object, one level in.
            const qsizetype openLineStart = lineStartOf(m_text, object.start);
            qsizetype at = openLineStart;
            while (at < object.start && (m_text.at(at) == ' ' || m_text.at(at) == '\t'))
                ++at;
            const QByteArray indent = m_text.sliced(openLineStart, at - openLineStart) + m_style.indentUnit;
            const QByteArray member = indent + quoted(name) + ": " + valueText(indent);
            if (closeOnOwnLine)
                return {{closeLineStart, closeLineStart, member + m_style.newline}};
            return {{close, close, m_style.newline + member + m_style.newline + m_text.sliced(openLineStart, at - openLineStart)}};
        }
        const JsoncMember &last = object.members.back();
        const bool trailingComma = last.commaAfter >= 0;
        const std::optional<QByteArray> siblingIndent = indentBefore(m_text, last.keyStart);
        if (closeOnOwnLine && siblingIndent) {
            QList<Splice> splices{{closeLineStart, closeLineStart,
                                   *siblingIndent + quoted(name) + ": " + valueText(*siblingIndent)
                                       + (trailingComma ? "," : "") + m_style.newline}};
            if (!trailingComma)
                splices.append({last.value.end, last.value.end, ","});
            return splices;
        }
        // Written on one line: the member follows the last one on it.
        const QByteArray indent = closeIndent + m_style.indentUnit;
        const qsizetype at = trailingComma ? last.commaAfter + 1 : last.value.end;
        return {{at, at, (trailingComma ? " " : ", ") + quoted(name) + ": " + valueText(indent) + (trailingComma ? "," : "")}};
    }

    QByteArray m_text;
    QString m_path;
    JsonTextStyle m_style;
    QString m_error;
};

// Where the client keeps its servers: VS Code's settings.json has them under "mcp".
QStringList serversPath(ConnectClient client, const JsoncValue &root)
{
    if (client != ConnectClient::VsCode)
        return {u"mcpServers"_s};
    if (!jsoncMember(root, u"servers"_s) && jsoncObjectAt(root, {u"mcp"_s}))
        return {u"mcp"_s, u"servers"_s};
    return {u"servers"_s};
}

// Variables compared as written: ${env:TOKEN} in both files is the same setting, whatever TOKEN
// holds. Each name stands for a value of its own that fits wherever a variable may be (a host name).
ConfigContext asWrittenContext()
{
    return {[](const QString &name) { return std::optional<QString>(u"v"_s + QString::fromLatin1(name.toUtf8().toHex())); },
            u"/tether-bindir"_s};
}

template<typename List>
List sorted(List list)
{
    std::sort(list.begin(), list.end());
    return list;
}

// The same server to run: what it starts or reaches, not how it is supervised.
bool sameEndpoint(const ServerConfig &a, const ServerConfig &b)
{
    return a.transport == b.transport && a.command.program == b.command.program
           && a.command.arguments == b.command.arguments
           && sorted(a.command.environment) == sorted(b.command.environment)
           && a.command.workingDirectory == b.command.workingDirectory && a.url == b.url
           && sorted(a.headers) == sorted(b.headers);
}

QList<QByteArray> linesOf(const QByteArray &text)
{
    QList<QByteArray> lines = text.split('\n');
    if (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    for (QByteArray &line : lines) {
        if (line.endsWith('\r'))
            line.chop(1);
    }
    return lines;
}

} // namespace

bool connectClientFromName(const QString &name, ConnectClient *client)
{
    for (const ConnectClient candidate :
         {ConnectClient::ClaudeDesktop, ConnectClient::Cursor, ConnectClient::VsCode, ConnectClient::ClaudeCode}) {
        if (connectClientName(candidate) == name) {
            *client = candidate;
            return true;
        }
    }
    return false;
}

QString connectClientName(ConnectClient client)
{
    switch (client) {
    case ConnectClient::ClaudeDesktop: return u"claude"_s;
    case ConnectClient::Cursor: return u"cursor"_s;
    case ConnectClient::VsCode: return u"vscode"_s;
    case ConnectClient::ClaudeCode: return u"claude-code"_s;
    }
    return {};
}

QStringList connectClientNames()
{
    return {u"claude"_s, u"cursor"_s, u"vscode"_s, u"claude-code"_s};
}

QString connectClientTitle(ConnectClient client)
{
    switch (client) {
    case ConnectClient::ClaudeDesktop: return u"Claude Desktop"_s;
    case ConnectClient::Cursor: return u"Cursor"_s;
    case ConnectClient::VsCode: return u"VS Code"_s;
    case ConnectClient::ClaudeCode: return u"Claude Code"_s;
    }
    return {};
}

QString defaultClientConfigPath(ConnectClient client)
{
    switch (client) {
    case ConnectClient::ClaudeDesktop: return defaultImportPath(ImportFormat::ClaudeDesktop);
    case ConnectClient::Cursor: return defaultImportPath(ImportFormat::Cursor);
    case ConnectClient::VsCode:
        return QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) + u"/Code/User/mcp.json"_s;
    case ConnectClient::ClaudeCode: return QDir::homePath() + u"/.claude.json"_s;
    }
    return {};
}

bool clientSpeaksHttp(ConnectClient client)
{
    return client != ConnectClient::ClaudeDesktop;
}

int clientToolNameBudget(ConnectClient client)
{
    const qsizetype key = QStringView(TetherEntryName).size();
    switch (client) {
    case ConnectClient::ClaudeCode: return int(64 - (u"mcp____"_s.size() + key));
    case ConnectClient::Cursor: return int(60 - key);
    case ConnectClient::ClaudeDesktop:
    case ConnectClient::VsCode: return 64;
    }
    return 64;
}

JsonMembers tetherEntry(ConnectClient client, const GatewayReach &reach)
{
    // Claude Desktop and Cursor tell the two kinds apart by "command" or "url"; VS Code wants
    // "type", and Claude Code reads it.
    const bool typed = client == ConnectClient::VsCode || client == ConnectClient::ClaudeCode;
    JsonMembers entry;
    if (reach.http) {
        if (typed)
            entry.append({u"type"_s, u"http"_s});
        entry.append({u"url"_s, reach.url});
        entry.append({u"headers"_s, QJsonObject{{u"Authorization"_s, QString(u"Bearer "_s + reach.token)}}});
        return entry;
    }
    if (typed)
        entry.append({u"type"_s, u"stdio"_s});
    entry.append({u"command"_s, reach.tetherctl});
    entry.append({u"args"_s, QJsonArray::fromStringList(reach.serveArguments)});
    return entry;
}

QList<ServerConfig> serversAsWritten(const QByteArray &tetherConfig, const QString &path)
{
    return parseConfig(tetherConfig, path, asWrittenContext()).servers;
}

ConnectPlan planConnect(const QByteArray &before, const QString &path, ConnectClient client, const GatewayReach &reach,
                        const std::optional<QList<ServerConfig>> &moveMatching)
{
    ConnectPlan plan;
    plan.holdsToken = reach.http;
    // A file that is not there yet, or empty, is an object without servers.
    const bool blank = before.trimmed().isEmpty() || before.trimmed() == "\xEF\xBB\xBF";
    FileEditor editor(blank ? before.trimmed() + "{}\n" : before, path);
    const std::optional<JsoncValue> root = editor.scan();
    if (!root) {
        plan.error = editor.error();
        return plan;
    }
    const QStringList serversAt = serversPath(client, *root);
    const QString tether = QStringView(TetherEntryName).toString();
    QJsonObject expectedServers;
    if (const JsoncValue *servers = jsoncObjectAt(*root, serversAt)) {
        expectedServers = servers->value.toObject();
        plan.replacesEntry = jsoncMember(*servers, tether) != nullptr;
        if (moveMatching) {
            QJsonObject others = expectedServers;
            others.remove(tether);
            const QList<ServerConfig> theirs = parseConfig(QJsonDocument(QJsonObject{{u"mcpServers"_s, others}}).toJson(),
                                                           path, asWrittenContext()).servers;
            for (const ServerConfig &server : theirs) {
                const auto ours = std::find_if(moveMatching->begin(), moveMatching->end(),
                                               [&](const ServerConfig &candidate) { return candidate.name == server.name; });
                if (ours == moveMatching->end() || !server.isValid() || !ours->isValid() || !sameEndpoint(server, *ours))
                    continue;
                const JsoncMember *member = jsoncMember(*servers, server.name);
                plan.moved.append({server.name, editor.text().sliced(member->value.start,
                                                                     member->value.end - member->value.start)});
            }
        }
    }
    const JsonMembers entry = tetherEntry(client, reach);
    const JsonTextStyle style = styleOf(editor.text());
    for (const MovedServer &moved : std::as_const(plan.moved)) {
        editor.remove(serversAt, moved.name);
        expectedServers.remove(moved.name);
    }
    if (!editor.put(serversAt, tether, [&](const QByteArray &indent) { return renderMembers(entry, indent, style); })) {
        plan.error = editor.error();
        return plan;
    }
    QJsonObject entryObject;
    for (const auto &[key, value] : entry)
        entryObject.insert(key, value);
    expectedServers.insert(tether, entryObject);

    // The splice must have changed nothing but what it was asked to: checked on the result.
    QJsonObject expected = root->value.toObject();
    if (serversAt.size() == 1) {
        expected.insert(serversAt.first(), expectedServers);
    } else {
        QJsonObject holder = expected.value(serversAt.first()).toObject();
        holder.insert(serversAt.last(), expectedServers);
        expected.insert(serversAt.first(), holder);
    }
    const JsoncScan result = scanJsonc(editor.text());
    if (!result.root || result.root->value != QJsonValue(expected)) {
        plan.error = u"%1: Tether could not add its entry without changing something else in the file, so nothing "
                     "was written; add the entry by hand: %2"_s.arg(path, jsonText(entryObject));
        return plan;
    }
    plan.after = editor.text();
    plan.diff = lineDiff(before, plan.after);
    return plan;
}

UndoSplice planUndoSplice(const QByteArray &before, const QString &path, ConnectClient client,
                          const QList<MovedServer> &moved)
{
    UndoSplice undo;
    FileEditor editor(before, path);
    const std::optional<JsoncValue> root = editor.scan();
    if (!root) {
        undo.error = QString(editor.error()).replace(u"connect again"_s, u"undo again"_s);
        return undo;
    }
    const QStringList serversAt = serversPath(client, *root);
    undo.removedEntry = editor.remove(serversAt, QStringView(TetherEntryName).toString());
    for (const MovedServer &server : moved) {
        const std::optional<JsoncValue> now = editor.scan();
        const JsoncValue *servers = now ? jsoncObjectAt(*now, serversAt) : nullptr;
        if (servers && jsoncMember(*servers, server.name))
            continue;
        if (!editor.put(serversAt, server.name, [&](const QByteArray &) { return server.text; })) {
            undo.error = editor.error();
            return undo;
        }
        undo.restored.append(server.name);
    }
    undo.after = editor.text();
    return undo;
}

QList<DiffLine> lineDiff(const QByteArray &before, const QByteArray &after)
{
    const QList<QByteArray> a = linesOf(before);
    const QList<QByteArray> b = linesOf(after);
    qsizetype head = 0;
    while (head < a.size() && head < b.size() && a.at(head) == b.at(head))
        ++head;
    qsizetype tail = 0;
    while (tail < a.size() - head && tail < b.size() - head && a.at(a.size() - 1 - tail) == b.at(b.size() - 1 - tail))
        ++tail;
    const qsizetype n = a.size() - head - tail;
    const qsizetype m = b.size() - head - tail;
    QList<DiffLine> diff;
    const auto removed = [&](qsizetype i) { diff.append({false, int(head + i + 1), QString::fromUtf8(a.at(head + i))}); };
    const auto added = [&](qsizetype j) { diff.append({true, int(head + j + 1), QString::fromUtf8(b.at(head + j))}); };
    // The longest common subsequence of what lies between; a splice leaves that part small.
    if (n * m > 4'000'000) {
        for (qsizetype i = 0; i < n; ++i)
            removed(i);
        for (qsizetype j = 0; j < m; ++j)
            added(j);
        return diff;
    }
    std::vector<std::vector<int>> common(size_t(n + 1), std::vector<int>(size_t(m + 1), 0));
    for (qsizetype i = n - 1; i >= 0; --i) {
        for (qsizetype j = m - 1; j >= 0; --j) {
            common[i][j] = a.at(head + i) == b.at(head + j) ? common[i + 1][j + 1] + 1
                                                            : std::max(common[i + 1][j], common[i][j + 1]);
        }
    }
    qsizetype i = 0;
    qsizetype j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && a.at(head + i) == b.at(head + j)) {
            ++i;
            ++j;
        } else if (j < m && (i == n || common[i][j + 1] > common[i + 1][j])) {
            added(j++);
        } else {
            removed(i++);
        }
    }
    return diff;
}

QStringList namesOverBudget(ConnectClient client, const QStringList &publicNames)
{
    const int budget = clientToolNameBudget(client);
    QStringList over;
    for (const QString &name : publicNames) {
        if (name.size() > budget)
            over.append(name);
    }
    return over;
}

QString connectPreview(const QString &path, ConnectClient client, const ConnectPlan &plan, const GatewayReach &reach,
                       const QStringList &longNames, bool readableByOthers)
{
    const QString &token = reach.token;
    const QString title = connectClientTitle(client);
    QString text = u"%1 in %2 (%3):\n"_s.arg(plan.replacesEntry ? u"Replaces the \"tether\" entry"_s : u"Adds a \"tether\" entry"_s,
                                            path, title);
    for (const DiffLine &line : plan.diff) {
        QString shown = line.text;
        if (!token.isEmpty())
            shown.replace(token, QStringView(MaskedToken).toString());
        text += u"%1 %2 | %3\n"_s.arg(QChar(line.added ? u'+' : u'-')).arg(line.line, 5).arg(shown);
    }
    if (!token.isEmpty())
        text += u"(%1 stands for the gateway's token, which the file gets.)\n"_s.arg(QStringView(MaskedToken).toString());
    if (plan.holdsToken && readableByOthers)
        text += u"Others can read %1 now; as it will hold the token, Tether makes it readable by you alone (mode 0600). "
                "--undo gives its mode back.\n"_s.arg(path);
    if (!plan.moved.isEmpty()) {
        QStringList names;
        for (const MovedServer &server : plan.moved)
            names.append(server.name);
        text += u"Moved to Tether (it runs them already, so %1 stops running them too): %2\n"_s.arg(title, names.join(u", "_s));
    }
    if (!longNames.isEmpty()) {
        text += u"%1 takes tool names of at most %2 characters from a server called \"tether\"; %3 of Tether's are "
                "longer and will be left out or refused: %4. Give their servers shorter names in Tether, or set "
                "\"gateway\": {\"names\": \"plain\"} in its config, to keep them.\n"_s
                    .arg(title)
                    .arg(clientToolNameBudget(client))
                    .arg(longNames.size())
                    .arg(longNames.join(u", "_s));
    }
    if (!reach.notice.isEmpty())
        text += reach.notice + u'\n';
    text += u"Restart %1 to load it.\n"_s.arg(title);
    return text;
}

} // namespace Tether
