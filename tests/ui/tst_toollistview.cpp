// The Tools tab: its model's rows and texts, and a list set again that changes nothing.
#include "toollistmodel.h"
#include "toollistview.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QJsonArray>
#include <QPalette>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;

namespace {

RegisteredTool registered(const QString &name, const QJsonObject &extra = {}, bool available = true)
{
    QJsonObject raw{{u"name"_s, name},
                    {u"description"_s, u"Reads %1.\nSecond line."_s.arg(name)},
                    {u"inputSchema"_s, QJsonObject{{u"type"_s, u"object"_s},
                                                   {u"properties"_s, QJsonObject{{u"path"_s, QJsonObject{{u"type"_s, u"string"_s}}},
                                                                                 {u"mode"_s, QJsonObject{{u"enum"_s, QJsonArray{u"r"_s, u"w"_s}}}}}},
                                                   {u"required"_s, QJsonArray{u"path"_s}}}}};
    for (auto it = extra.constBegin(); it != extra.constEnd(); ++it)
        raw.insert(it.key(), it.value());
    QString error;
    const std::optional<ToolDefinition> definition = parseToolDefinition(raw, &error);
    if (!definition)
        qFatal("bad test tool: %s", qPrintable(error));
    return {u"fs__"_s + name, u"fs"_s, *definition, available};
}

QList<RegisteredTool> registered(const QStringList &names)
{
    QList<RegisteredTool> tools;
    for (const QString &name : names)
        tools.append(registered(name));
    return tools;
}

QString text(const QAbstractItemModel &model, int row, int column, int role = Qt::DisplayRole)
{
    return model.index(row, column).data(role).toString();
}

} // namespace

class TestToolListView final : public QObject
{
    Q_OBJECT

private slots:
    void namesAreShownWhole()
    {
        ToolListView view;
        const QString longName = u"list_pull_request_review_comments"_s;
        view.setTools({registered(u"read"_s), registered(longName)});
        const QFontMetrics metrics = view.fontMetrics();
        QVERIFY(view.columnWidth(ToolListModel::Name) > metrics.horizontalAdvance(longName));
        QVERIFY(view.columnWidth(ToolListModel::PublicName) > metrics.horizontalAdvance(u"fs__"_s + longName));
    }

    void rowsShowEachToolAtAGlance()
    {
        ToolListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTools({registered(u"read"_s, {{u"annotations"_s, QJsonObject{{u"readOnlyHint"_s, true}, {u"idempotentHint"_s, true}}}}),
                        registered(u"write"_s, {}, false)});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(ToolListModel::ColumnCount));
        QCOMPARE(model.headerData(ToolListModel::PublicName, Qt::Horizontal).toString(), u"Public name"_s);

        QCOMPARE(text(model, 0, ToolListModel::Name), u"read"_s);
        QCOMPARE(text(model, 0, ToolListModel::PublicName), u"fs__read"_s);
        QCOMPARE(text(model, 0, ToolListModel::Description), u"Reads read."_s);
        QCOMPARE(text(model, 0, ToolListModel::Parameters), u"path: string, mode?: r|w"_s);
        QCOMPARE(text(model, 0, ToolListModel::Annotations), u"read-only, idempotent"_s);
        QCOMPARE(text(model, 0, ToolListModel::Name, ToolListModel::PublicNameRole), u"fs__read"_s);
        QCOMPARE(text(model, 0, ToolListModel::Server), u"fs"_s);
        QCOMPARE(text(model, 0, ToolListModel::State), QString()); // until the window says
        QVERIFY(model.isCallable(0));
        QVERIFY(!model.isCallable(1)); // waiting for its server to reconnect
        QSignalSpy stateChanged(&model, &QAbstractItemModel::dataChanged);
        model.setServerStates({{u"fs"_s, ServerState::Retrying}});
        QCOMPARE(stateChanged.size(), 1);
        QCOMPARE(text(model, 0, ToolListModel::State), u"Retrying"_s);
        QVERIFY(!model.isCallable(0));
        model.setServerStates({{u"fs"_s, ServerState::Connected}});
        QVERIFY(model.isCallable(0));
        // The full texts in tool tips.
        QVERIFY(text(model, 0, ToolListModel::Description, Qt::ToolTipRole).contains(u"Second line."_s));
        QVERIFY(text(model, 0, ToolListModel::Parameters, Qt::ToolTipRole).contains(u"\"required\""_s));
        QVERIFY(text(model, 0, ToolListModel::Annotations, Qt::ToolTipRole).contains(u"readOnlyHint"_s));
        QVERIFY(!model.index(1, ToolListModel::Annotations).data(Qt::ToolTipRole).isValid());

        // Available: drawn as usual; unavailable: greyed, with the reason on its name.
        QVERIFY(!model.index(0, ToolListModel::Name).data(Qt::ForegroundRole).isValid());
        QVERIFY(!model.index(0, ToolListModel::Name).data(Qt::ToolTipRole).isValid());
        for (int column = 0; column < ToolListModel::ColumnCount; ++column) {
            QCOMPARE(model.index(1, column).data(Qt::ForegroundRole).value<QBrush>(),
                     QPalette().brush(QPalette::Disabled, QPalette::Text));
        }
        QCOMPARE(text(model, 1, ToolListModel::Name, Qt::ToolTipRole), u"Unavailable while the server reconnects"_s);
    }

    void switchesAskToHideOrOfferAndHiddenToolsStayListed()
    {
        ToolListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTools(registered({u"read"_s, u"write"_s}));
        const QModelIndex read = model.index(0, ToolListModel::Name);
        QSignalSpy toggled(&model, &ToolListModel::offeredToggled);
        // Without a config to save into (a broken one, say), the check boxes cannot be changed.
        QVERIFY(!(model.flags(read) & Qt::ItemIsUserCheckable));
        QVERIFY(!model.setData(read, Qt::Unchecked, Qt::CheckStateRole));

        model.setSwitchable(true);
        QVERIFY(model.flags(read) & Qt::ItemIsUserCheckable);
        QVERIFY(!(model.flags(read.siblingAtColumn(ToolListModel::PublicName)) & Qt::ItemIsUserCheckable));
        QCOMPARE(read.data(Qt::CheckStateRole).value<Qt::CheckState>(), Qt::Checked);
        QVERIFY(model.setData(read, Qt::Unchecked, Qt::CheckStateRole));
        QCOMPARE(toggled.size(), 1);
        QCOMPARE(toggled.at(0), (QVariantList{u"fs"_s, u"read"_s, false}));
        // The row changes when the saved config comes back, not before.
        QCOMPARE(read.data(Qt::CheckStateRole).value<Qt::CheckState>(), Qt::Checked);

        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setHiddenTools({{u"fs"_s, {u"read"_s}}});
        QCOMPARE(changed.size(), 1);
        QCOMPARE(read.data(Qt::CheckStateRole).value<Qt::CheckState>(), Qt::Unchecked);
        QCOMPARE(text(model, 0, ToolListModel::PublicName), u"fs__read (hidden)"_s);
        QCOMPARE(text(model, 0, ToolListModel::Name, ToolListModel::PublicNameRole), u"fs__read"_s);
        QVERIFY(text(model, 0, ToolListModel::Name, Qt::ToolTipRole).startsWith(u"Hidden: AI clients"_s));
        QCOMPARE(read.data(Qt::ForegroundRole).value<QBrush>(), QPalette().brush(QPalette::Disabled, QPalette::Text));
        QCOMPARE(model.index(1, ToolListModel::Name).data(Qt::CheckStateRole).value<Qt::CheckState>(), Qt::Checked);
        QVERIFY(!model.index(1, ToolListModel::Name).data(Qt::ForegroundRole).isValid());

        QVERIFY(model.setData(read, Qt::Checked, Qt::CheckStateRole));
        QCOMPARE(toggled.size(), 2);
        QCOMPARE(toggled.at(1), (QVariantList{u"fs"_s, u"read"_s, true}));
        model.setHiddenTools({{u"fs"_s, {u"read"_s}}});
        QCOMPARE(changed.size(), 1); // the same list again changes nothing
    }

    void theSameListAgainChangesNothing()
    {
        ToolListView view;
        const QList<RegisteredTool> tools = registered({u"a"_s, u"b"_s, u"c"_s});
        view.setTools(tools);
        view.setCurrentIndex(view.model()->index(1, 0));
        QCOMPARE(view.currentTool(), u"fs__b"_s);

        QSignalSpy reset(view.model(), &QAbstractItemModel::modelReset);
        QSignalSpy picked(&view, &ToolListView::currentToolChanged);
        // What the window does on every status change of the server: a list equal to the shown one.
        view.setTools(registered({u"a"_s, u"b"_s, u"c"_s}));
        view.setTools(tools);
        QCOMPARE(reset.size(), 0);
        QCOMPARE(picked.size(), 0);
        QCOMPARE(view.currentTool(), u"fs__b"_s);
    }

    void thePickFollowsItsTool_data()
    {
        QTest::addColumn<QStringList>("next");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<int>("row");

        QTest::newRow("same place") << QStringList{u"a"_s, u"b"_s, u"d"_s} << u"fs__b"_s << 1;
        QTest::newRow("moved") << QStringList{u"d"_s, u"e"_s, u"a"_s, u"b"_s} << u"fs__b"_s << 3;
        QTest::newRow("gone") << QStringList{u"a"_s, u"c"_s} << QString() << -1;
        QTest::newRow("none left") << QStringList{} << QString() << -1;
    }

    void thePickFollowsItsTool()
    {
        QFETCH(QStringList, next);
        QFETCH(QString, expected);
        QFETCH(int, row);

        ToolListView view;
        view.setTools(registered({u"a"_s, u"b"_s, u"c"_s}));
        view.setCurrentIndex(view.model()->index(1, 0));
        QSignalSpy picked(&view, &ToolListView::currentToolChanged);
        view.setTools(registered(next));
        QCOMPARE(view.model()->rowCount(), next.size());
        QCOMPARE(view.currentTool(), expected);
        QCOMPARE(view.currentIndex().row(), row);
        QCOMPARE(picked.size(), 1); // the window enables Call by it
    }

    void aLongListIsOneReset()
    {
        QStringList names;
        for (int i = 0; i < 5000; ++i)
            names.append(u"tool_%1"_s.arg(i));
        ToolListView view;
        QSignalSpy reset(view.model(), &QAbstractItemModel::modelReset);
        QSignalSpy inserted(view.model(), &QAbstractItemModel::rowsInserted);
        view.setTools(registered(names));
        QCOMPARE(view.model()->rowCount(), 5000);
        QCOMPARE(reset.size(), 1);
        QCOMPARE(inserted.size(), 0);
        QCOMPARE(text(*view.model(), 4999, ToolListModel::PublicName), u"fs__tool_4999"_s);
    }
};

QTEST_MAIN(TestToolListView)
#include "tst_toollistview.moc"
