package io.aryl.conf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.yarn.rm.ArylMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.metrics2.MetricsRecord;
import org.apache.hadoop.metrics2.MetricsSource;
import org.apache.hadoop.metrics2.impl.MetricsCollectorImpl;
import org.apache.hadoop.metrics2.lib.MetricsAnnotations;
import org.apache.hadoop.metrics2.sink.PrometheusMetricsSink;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard against the metrics Aryl publishes. The metric names a query may use are
 * not listed here: they are what Hadoop's PrometheusMetricsSink writes (its {@code # TYPE} lines)
 * for a snapshot of {@link ArylMetrics}, taken as the metrics system takes it ({@code
 * getMetrics(collector, all=true)}).
 */
@DisplayName("The Grafana dashboard")
class GrafanaDashboardTest {
  static final String DASHBOARD = "grafana-aryl.json";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern TYPE = Pattern.compile("(?m)^# TYPE (\\S+) (counter|gauge)$");

  /**
   * PromQL words that are not metric names where they stand (functions are recognised by their
   * parenthesis).
   */
  private static final Set<String> KEYWORDS =
      Set.of(
          "by",
          "without",
          "on",
          "ignoring",
          "group_left",
          "group_right",
          "bool",
          "offset",
          "and",
          "or",
          "unless",
          "inf",
          "nan");

  static Set<String> published;
  static JsonNode dashboard;

  @BeforeAll
  static void read() throws IOException {
    published = prometheusNames();
    try (InputStream in = Templates.url(DASHBOARD).openStream()) {
      dashboard = JSON.readTree(in);
    }
  }

  /** The names PrometheusMetricsSink gives every metric of a fresh {@link ArylMetrics}. */
  static Set<String> prometheusNames() throws IOException {
    ArylMetrics metrics = new ArylMetrics(60);
    MetricsSource source = MetricsAnnotations.makeSource(metrics);
    MetricsCollectorImpl collector = new MetricsCollectorImpl();
    source.getMetrics(collector, true);
    PrometheusMetricsSink sink = new PrometheusMetricsSink();
    for (MetricsRecord r : collector.getRecords()) {
      sink.putMetrics(r);
    }
    sink.flush();
    StringWriter out = new StringWriter();
    sink.writeMetrics(out);
    Set<String> names = new TreeSet<>();
    Matcher m = TYPE.matcher(out.toString());
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }

  /** Every query of the dashboard (panel targets and template variables), by where it is. */
  static Map<String, String> queries(JsonNode dashboard) {
    Map<String, String> out = new LinkedHashMap<>();
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        out.put(
            "panel '" + panel.path("title").asText() + "' " + target.path("refId").asText(),
            target.path("expr").asText());
      }
    }
    for (JsonNode variable : dashboard.path("templating").path("list")) {
      if ("query".equals(variable.path("type").asText())) {
        JsonNode q = variable.path("query");
        out.put(
            "variable $" + variable.path("name").asText(),
            q.isTextual() ? q.asText() : q.path("query").asText());
      }
    }
    return out;
  }

  /**
   * The metric names a PromQL expression selects: identifiers outside strings, label matchers,
   * ranges and by/without lists, that are neither a function (followed by a parenthesis), a keyword
   * nor a number.
   */
  static Set<String> metricNames(String expr) {
    // Grafana's label_values(metric, label) in a variable: the label is no metric
    String s =
        expr.replaceAll("\\blabel_values\\((.*),\\s*\\w+\\s*\\)", "($1)")
            .replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"")
            .replaceAll("\\{[^}]*}", " ")
            .replaceAll("\\[[^]]*]", " ")
            .replaceAll("\\$\\{?\\w+}?", " ")
            .replaceAll("\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ");
    Set<String> names = new LinkedHashSet<>();
    Matcher m = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*").matcher(s);
    while (m.find()) {
      String word = m.group();
      boolean function = s.substring(m.end()).matches("(?s)\\s*\\(.*");
      boolean number = m.start() > 0 && Character.isDigit(s.charAt(m.start() - 1));
      if (!function && !number && !KEYWORDS.contains(word.toLowerCase(Locale.ROOT))) {
        names.add(word);
      }
    }
    return names;
  }

  /**
   * The queries' metric names Aryl does not publish, each with where it is used; empty when all
   * exist.
   */
  static List<String> unknownMetrics(JsonNode dashboard, Set<String> published) {
    List<String> unknown = new ArrayList<>();
    queries(dashboard)
        .forEach(
            (where, expr) -> {
              for (String name : metricNames(expr)) {
                if (!published.contains(name)) {
                  unknown.add(where + ": " + name + " in " + expr);
                }
              }
            });
    return unknown;
  }

  @Test
  @DisplayName("is a template next to the others, with panels that each query something")
  void hasPanels() {
    assertThat(dashboard.path("panels")).isNotEmpty();
    assertThat(dashboard.path("panels"))
        .allSatisfy(
            p -> {
              assertThat(p.path("targets"))
                  .as("targets of panel '%s'", p.path("title").asText())
                  .isNotEmpty();
              assertThat(p.path("targets"))
                  .allSatisfy(
                      t ->
                          assertThat(metricNames(t.path("expr").asText()))
                              .as("metrics of %s", t)
                              .isNotEmpty());
            });
  }

  @Test
  @DisplayName(
      "queries only metric names that Aryl's metrics have under PrometheusMetricsSink's naming")
  void queriesOnlyPublishedMetrics() {
    assertThat(published)
        .as("names the sink writes for ArylMetrics")
        .contains(
            "aryl_scheduler_loaned_nodes", "aryl_scheduler_reclaim_duration99th_percentile_ms");
    assertThat(unknownMetrics(dashboard, published))
        .as("queries of %s naming no Aryl metric (Aryl publishes %s)", DASHBOARD, published)
        .isEmpty();
  }

  @Test
  @DisplayName(
      "shows loans, reclaims, shrinks/preemptions/moves, lost GPU-seconds, recovery and both p99s")
  void coversTheOperatorsView() {
    Set<String> used = new TreeSet<>();
    queries(dashboard).values().forEach(q -> used.addAll(metricNames(q)));
    assertThat(used)
        .contains(
            "aryl_scheduler_loaned_nodes",
            "aryl_scheduler_loaned_gpus",
            "aryl_scheduler_reclaims_in_flight",
            "aryl_scheduler_reclaims_late",
            "aryl_scheduler_containers_shrunk",
            "aryl_scheduler_containers_preempted",
            "aryl_scheduler_containers_moved",
            "aryl_scheduler_gpu_seconds_lost",
            "aryl_scheduler_recovering",
            "aryl_scheduler_planning_round_latency99th_percentile_ms",
            "aryl_scheduler_reclaim_duration99th_percentile_ms");
  }

  @Test
  @DisplayName("uses a Prometheus datasource variable in every panel and query")
  void usesTheDatasourceVariable() {
    JsonNode variables = dashboard.path("templating").path("list");
    assertThat(variables)
        .anySatisfy(
            v -> {
              assertThat(v.path("type").asText()).isEqualTo("datasource");
              assertThat(v.path("query").asText()).isEqualTo("prometheus");
              assertThat(v.path("name").asText()).isEqualTo("datasource");
            });
    assertThat(dashboard.path("panels"))
        .allSatisfy(
            p -> {
              assertThat(p.path("datasource").path("uid").asText()).isEqualTo("${datasource}");
              assertThat(p.path("targets"))
                  .allSatisfy(
                      t ->
                          assertThat(t.path("datasource").path("uid").asText())
                              .isEqualTo("${datasource}"));
            });
  }

  @Test
  @DisplayName(
      "check refuses a query of a metric that does not exist, and reads PromQL around the names")
  void theCheckRefusesAnUnknownMetric() throws IOException {
    JsonNode bad =
        JSON.readTree(
            "{\"panels\":[{\"title\":\"t\",\"targets\":[{\"refId\":\"A\",\"expr\":"
                + "\"sum by (hostname) (rate(aryl_scheduler_reclaims_lost{context=\\\"yarn\\\"}[5m]))\"}]}]}");
    assertThat(unknownMetrics(bad, published))
        .singleElement()
        .asString()
        .contains("panel 't' A: aryl_scheduler_reclaims_lost");
    assertThat(metricNames("label_values(a_b{c=\"d\"}, hostname)")).containsExactly("a_b");
    assertThat(
            metricNames(
                "histogram_quantile(0.99, sum by (le) (rate(a_b[5m]))) / on(x) group_left c"
                    + " > bool 1e3 offset 5m or max_over_time(d{e=\"f g\"}[$__range])"))
        .containsExactly("a_b", "c", "d");
    assertThatThrownBy(() -> assertThat(unknownMetrics(bad, published)).isEmpty())
        .isInstanceOf(AssertionError.class);
  }
}
