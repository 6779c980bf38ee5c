// precis_render_icons ICON.svg OUTDIR SIZE...
// Renders the application icon with Qt's SVG engine (the one that draws it inside the
// app) into OUTDIR/<size>x<size>/apps/precis.png for the hicolor icon theme.
#include <QDir>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>
#include <cstdio>

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: precis_render_icons ICON.svg OUTDIR SIZE...\n");
        return 2;
    }
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    const QString svg = QString::fromLocal8Bit(argv[1]);
    const QString out_dir = QString::fromLocal8Bit(argv[2]);
    QSvgRenderer renderer(svg);
    if (!renderer.isValid()) {
        std::fprintf(stderr, "precis_render_icons: %s is not an SVG image Qt can read\n", argv[1]);
        return 1;
    }
    for (int i = 3; i < argc; ++i) {
        bool ok = false;
        const int size = QString::fromLocal8Bit(argv[i]).toInt(&ok);
        if (!ok || size <= 0 || size > 4096) {
            std::fprintf(stderr, "precis_render_icons: '%s' is not an icon size\n", argv[i]);
            return 2;
        }
        QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        {
            QPainter painter(&image);
            painter.setRenderHint(QPainter::Antialiasing);
            painter.setRenderHint(QPainter::SmoothPixmapTransform);
            // Keep the aspect ratio of a non-square drawing, centred.
            QSizeF s = renderer.defaultSize().isEmpty() ? QSizeF(size, size) : QSizeF(renderer.defaultSize());
            s.scale(size, size, Qt::KeepAspectRatio);
            renderer.render(&painter, QRectF((size - s.width()) / 2, (size - s.height()) / 2, s.width(), s.height()));
        }
        const QString dir = QStringLiteral("%1/%2x%2/apps").arg(out_dir).arg(size);
        const QString file = dir + QStringLiteral("/precis.png");
        if (!QDir().mkpath(dir) || !image.save(file, "PNG")) {
            std::fprintf(stderr, "precis_render_icons: cannot write %s\n", qPrintable(file));
            return 1;
        }
    }
    return 0;
}
