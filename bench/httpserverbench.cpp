// The HTTP server of core/httpserver/ under load, with its clients on a thread of their own so
// that the server has its event loop to itself: the request parser alone, keep-alive requests
// one at a time and many at once, and many event streams at once (their delivery rate and the
// memory each open stream costs). Exits with 1, saying why, when it cannot finish.
#include "common/logging.h"
#include "execwithin.h"
#include "percentile.h"
#include "httpserver/httprequestparser.h"
#include "httpserver/httpresponse.h"
#include "httpserver/httpserver.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QTcpSocket>
#include <QTextStream>
#include <QThread>

#include <functional>
#include <optional>
#include <memory>
#include <vector>

using namespace Qt::StringLiterals;
using namespace Tether;
using Bench::execWithin;
using Bench::percentile;

namespace {

constexpr std::chrono::seconds StepTimeout(120);

// The answer a server gives to a tools/call, and the request as the TypeScript SDK's client sends it.
const QByteArray Answer = R"({"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"hi"}]}})";
const QByteArray RequestBody = R"({"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"demo__echo","arguments":{"text":"hi"}}})";
const QByteArray Request = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:27413\r\nConnection: keep-alive\r\n"
                           "Authorization: Bearer 3q2-7wVFqH1z0yO9lZ6r4k8mXcJtB2aPdGhWnYsLeUo\r\n"
                           "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
                           "Mcp-Session-Id: 6f9c1e2d4b8a47f3a0c5d9e1b2f3a4c5\r\nMcp-Protocol-Version: 2025-11-25\r\n"
                           "User-Agent: node\r\nAccept-Encoding: gzip, deflate\r\nContent-Length: "
                           + QByteArray::number(RequestBody.size()) + "\r\n\r\n" + RequestBody;
const QByteArray Event = R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":50,"total":100}})";

int fail(const QString &why)
{
    QTextStream(stderr) << "tether-httpserver-bench: " << why << Qt::endl;
    return 1;
}

qint64 residentAnonKiB()
{
    QFile status(u"/proc/self/status"_s);
    if (!status.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith("RssAnon:"))
            return line.mid(8).trimmed().split(' ').first().toLongLong();
    }
    return 0;
}

// Whether the bytes hold a whole response with a Content-Length; takes it off the front.
bool takeWholeResponse(QByteArray &bytes)
{
    const qsizetype headEnd = bytes.indexOf("\r\n\r\n");
    if (headEnd < 0)
        return false;
    const qsizetype lengthAt = bytes.indexOf("Content-Length: ");
    const qsizetype length = bytes.mid(lengthAt + 16, bytes.indexOf("\r\n", lengthAt) - lengthAt - 16).toLongLong();
    if (bytes.size() < headEnd + 4 + length)
        return false;
    bytes.remove(0, headEnd + 4 + length);
    return true;
}

// Runs `work` on a thread of its own (with an event loop there) while this thread's event
// loop serves; false when it did not end in time.
bool runClients(const std::function<void(QEventLoop &)> &work)
{
    std::unique_ptr<QThread> thread(QThread::create([&work] {
        QEventLoop loop;
        work(loop);
    }));
    QEventLoop serving;
    QObject::connect(thread.get(), &QThread::finished, &serving, &QEventLoop::quit);
    thread->start();
    const bool ended = execWithin(serving, StepTimeout);
    if (!ended) {
        thread->requestInterruption();
        thread->quit();
    }
    thread->wait();
    return ended;
}

struct RequestFigures
{
    std::vector<double> latenciesMs;
    double seconds = 0;
};

// `connections` kept-alive connections, each sending `requests` requests one after another.
std::optional<RequestFigures> keepAliveRequests(quint16 port, int connections, int requests)
{
    RequestFigures figures;
    QElapsedTimer wall;
    wall.start();
    const bool ended = runClients([&](QEventLoop &loop) {
        struct Client
        {
            QTcpSocket socket;
            QByteArray received;
            QElapsedTimer sent;
            int left = 0;
        };
        std::vector<std::unique_ptr<Client>> clients;
        int running = connections;
        for (int i = 0; i < connections; ++i) {
            auto client = std::make_unique<Client>();
            Client *c = client.get();
            c->left = requests;
            c->socket.setSocketOption(QAbstractSocket::LowDelayOption, 1);
            QObject::connect(&c->socket, &QTcpSocket::connected, &loop, [c] {
                c->sent.start();
                c->socket.write(Request);
            });
            QObject::connect(&c->socket, &QTcpSocket::readyRead, &loop, [c, &figures, &running, &loop] {
                c->received += c->socket.readAll();
                while (takeWholeResponse(c->received)) {
                    figures.latenciesMs.push_back(double(c->sent.nsecsElapsed()) / 1e6);
                    if (--c->left == 0) {
                        if (--running == 0)
                            loop.quit();
                        return;
                    }
                    c->sent.start();
                    c->socket.write(Request);
                }
            });
            c->socket.connectToHost(QHostAddress::LocalHost, port);
            clients.push_back(std::move(client));
        }
        loop.exec();
    });
    figures.seconds = double(wall.nsecsElapsed()) / 1e9;
    return ended ? std::optional(figures) : std::nullopt;
}

struct StreamFigures
{
    double eventsPerSecond = 0;
    double kibPerStream = 0;
};

// `streams` event streams opened at once; once all are open, `events` events go to each, then
// each ends. The delivery rate over all of them, and the memory an open stream costs both ends.
std::optional<StreamFigures> eventStreams(HttpServer &server, int streams, int events)
{
    const qint64 before = residentAnonKiB();
    qint64 whenOpen = 0;
    QElapsedTimer writing;
    QList<QPointer<HttpResponse>> opened;
    server.setHandler([&](const HttpRequest &, HttpResponse &response) {
        response.beginEventStream();
        opened.append(&response);
        if (opened.size() < streams)
            return;
        whenOpen = residentAnonKiB();
        writing.start();
        for (int i = 0; i < events; ++i) {
            for (const QPointer<HttpResponse> &stream : std::as_const(opened))
                stream->writeEventData(Event);
        }
        for (const QPointer<HttpResponse> &stream : std::as_const(opened))
            stream->end();
    });
    const quint16 port = server.serverPort();
    const bool ended = runClients([&](QEventLoop &loop) {
        std::vector<std::unique_ptr<QTcpSocket>> sockets;
        int running = streams;
        for (int i = 0; i < streams; ++i) {
            auto socket = std::make_unique<QTcpSocket>();
            QTcpSocket *s = socket.get();
            auto tail = std::make_shared<QByteArray>();
            QObject::connect(s, &QTcpSocket::connected, &loop, [s] {
                s->write("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n");
            });
            QObject::connect(s, &QTcpSocket::readyRead, &loop, [s, tail, &running, &loop] {
                // Only the end matters: the last chunk of a stream.
                *tail = QByteArray(*tail + s->readAll()).right(5);
                if (*tail == "0\r\n\r\n" && --running == 0)
                    loop.quit();
            });
            s->connectToHost(QHostAddress::LocalHost, port);
            sockets.push_back(std::move(socket));
        }
        loop.exec();
    });
    server.setHandler({}); // it refers to what is about to go
    if (!ended)
        return std::nullopt;
    const double seconds = double(writing.nsecsElapsed()) / 1e9;
    return StreamFigures{double(streams) * events / seconds, double(whenOpen - before) / streams};
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(u"Measures the HTTP server of core/httpserver/ under load."_s);
    parser.addHelpOption();
    const QCommandLineOption parsesOption(u"parses"_s, u"Requests parsed in the parser figure (default 200000)."_s, u"N"_s, u"200000"_s);
    const QCommandLineOption requestsOption(u"requests"_s, u"Requests per connection (default 2000)."_s, u"N"_s, u"2000"_s);
    const QCommandLineOption streamsOption(u"streams"_s, u"Event streams open at once (default 500)."_s, u"N"_s, u"500"_s);
    const QCommandLineOption eventsOption(u"events"_s, u"Events per stream (default 200)."_s, u"N"_s, u"200"_s);
    parser.addOptions({parsesOption, requestsOption, streamsOption, eventsOption});
    parser.process(app);
    const int parses = parser.value(parsesOption).toInt();
    const int requests = parser.value(requestsOption).toInt();
    const int streams = parser.value(streamsOption).toInt();
    const int events = parser.value(eventsOption).toInt();
    if (parses <= 0 || requests <= 0 || streams <= 0 || events <= 0)
        return fail(u"--parses, --requests, --streams and --events take positive numbers"_s);
    spdlog::set_level(spdlog::level::warn);
    QTextStream out(stdout);

    // The parser alone: a whole tools/call request, head and body, pushed at once.
    QElapsedTimer clock;
    clock.start();
    HttpRequestParser requestParser;
    for (int i = 0; i < parses; ++i) {
        if (requestParser.push(Request) != HttpRequestParser::Progress::HeadReady
            || requestParser.push({}) != HttpRequestParser::Progress::Complete)
            return fail(u"the parser refused the benchmark's request: "_s + requestParser.error().reason);
        requestParser.takeRequest();
    }
    const double parseSeconds = double(clock.nsecsElapsed()) / 1e9;
    out << u"parser: %1 µs per %2-byte request, %3 MB/s"_s.arg(parseSeconds / parses * 1e6, 0, 'f', 2)
               .arg(Request.size())
               .arg(double(Request.size()) * parses / parseSeconds / 1e6, 0, 'f', 0)
        << Qt::endl;

    HttpServerOptions options;
    options.maxConnections = streams + 64;
    HttpServer server(options);
    server.setHandler([](const HttpRequest &, HttpResponse &response) {
        response.send(200, {{"Content-Type", "application/json"}}, Answer);
    });
    if (!server.listen(QHostAddress::LocalHost))
        return fail(server.errorString());

    for (const int connections : {1, 16}) {
        const std::optional<RequestFigures> figures = keepAliveRequests(server.serverPort(), connections, requests);
        if (!figures)
            return fail(u"%1 connections did not get their answers within %2 s"_s.arg(connections).arg(StepTimeout.count()));
        out << u"keep-alive requests, %1 connection%2: %3 requests/s, p50 %4 ms, p99 %5 ms"_s.arg(connections)
                   .arg(connections == 1 ? u""_s : u"s"_s)
                   .arg(double(figures->latenciesMs.size()) / figures->seconds, 0, 'f', 0)
                   .arg(percentile(figures->latenciesMs, 0.5), 0, 'f', 3)
                   .arg(percentile(figures->latenciesMs, 0.99), 0, 'f', 3)
            << Qt::endl;
    }

    const std::optional<StreamFigures> figures = eventStreams(server, streams, events);
    if (!figures)
        return fail(u"%1 event streams did not end within %2 s"_s.arg(streams).arg(StepTimeout.count()));
    out << u"event streams: %1 open at once, %2 events/s delivered, %3 KiB per open stream (both ends)"_s.arg(streams)
               .arg(figures->eventsPerSecond, 0, 'f', 0)
               .arg(figures->kibPerStream, 0, 'f', 1)
        << Qt::endl;
    return 0;
}
