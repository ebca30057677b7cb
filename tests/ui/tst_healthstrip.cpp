// The health strip: an outage of any length shows, and shows on top of the time around it.
#include "healthstripdelegate.h"
#include "servertablemodel.h"
#include "stateicons.h"

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QStandardItemModel>
#include <QTableView>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Tether;
using namespace std::chrono_literals;

namespace {

const QDateTime Now = QDateTime::fromMSecsSinceEpoch(1'800'000'000'000, Qt::UTC);

// Connected for the whole window but for one outage of `length` that ended `ago`.
QList<HealthSpan> connectedWithOutage(std::chrono::milliseconds ago, std::chrono::milliseconds length, HealthBand band)
{
    const QDateTime windowStart = Now.addMSecs(-std::chrono::milliseconds(10min).count());
    const QDateTime outageEnd = Now.addMSecs(-ago.count());
    const QDateTime outageStart = outageEnd.addMSecs(-length.count());
    QList<HealthSpan> spans{{windowStart, outageStart, HealthBand::Connected}, {outageStart, outageEnd, band}};
    if (outageEnd < Now)
        spans.append({outageEnd, Now, HealthBand::Connected});
    return spans;
}

// Columns of `image` that hold a pixel of `color` (or of the hatch drawn over it).
int columnsWithColor(const QImage &image, const QColor &color)
{
    int columns = 0;
    for (int x = 0; x < image.width(); ++x) {
        for (int y = 0; y < image.height(); ++y) {
            const QColor pixel = image.pixelColor(x, y);
            if (pixel == color || pixel == color.darker(160)) {
                ++columns;
                break;
            }
        }
    }
    return columns;
}

} // namespace

class HealthStripTest : public QObject
{
    Q_OBJECT

private slots:
    void outagesAreNeverNarrowerThanTheMinimum_data()
    {
        QTest::addColumn<qint64>("agoMs");
        QTest::addColumn<qint64>("lengthMs");
        QTest::addColumn<double>("width");
        QTest::newRow("50 ms crash, 5 min ago") << qint64(300'000) << qint64(50) << MinOutageWidth;
        QTest::newRow("sub-second, just now") << qint64(0) << qint64(400) << MinOutageWidth;
        QTest::newRow("sub-second, at the window's start") << qint64(599'600) << qint64(400) << MinOutageWidth;
        QTest::newRow("a minute: its own width") << qint64(60'000) << qint64(60'000) << 12.0;
    }

    void outagesAreNeverNarrowerThanTheMinimum()
    {
        QFETCH(qint64, agoMs);
        QFETCH(qint64, lengthMs);
        QFETCH(double, width);
        const QRectF strip(3, 4, 120, 10);
        const QList<HealthSpan> spans = connectedWithOutage(std::chrono::milliseconds(agoMs),
                                                            std::chrono::milliseconds(lengthMs), HealthBand::Reconnecting);
        const QList<HealthBandRect> rects = healthBandRects(spans, Now, 10min, strip);
        QVERIFY(!rects.isEmpty());
        // The outage is drawn last, over the connected time around it, whole and inside the strip.
        const HealthBandRect &outage = rects.last();
        QCOMPARE(outage.band, HealthBand::Reconnecting);
        QCOMPARE(outage.rect.width(), width);
        QVERIFY2(strip.contains(outage.rect), qPrintable(u"%1..%2"_s.arg(outage.rect.left()).arg(outage.rect.right())));
        for (qsizetype i = 0; i + 1 < rects.size(); ++i)
            QVERIFY(rects.at(i).band == HealthBand::Connected || rects.at(i).band == HealthBand::Reconnecting);
    }

    void connectedTimeIsDrawnAtItsOwnWidth()
    {
        const QRectF strip(0, 0, 120, 10);
        const QList<HealthBandRect> rects =
            healthBandRects({{Now.addSecs(-300), Now, HealthBand::Connected}}, Now, 10min, strip);
        QCOMPARE(rects.size(), 1);
        QCOMPARE(rects.first().rect, QRectF(60, 0, 60, 10));
    }

    // What a person sees: a crash that recovered in 50 ms leaves a mark in the painted row.
    void aShortCrashShowsInThePaintedRow()
    {
        QStandardItemModel model(1, 1);
        model.setData(model.index(0, 0),
                      QVariant::fromValue(connectedWithOutage(2min, 50ms, HealthBand::Failed)),
                      ServerTableModel::HealthRole);
        QTableView view;
        view.setModel(&model);
        HealthStripDelegate delegate;
        view.setItemDelegate(&delegate);
        view.resize(400, 100);
        view.setColumnWidth(0, 200);

        QStyleOptionViewItem option;
        option.rect = QRect(0, 0, 200, 24);
        option.palette = view.palette();
        option.widget = &view;
        QImage image(option.rect.size(), QImage::Format_ARGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        delegate.paint(&painter, option, model.index(0, 0));
        painter.end();

        QVERIFY(columnsWithColor(image, healthColor(HealthBand::Connected)) > 150);
        QCOMPARE(columnsWithColor(image, healthColor(HealthBand::Failed)), int(MinOutageWidth));
    }

    // Sign-in needed reads without colour: its icon's shape (a key) is no other state's, and the
    // strip's summary names the time spent waiting for a sign-in.
    void signInNeededHasAShapeOfItsOwn()
    {
        const auto shape = [](ServerState state) { return stateIcon(state).pixmap(24).toImage().createAlphaMask(); };
        const QImage key = shape(ServerState::SignInNeeded);
        for (ServerState state : AllServerStates) {
            if (state != ServerState::SignInNeeded)
                QVERIFY2(shape(state) != key, qPrintable(stateName(state)));
        }
        QVERIFY(stateColor(ServerState::SignInNeeded) != stateColor(ServerState::Failed));
        QCOMPARE(healthBandOf(ServerState::SignInNeeded), HealthBand::SignInNeeded);
        QCOMPARE(ServerTableModel::healthSummary({{Now.addSecs(-60), Now, HealthBand::SignInNeeded}}),
                 u"waiting for sign-in 1 min"_s);
    }
};

QTEST_MAIN(HealthStripTest)
#include "tst_healthstrip.moc"
