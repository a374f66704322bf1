package io.aryl.sim.report;

import io.aryl.sim.engine.JobRecord;
import io.aryl.sim.engine.PolicyResult;
import io.aryl.sim.engine.Sample;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.Paint;
import java.awt.Stroke;
import java.awt.geom.Line2D;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.NumberFormat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItemCollection;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTick;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.TickType;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.block.BlockBorder;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.renderer.xy.XYStepRenderer;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.Range;
import org.jfree.data.xy.DefaultXYDataset;

/**
 * The simulator's charts, as 1200x700 PNGs, one line per policy in a colour that stays the same
 * across charts:
 *
 * <ul>
 *   <li>{@code utilization.png}: share of all GPUs (training pool and inference pool) busy over
 *       time, in days (hours if the samples span less than two days);
 *   <li>{@code jct-cdf.png}: CDF of job completion times, log time axis;
 *   <li>{@code queue-cdf.png}: CDF of queuing times, log time axis, waits under 1 s drawn at 1 s so
 *       the jobs that never waited stay visible as the jump at the left;
 *   <li>{@code loans.png}: loaned inference servers and queued jobs over time, for the policies
 *       that loan.
 * </ul>
 *
 * <p>Lines are cut to at most {@value #MAX_POINTS} points: time series by averaging the samples
 * over equal time buckets (said in the subtitle when it happens), CDFs by keeping evenly spaced
 * ranks.
 */
public final class Plots {
  static {
    if (System.getProperty("java.awt.headless") == null) {
      System.setProperty("java.awt.headless", "true");
    }
  }

  public static final int WIDTH = 1200;
  public static final int HEIGHT = 700;
  public static final int MAX_POINTS = 2000;
  public static final String UTILIZATION = "utilization.png";
  public static final String JCT_CDF = "jct-cdf.png";
  public static final String QUEUE_CDF = "queue-cdf.png";
  public static final String LOANS = "loans.png";

  /** Waits and JCTs below this are drawn at it on the log axes. */
  static final double FLOOR_S = 1;

  private static final double DAY_S = 86_400;
  private static final double HOUR_S = 3_600;

  /** Okabe-Ito, without the yellow that vanishes on white; repeats dashed past its end. */
  private static final Color[] COLORS = {
    new Color(0x0072B2), new Color(0xD55E00), new Color(0x009E73), new Color(0xCC79A7),
    new Color(0xE69F00), new Color(0x56B4E9), new Color(0x000000), new Color(0x8C564B)
  };

  private static final String FONT = Font.SANS_SERIF;
  private static final Font TITLE_FONT = new Font(FONT, Font.BOLD, 26);
  private static final Font SUBTITLE_FONT = new Font(FONT, Font.PLAIN, 16);
  private static final Font LABEL_FONT = new Font(FONT, Font.PLAIN, 19);
  private static final Font TICK_FONT = new Font(FONT, Font.PLAIN, 16);
  private static final Font LEGEND_FONT = new Font(FONT, Font.PLAIN, 18);
  private static final Color GRID = new Color(0xDDDDDD);
  private static final Color TEXT = new Color(0x222222);

  private Plots() {}

  /**
   * Writes the four charts into {@code dir}, creating it if needed and replacing files already
   * there.
   *
   * @throws IllegalArgumentException if two results have the same policy name
   */
  public static void write(Path dir, List<PolicyResult> results) throws IOException {
    Set<String> names = new HashSet<>();
    for (PolicyResult r : results) {
      if (!names.add(r.policy())) {
        throw new IllegalArgumentException("two results for policy '" + r.policy() + "'");
      }
    }
    Files.createDirectories(dir);
    save(utilization(results), dir.resolve(UTILIZATION));
    save(
        cdf(
            results,
            JobRecord::jctS,
            "Job completion time CDF",
            "Job completion time: submission to end (log scale)",
            null,
            false),
        dir.resolve(JCT_CDF));
    save(
        cdf(
            results,
            JobRecord::queueS,
            "Queuing time CDF",
            "Queuing time: submission to first start (log scale; waits under 1 s drawn at 1 s)",
            "The jump at \u22641 s is the share of jobs that started at once",
            true),
        dir.resolve(QUEUE_CDF));
    save(loans(results), dir.resolve(LOANS));
  }

  private static void save(JFreeChart chart, Path file) throws IOException {
    ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
  }

  // ---- the charts ----

  static JFreeChart utilization(List<PolicyResult> results) {
    double timeUnitS = timeUnitS(results);
    DefaultXYDataset data = new DefaultXYDataset();
    List<Integer> colorOf = new ArrayList<>();
    double bucketS = 0;
    double top = 0;
    for (int i = 0; i < results.size(); i++) {
      PolicyResult r = results.get(i);
      int gpus = r.trainingGpus() + r.inferenceGpus();
      if (r.samples().isEmpty()) {
        continue;
      }
      PlotData.Series s =
          PlotData.Series.ofSamples(
              r.samples(),
              timeUnitS,
              x ->
                  gpus == 0
                      ? 0
                      : 100
                          * (x.trainingPoolBusyGpus() + x.loanedBusyGpus() + x.inferenceBusyGpus())
                          / gpus);
      bucketS = Math.max(bucketS, s.bucketS());
      top = Math.max(top, Arrays.stream(s.y()).max().orElse(0));
      data.addSeries(r.policy(), s.xy());
      colorOf.add(i);
    }
    NumberAxis y = numberAxis("GPUs busy (% of all GPUs)");
    // 0-100%, unless a result claims more busy GPUs than it has: then show that too.
    y.setRange(0, Math.max(102, top * 1.02));
    y.setTickUnit(new NumberTickUnit(10));
    XYPlot plot = plot(data, timeAxis(timeUnitS), y, lines(colorOf, false));
    plot.setNoDataMessage("No samples");
    return chart("GPU utilization over time", subtitle(gpuSizes(results), bucketS), plot);
  }

  static JFreeChart cdf(
      List<PolicyResult> results,
      ToDoubleFunction<JobRecord> value,
      String title,
      String xLabel,
      String note,
      boolean floorTick) {
    DefaultXYDataset data = new DefaultXYDataset();
    List<Integer> colorOf = new ArrayList<>();
    for (int i = 0; i < results.size(); i++) {
      PolicyResult r = results.get(i);
      double[] sorted =
          r.jobs().stream()
              .mapToDouble(value)
              .filter(Double::isFinite)
              .map(v -> Math.max(v, FLOOR_S) / HOUR_S)
              .sorted()
              .toArray();
      if (sorted.length == 0) {
        continue;
      }
      data.addSeries(r.policy(), PlotData.ecdf(sorted, MAX_POINTS));
      colorOf.add(i);
    }
    DurationLogAxis x = new DurationLogAxis(xLabel, floorTick);
    NumberAxis y = numberAxis("Jobs at or below x");
    y.setRange(0, 1.02);
    y.setTickUnit(new NumberTickUnit(0.1, NumberFormat.getPercentInstance(Locale.ROOT)));
    XYPlot plot = plot(data, x, y, lines(colorOf, true));
    plot.setNoDataMessage("No finished jobs");
    return chart(title, note, plot);
  }

  static JFreeChart loans(List<PolicyResult> results) {
    double timeUnitS = timeUnitS(results);
    DefaultXYDataset loaned = new DefaultXYDataset();
    DefaultXYDataset queued = new DefaultXYDataset();
    List<Integer> colorOf = new ArrayList<>();
    double bucketS = 0;
    for (int i = 0; i < results.size(); i++) {
      PolicyResult r = results.get(i);
      boolean loans =
          r.loanedGpuS() > 0 || r.samples().stream().anyMatch(s -> s.loanedServers() > 0);
      if (!loans || r.samples().isEmpty()) {
        continue;
      }
      PlotData.Series l = PlotData.Series.ofSamples(r.samples(), timeUnitS, Sample::loanedServers);
      PlotData.Series q = PlotData.Series.ofSamples(r.samples(), timeUnitS, Sample::queuedJobs);
      bucketS = Math.max(bucketS, l.bucketS());
      loaned.addSeries(r.policy(), l.xy());
      queued.addSeries(r.policy(), q.xy());
      colorOf.add(i);
    }
    String title = "Loaned inference servers and training queue";
    if (colorOf.isEmpty()) {
      XYPlot empty =
          plot(loaned, timeAxis(timeUnitS), numberAxis("Loaned servers"), lines(colorOf, false));
      empty.setNoDataMessage("No policy loaned inference servers");
      return chart(title, null, empty);
    }
    CombinedDomainXYPlot combined = new CombinedDomainXYPlot(timeAxis(timeUnitS));
    combined.setGap(18);
    NumberAxis loanedAxis = numberAxis("Loaned servers");
    loanedAxis.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    NumberAxis queuedAxis = numberAxis("Queued jobs");
    queuedAxis.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    XYLineAndShapeRenderer top = lines(colorOf, false);
    combined.add(plot(loaned, null, loanedAxis, top), 1);
    combined.add(plot(queued, null, queuedAxis, lines(colorOf, false)), 1);
    // One legend entry per policy, not one per subplot.
    LegendItemCollection legend = new LegendItemCollection();
    for (int s = 0; s < loaned.getSeriesCount(); s++) {
      legend.add(top.getLegendItem(0, s));
    }
    combined.setFixedLegendItems(legend);
    style(combined);
    return chart(title, subtitle(null, bucketS), combined);
  }

  private static String gpuSizes(List<PolicyResult> results) {
    if (results.isEmpty()) {
      return null;
    }
    PolicyResult first = results.get(0);
    boolean same =
        results.stream()
            .allMatch(
                r ->
                    r.trainingGpus() == first.trainingGpus()
                        && r.inferenceGpus() == first.inferenceGpus());
    return same
        ? String.format(
            Locale.ROOT,
            "%d training + %d inference GPUs",
            first.trainingGpus(),
            first.inferenceGpus())
        : null;
  }

  private static String subtitle(String prefix, double bucketS) {
    String bucket = bucketS > 0 ? "Each point averages " + duration(bucketS) + " of samples" : null;
    if (prefix == null) {
      return bucket;
    }
    return bucket == null
        ? prefix
        : prefix
            + "  \u00b7  "
            + bucket.substring(0, 1).toLowerCase(Locale.ROOT)
            + bucket.substring(1);
  }

  /** A length of time in the largest unit that keeps it at least 1, to 2 significant digits. */
  static String duration(double s) {
    String[] units = {"s", "min", "h", "d"};
    double[] sizes = {1, 60, HOUR_S, DAY_S};
    int u = 0;
    while (u + 1 < sizes.length && s >= sizes[u + 1]) {
      u++;
    }
    double v = s / sizes[u];
    String num =
        v >= 10 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2g", v);
    if (num.contains(".")) {
      num = num.replaceAll("0+$", "").replaceAll("\\.$", "");
    }
    return num + " " + units[u];
  }

  // ---- styling ----

  private static JFreeChart chart(String title, String subtitle, XYPlot plot) {
    JFreeChart chart = new JFreeChart(title, TITLE_FONT, plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    chart.setAntiAlias(true);
    chart.setTextAntiAlias(true);
    chart.setPadding(new RectangleInsets(10, 10, 10, 24));
    chart.getTitle().setPaint(TEXT);
    chart.getTitle().setMargin(new RectangleInsets(4, 0, 4, 0));
    if (subtitle != null) {
      TextTitle sub = new TextTitle(subtitle, SUBTITLE_FONT);
      sub.setPaint(new Color(0x555555));
      sub.setMargin(new RectangleInsets(0, 0, 8, 0));
      chart.addSubtitle(sub);
    }
    LegendTitle legend = chart.getLegend();
    legend.setItemFont(LEGEND_FONT);
    legend.setItemPaint(TEXT);
    legend.setFrame(BlockBorder.NONE);
    legend.setBackgroundPaint(Color.WHITE);
    legend.setItemLabelPadding(new RectangleInsets(2, 6, 2, 22));
    legend.setMargin(new RectangleInsets(10, 0, 0, 0));
    return chart;
  }

  private static XYPlot plot(
      DefaultXYDataset data, ValueAxis x, ValueAxis y, XYLineAndShapeRenderer renderer) {
    XYPlot plot = new XYPlot(data, x, y, renderer);
    style(plot);
    plot.setNoDataMessageFont(new Font(FONT, Font.PLAIN, 22));
    plot.setNoDataMessagePaint(TEXT);
    if (data.getSeriesCount() == 0 && x != null) {
      // Nothing to draw: a bare frame with the message, not axes with made-up ranges.
      x.setVisible(false);
      y.setVisible(false);
      plot.setDomainGridlinesVisible(false);
      plot.setRangeGridlinesVisible(false);
    }
    return plot;
  }

  private static void style(XYPlot plot) {
    plot.setBackgroundPaint(Color.WHITE);
    plot.setOutlinePaint(new Color(0x999999));
    plot.setDomainGridlinePaint(GRID);
    plot.setRangeGridlinePaint(GRID);
    Stroke grid = new BasicStroke(1f);
    plot.setDomainGridlineStroke(grid);
    plot.setRangeGridlineStroke(grid);
    plot.setAxisOffset(new RectangleInsets(4, 4, 4, 4));
  }

  private static NumberAxis numberAxis(String label) {
    NumberAxis axis = new NumberAxis(label);
    styleAxis(axis);
    return axis;
  }

  /** Days, or hours when the samples span less than two days. */
  static double timeUnitS(List<PolicyResult> results) {
    double last =
        results.stream()
            .flatMap(r -> r.samples().stream())
            .mapToDouble(Sample::timeS)
            .max()
            .orElse(0);
    return last < 2 * DAY_S ? HOUR_S : DAY_S;
  }

  private static NumberAxis timeAxis(double unitS) {
    NumberAxis axis = numberAxis(unitS == DAY_S ? "Time (days)" : "Time (hours)");
    axis.setAutoRangeIncludesZero(false);
    axis.setLowerMargin(0.01);
    axis.setUpperMargin(0.01);
    return axis;
  }

  private static void styleAxis(ValueAxis axis) {
    axis.setLabelFont(LABEL_FONT);
    axis.setLabelPaint(TEXT);
    axis.setTickLabelFont(TICK_FONT);
    axis.setTickLabelPaint(TEXT);
    axis.setAxisLinePaint(new Color(0x999999));
    axis.setTickMarkPaint(new Color(0x999999));
  }

  /**
   * Lines (or steps) without shapes, series {@code s} drawn in the colour of policy {@code
   * colorOf.get(s)}.
   */
  private static XYLineAndShapeRenderer lines(List<Integer> colorOf, boolean steps) {
    XYLineAndShapeRenderer r =
        steps ? new XYStepRenderer() : new XYLineAndShapeRenderer(true, false);
    r.setDefaultShapesVisible(false);
    r.setDrawSeriesLineAsPath(true);
    r.setLegendLine(new Line2D.Double(-16, 0, 16, 0));
    for (int s = 0; s < colorOf.size(); s++) {
      r.setSeriesPaint(s, color(colorOf.get(s)));
      r.setSeriesStroke(s, stroke(colorOf.get(s)));
    }
    return r;
  }

  private static Paint color(int policy) {
    return COLORS[policy % COLORS.length];
  }

  private static Stroke stroke(int policy) {
    float width = 2.5f;
    if (policy < COLORS.length) {
      return new BasicStroke(width, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND);
    }
    return new BasicStroke(
        width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10f, new float[] {10f, 6f}, 0f);
  }

  /**
   * A log axis of durations held in hours, ticked at round durations (1 s, 10 s, 1 min, ... 1 wk)
   * instead of powers of ten of hours; finer round durations when the range is too narrow for three
   * of those. With {@code floorTick}, the tick at {@link #FLOOR_S} reads "\u22641 s", since values
   * below the floor are drawn there.
   */
  static final class DurationLogAxis extends LogAxis {
    private static final double[] COARSE_S = {
      1, 10, 60, 600, HOUR_S, 6 * HOUR_S, DAY_S, 7 * DAY_S, 30 * DAY_S, 365 * DAY_S
    };
    private static final double[] FINE_S = {
      0.1,
      0.2,
      0.5,
      1,
      2,
      5,
      10,
      20,
      30,
      60,
      120,
      300,
      600,
      1200,
      1800,
      HOUR_S,
      2 * HOUR_S,
      3 * HOUR_S,
      6 * HOUR_S,
      12 * HOUR_S,
      DAY_S,
      2 * DAY_S,
      3 * DAY_S,
      7 * DAY_S,
      14 * DAY_S,
      30 * DAY_S,
      90 * DAY_S,
      365 * DAY_S
    };
    private static final double MIN_GAP_PX = 70;

    private final boolean floorTick;

    DurationLogAxis(String label, boolean floorTick) {
      super(label);
      this.floorTick = floorTick;
      setSmallestValue(FLOOR_S / HOUR_S / 10);
      styleAxis(this);
    }

    @Override
    @SuppressWarnings({"rawtypes", "unchecked"})
    protected List refreshTicksHorizontal(Graphics2D g2, Rectangle2D dataArea, RectangleEdge edge) {
      List<NumberTick> ticks = new ArrayList<>();
      Range range = getRange();
      List<Double> picked = inRange(COARSE_S, range);
      if (picked.size() < 3) {
        picked = new ArrayList<>();
        double lastPx = Double.NEGATIVE_INFINITY;
        for (double s : inRange(FINE_S, range)) {
          double px = valueToJava2D(s / HOUR_S, dataArea, edge);
          if (px - lastPx >= MIN_GAP_PX) {
            picked.add(s);
            lastPx = px;
          }
        }
      }
      TextAnchor anchor =
          RectangleEdge.TOP.equals(edge) ? TextAnchor.BOTTOM_CENTER : TextAnchor.TOP_CENTER;
      for (double s : picked) {
        String text = floorTick && s == FLOOR_S ? "\u2264" + label(s) : label(s);
        ticks.add(new NumberTick(TickType.MAJOR, s / HOUR_S, text, anchor, TextAnchor.CENTER, 0.0));
      }
      return ticks;
    }

    private static List<Double> inRange(double[] candidatesS, Range hours) {
      List<Double> out = new ArrayList<>();
      for (double s : candidatesS) {
        if (hours.contains(s / HOUR_S)) {
          out.add(s);
        }
      }
      return out;
    }

    static String label(double s) {
      if (s >= 365 * DAY_S) {
        return trim(s / (365 * DAY_S)) + " y";
      }
      if (s >= 7 * DAY_S && s % (7 * DAY_S) == 0) {
        return trim(s / (7 * DAY_S)) + " wk";
      }
      if (s >= DAY_S) {
        return trim(s / DAY_S) + " d";
      }
      if (s >= HOUR_S) {
        return trim(s / HOUR_S) + " h";
      }
      if (s >= 60) {
        return trim(s / 60) + " min";
      }
      return trim(s) + " s";
    }

    private static String trim(double v) {
      return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }
  }
}
