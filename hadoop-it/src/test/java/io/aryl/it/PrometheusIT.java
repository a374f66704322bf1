package io.aryl.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.api.status.SchedulerStatus;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.hadoop.metrics2.sink.PrometheusMetricsSink;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ResourceManager's {@code /prom} (Hadoop's PrometheusMetricsSink behind {@code
 * hadoop.prometheus.endpoint.enabled}) against its JMX bean, on a cluster that lent a node, ran an
 * elastic job on it and took the node back.
 *
 * <p>The metrics are the bean's attributes, not a list kept here. JMX shows a cached snapshot
 * (refreshed at most once per metrics period, 1 s from this module's hadoop-metrics2.properties)
 * and the planning loop keeps running, so each comparison reads the bean, scrapes {@code /prom},
 * then reads the bean again after its cache expired: a metric the bean shows unchanged across the
 * scrape must have exactly that value in {@code /prom}; a counter that moved (the planning rounds)
 * must lie between the two readings.
 */
class PrometheusIT {
  private static final String BEAN = "Hadoop:service=ResourceManager,name=ArylScheduler";

  /** Metrics the planning loop moves every round, whatever else happens. */
  private static final List<String> MOVED_BY_ROUNDS =
      List.of(
          "PlanningRoundNumOps",
          "PlanningRoundAvgTime",
          "PlanningRoundLatencyNumRounds",
          "PlanningRoundLatency50thPercentileMs",
          "PlanningRoundLatency75thPercentileMs",
          "PlanningRoundLatency90thPercentileMs",
          "PlanningRoundLatency95thPercentileMs",
          "PlanningRoundLatency99thPercentileMs");

  private static final int WINDOW_S = 5;

  @TempDir Path dir;

  @Test
  @DisplayName(
      "/prom shows every Aryl metric with its help text and the value JMX shows, reclaim percentiles included")
  void promShowsEveryArylMetricAsJmxDoes() throws Exception {
    YarnConfiguration conf = ArylMiniCluster.testConf(dir.toFile());
    conf.setBoolean("hadoop.prometheus.endpoint.enabled", true);
    conf.setInt("aryl.scheduler.metrics.quantile-window-s", WINDOW_S);
    try (ArylMiniCluster cluster = ArylMiniCluster.start("prom", conf, 1, 1)) {
      String lent = cluster.nodeName(0);
      cluster.lend(0);
      cluster.awaitShowingStatus("node 0 on loan", () -> ArylStatus.onLoan(cluster, lent));
      try (TestJob e =
          TestJob.submit(cluster, "e", "training", TestJob.shape(1, 16, 1, 36000), 1, true)) {
        e.askWorkersAtOnce(16);
        cluster.awaitShowingStatus("E holds 16 workers on both nodes", () -> e.workers() == 16);
        // JMX shows a snapshot refreshed once per metrics period: wait for one taken after the
        // loan.
        ArylMiniCluster.await(
            "JMX shows the loan", Duration.ofSeconds(10), () -> jmxLong("LoanedNodes") == 1);

        long id = ArylStatus.reclaim(cluster, 1, 0).id();
        cluster.awaitShowingStatus(
            "the reclaim is done",
            () -> {
              SchedulerStatus s = ArylStatus.orNull(cluster);
              return s != null && !ArylStatus.doneWithId(s, id).isEmpty();
            });
        long tookMs = ArylStatus.doneWithId(cluster.status(), id).get(0).tookMs();
        assertThat(e.workers()).as("E shrunk to the training node").isEqualTo(8);
        // The window holding the reclaim has ended: its percentiles are shown for the next WINDOW_S
        // seconds.
        ArylMiniCluster.await(
            "JMX shows the reclaim's percentile window",
            Duration.ofSeconds(3 * WINDOW_S),
            () -> jmxLong("ReclaimDurationNumReclaims") == 1);

        Comparison c = compareUntilStable(cluster);

        assertThat(c.jmx)
            .as("the metrics JMX shows")
            .containsKeys(
                "LoanedNodes",
                "LoanedGpus",
                "ReclaimsInFlight",
                "ReclaimsStarted",
                "ReclaimsFinished",
                "ReclaimsLate",
                "ContainersShrunk",
                "ContainersMoved",
                "ContainersPreempted",
                "GpuSecondsLost",
                "Recovering",
                "RecoveryWaitMs",
                "PlanningRoundNumOps",
                "PlanningRoundAvgTime",
                "ReclaimDurationNumReclaims",
                "ReclaimDuration99thPercentileMs");
        assertThat(c.jmx).containsKeys(MOVED_BY_ROUNDS.toArray(String[]::new));
        assertThat(c.prom.get("ReclaimsFinished")).isEqualTo(1.0);
        assertThat(c.prom.get("LoanedNodes")).isEqualTo(0.0);
        assertThat(c.prom.get("ContainersShrunk")).isEqualTo(8.0);
        assertThat(c.prom.get("ReclaimDurationNumReclaims")).isEqualTo(1.0);
        // One sample: every percentile of the window is the reclaim's own duration.
        assertThat(c.prom.get("ReclaimDuration50thPercentileMs")).isEqualTo((double) tookMs);
        assertThat(c.prom.get("ReclaimDuration99thPercentileMs")).isEqualTo((double) tookMs);
        assertThat(c.prom.get("PlanningRoundNumOps")).isPositive();
        System.out.printf(
            "PrometheusIT: %d Aryl metrics in /prom, reclaim took %d ms, %s%n",
            c.prom.size(), tookMs, c.prom);
      }
    }
  }

  /** One bean reading, one scrape, and the bean read again; their values by JMX attribute name. */
  private record Comparison(Map<String, Number> jmx, Map<String, Double> prom) {}

  /**
   * Compares bean and scrape until one comparison holds for every metric that is not moved by the
   * rounds, and checks every metric on each try (help text always, values as the class comment
   * says); a state metric that differs is retried only if the bean itself changed across the scrape
   * (a percentile window ended).
   */
  private static Comparison compareUntilStable(ArylMiniCluster cluster) throws Exception {
    PrometheusMetricsSink naming = new PrometheusMetricsSink();
    ObjectName bean = new ObjectName(BEAN);
    String record = bean.getKeyProperty("name");
    List<String> unstable = new ArrayList<>();
    for (int attempt = 0; attempt < 5; attempt++) {
      Map<String, MBeanAttributeInfo> infos = metricAttributes(bean);
      Map<String, Number> before = read(bean, infos);
      ArylMiniCluster.Http scrape = cluster.get("/prom");
      Thread.sleep(1_200); // past the bean's cache (the metrics period, 1 s)
      Map<String, Number> after = read(bean, infos);
      assertThat(scrape.status()).as("GET /prom: %s", scrape.body()).isEqualTo(200);

      Map<String, Double> prom = new LinkedHashMap<>();
      unstable.clear();
      for (MBeanAttributeInfo info : infos.values()) {
        String attr = info.getName();
        String name = naming.prometheusName(record, attr);
        assertThat(scrape.body())
            .as("/prom has the help text of %s (%s)", attr, name)
            .contains("# HELP " + name + " " + info.getDescription() + "\n");
        assertThat(scrape.body())
            .as("/prom has the type of %s (%s)", attr, name)
            .containsPattern("(?m)^# TYPE " + name + " (counter|gauge)$");
        double value = sample(scrape.body(), name);
        prom.put(attr, value);
        double b = before.get(attr).doubleValue();
        double a = after.get(attr).doubleValue();
        if (MOVED_BY_ROUNDS.contains(attr)) {
          if (attr.endsWith("NumOps")) {
            assertThat(value).as("%s (%s) between the bean's readings", attr, name).isBetween(b, a);
          } else {
            assertThat(value).as("%s (%s)", attr, name).isGreaterThanOrEqualTo(0);
          }
        } else if (b == a) {
          if (value != b) {
            throw new AssertionError(
                attr + " (" + name + ") is " + value + " in /prom, " + b + " in JMX");
          }
        } else {
          unstable.add(attr + " " + b + " -> " + a);
        }
      }
      if (unstable.isEmpty()) {
        return new Comparison(before, prom);
      }
    }
    throw new AssertionError("the bean kept changing across the scrape: " + unstable);
  }

  /** The bean's metric attributes (its tag.* attributes are the records' tags, labels in /prom). */
  private static Map<String, MBeanAttributeInfo> metricAttributes(ObjectName bean)
      throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    Map<String, MBeanAttributeInfo> out = new LinkedHashMap<>();
    for (MBeanAttributeInfo a : server.getMBeanInfo(bean).getAttributes()) {
      if (!a.getName().startsWith("tag.")) {
        out.put(a.getName(), a);
      }
    }
    return out;
  }

  private static Map<String, Number> read(ObjectName bean, Map<String, MBeanAttributeInfo> infos)
      throws Exception {
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    Map<String, Number> out = new LinkedHashMap<>();
    for (String attr : infos.keySet()) {
      out.put(attr, (Number) server.getAttribute(bean, attr));
    }
    return out;
  }

  private static long jmxLong(String attr) {
    try {
      return ((Number)
              ManagementFactory.getPlatformMBeanServer().getAttribute(new ObjectName(BEAN), attr))
          .longValue();
    } catch (Exception e) {
      throw new IllegalStateException("JMX " + BEAN + " " + attr + ": " + e, e);
    }
  }

  /**
   * The one sample of this metric in the scrape (Aryl's source is one record: one line, labelled by
   * its tags).
   */
  private static double sample(String body, String name) {
    Matcher m =
        Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{([^}]*)\\} (\\S+)$").matcher(body);
    assertThat(m.find()).as("/prom has a sample of %s", name).isTrue();
    assertThat(m.group(1)).as("labels of %s", name).contains("context=\"yarn\"");
    double v = Double.parseDouble(m.group(2));
    assertThat(m.find()).as("/prom has one sample of %s", name).isFalse();
    return v;
  }
}
