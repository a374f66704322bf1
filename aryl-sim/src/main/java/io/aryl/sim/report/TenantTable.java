package io.aryl.sim.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.aryl.sim.engine.JobRecord;
import io.aryl.sim.engine.Metrics;
import io.aryl.sim.engine.PolicyResult;
import io.aryl.sim.engine.TenantExperiment;
import io.aryl.sim.engine.TenantExperiment.Result;
import io.aryl.sim.engine.TenantExperiment.Row;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The tenant experiment as a Markdown table (stdout, docs), tenants.json and tenants.csv. */
public final class TenantTable {
  private TenantTable() {}

  /** The header line of {@link #format}: what the table's columns are. */
  public static final String HEADER =
      "| tenant | jobs | guarantee (GPUs) | avg JCT (h), (a) fixed quotas "
          + "| (b) shared, with tenants | (c) shared, ignoring tenants | b / a | c / a | unfinished a / b / c |";

  /**
   * One row per tenant, then {@code all} (every job of every tenant, the pool) and {@code spread}
   * (max over min across tenants of each column).
   */
  public static String format(Result r) {
    StringBuilder sb = new StringBuilder();
    sb.append(HEADER).append('\n');
    sb.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    int jobs = 0;
    int gpus = 0;
    for (Row row : r.rows()) {
      TenantExperiment.Tenant t = row.tenant();
      jobs += t.jobs();
      gpus += t.guaranteeGpus();
      sb.append(
          String.format(
              "| %s | %d | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %d / %d / %d |%n",
              t.name(),
              t.jobs(),
              t.guaranteeGpus(),
              row.quotaJctS() / 3600,
              row.sharedJctS() / 3600,
              row.ignoringJctS() / 3600,
              row.sharedVsQuota(),
              row.ignoringVsQuota(),
              row.quotaUnfinished(),
              row.sharedUnfinished(),
              row.ignoringUnfinished()));
    }
    double a = quotaJct(r);
    double b = avgJct(r.shared());
    double c = avgJct(r.ignoring());
    sb.append(
        String.format(
            "| all | %d | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %d / %d / %d |%n",
            jobs,
            gpus,
            a / 3600,
            b / 3600,
            c / 3600,
            b / a,
            c / a,
            r.rows().stream().mapToInt(Row::quotaUnfinished).sum(),
            r.shared().unfinishedJobs(),
            r.ignoring().unfinishedJobs()));
    sb.append(
        String.format(
            "| spread (max / min) | | | %.2f | %.2f | %.2f | %.2f | %.2f | |%n",
            r.spread(Row::quotaJctS),
            r.spread(Row::sharedJctS),
            r.spread(Row::ignoringJctS),
            r.spread(Row::sharedVsQuota),
            r.spread(Row::ignoringVsQuota)));
    return sb.toString();
  }

  /** Average JCT over every tenant's finished jobs under (a), the separate pools together. */
  public static double quotaJct(Result r) {
    double sum = 0;
    long n = 0;
    for (PolicyResult p : r.quota().values()) {
      for (JobRecord j : p.jobs()) {
        sum += j.jctS();
        n++;
      }
    }
    return n == 0 ? Double.NaN : sum / n;
  }

  private static double avgJct(PolicyResult p) {
    return p.jobs().stream().mapToDouble(JobRecord::jctS).average().orElse(Double.NaN);
  }

  /**
   * Writes tenants.json (config, rows, spreads, each run's metrics) and tenants.csv (one row per
   * tenant).
   */
  public static void write(Path dir, Result r, Map<String, Object> extraConfig) throws IOException {
    Files.createDirectories(dir);
    Map<String, Object> doc = new LinkedHashMap<>();
    Map<String, Object> config = new LinkedHashMap<>(r.scenario().describe());
    config.put("policy", r.policy().name());
    config.putAll(extraConfig);
    doc.put("config", config);
    List<Map<String, Object>> rows = new ArrayList<>();
    StringBuilder csv =
        new StringBuilder(
            "tenant,jobs,demand_gpu_hours,guarantee_gpus,inference_servers_alone,"
                + "jct_quota_s,jct_shared_s,jct_ignoring_s,shared_vs_quota,ignoring_vs_quota,unfinished_quota,"
                + "unfinished_shared,unfinished_ignoring\n");
    for (Row row : r.rows()) {
      TenantExperiment.Tenant t = row.tenant();
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("tenant", t.name());
      m.put("jobs", t.jobs());
      m.put("demand_gpu_hours", t.demandGpuS() / 3600);
      m.put("guarantee_gpus", t.guaranteeGpus());
      m.put("inference_servers_alone", t.inferenceServers());
      m.put("jct_quota_s", row.quotaJctS());
      m.put("jct_shared_s", row.sharedJctS());
      m.put("jct_ignoring_s", row.ignoringJctS());
      m.put("shared_vs_quota", row.sharedVsQuota());
      m.put("ignoring_vs_quota", row.ignoringVsQuota());
      m.put("unfinished_quota", row.quotaUnfinished());
      m.put("unfinished_shared", row.sharedUnfinished());
      m.put("unfinished_ignoring", row.ignoringUnfinished());
      rows.add(m);
      csv.append(
          String.format(
              "%s,%d,%.3f,%d,%d,%.1f,%.1f,%.1f,%.4f,%.4f,%d,%d,%d%n",
              t.name(),
              t.jobs(),
              t.demandGpuS() / 3600,
              t.guaranteeGpus(),
              t.inferenceServers(),
              row.quotaJctS(),
              row.sharedJctS(),
              row.ignoringJctS(),
              row.sharedVsQuota(),
              row.ignoringVsQuota(),
              row.quotaUnfinished(),
              row.sharedUnfinished(),
              row.ignoringUnfinished()));
    }
    doc.put("tenants", rows);
    Map<String, Object> spread = new LinkedHashMap<>();
    spread.put("jct_quota", r.spread(Row::quotaJctS));
    spread.put("jct_shared", r.spread(Row::sharedJctS));
    spread.put("jct_ignoring", r.spread(Row::ignoringJctS));
    spread.put("shared_vs_quota", r.spread(Row::sharedVsQuota));
    spread.put("ignoring_vs_quota", r.spread(Row::ignoringVsQuota));
    doc.put("spread_max_over_min", spread);
    doc.put("sharing_pays_for_every_tenant", r.sharingPaysForEveryTenant());
    Map<String, Object> runs = new LinkedHashMap<>();
    runs.put("shared", Metrics.of(r.shared()));
    runs.put("ignoring", Metrics.of(r.ignoring()));
    r.quota().forEach((t, p) -> runs.put("quota:" + t, Metrics.of(p)));
    doc.put("runs", runs);
    new ObjectMapper()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(dir.resolve("tenants.json").toFile(), doc);
    Files.writeString(dir.resolve("tenants.csv"), csv);
  }
}
