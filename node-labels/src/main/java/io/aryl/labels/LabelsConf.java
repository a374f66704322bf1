package io.aryl.labels;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every configuration key of aryl-labels (the label bootstrap and the loan controller), with its
 * default and what it does. Set them in the Hadoop configuration the tool reads (yarn-site.xml on
 * its class path, {@code -conf FILE}) or as {@code -D key=value}. {@link LabelsSettings} reads and
 * checks them, and the pools' labels, which the scheduler and aryl-am read too, from aryl-api's
 * {@code PoolConf} ({@code aryl.pools.*}).
 */
public enum LabelsConf {
  ZK_CONNECT(
      "aryl.labels.zk.connect",
      "",
      "ZooKeeper connect string (host:port,...) of the leader election and its epoch; falls back to"
          + " hadoop.zk.address."),
  ZK_ROOT(
      "aryl.labels.zk.root",
      "/aryl/loan-controller",
      "ZooKeeper path under which the controller keeps its leader latch and its epoch."),
  ZK_SESSION_TIMEOUT_MS(
      "aryl.labels.zk.session-timeout-ms",
      "30000",
      "ZooKeeper session timeout in milliseconds: how long a leader cut off from ZooKeeper keeps its session."),
  ZK_CONNECTION_TIMEOUT_MS(
      "aryl.labels.zk.connection-timeout-ms",
      "15000",
      "Milliseconds to wait for a ZooKeeper connection before a call fails."),
  ZK_ACL(
      "aryl.labels.zk.acl",
      "",
      "ACL of every znode the controller creates (leader latch, epoch), as hadoop.zk.acl writes one"
          + " (scheme:id:perms,...); empty: sasl:<first component of aryl.labels.kerberos.principal>:cdrwa,"
          + "world:anyone:r with Kerberos on, world:anyone:cdrwa without."),
  KERBEROS_PRINCIPAL(
      "aryl.labels.kerberos.principal",
      "",
      "Kerberos principal of the controller, e.g. aryl/_HOST@EXAMPLE.COM (_HOST: this host's canonical name);"
          + " required when hadoop.security.authentication=kerberos. It calls the ResourceManager's web app (SPNEGO)"
          + " and ZooKeeper (SASL) as this principal."),
  KERBEROS_KEYTAB(
      "aryl.labels.kerberos.keytab",
      "",
      "Keytab file holding the key of aryl.labels.kerberos.principal, readable by the controller only; required"
          + " when hadoop.security.authentication=kerberos."),
  INSTANCE_ID(
      "aryl.labels.instance-id",
      "",
      "Name of this controller instance in the election and in the targets it sends; empty: hostname and process"
          + " id."),
  INTERVAL_MS(
      "aryl.labels.interval-ms",
      "5000",
      "Milliseconds between two decisions of the leader (read demand and the scheduler's status, send the loan"
          + " target)."),
  CAPACITY_PER_SERVER(
      "aryl.labels.capacity-per-server",
      "100",
      "Inference requests per second one inference server serves."),
  HEADROOM(
      "aryl.labels.headroom",
      "0.2",
      "Fraction of capacity kept above the demanded rate to absorb bursts: servers needed ="
          + " ceil(rate * (1 + headroom) / capacity-per-server)."),
  SAFETY_MARGIN(
      "aryl.labels.safety-margin-servers",
      "1",
      "Servers kept home beyond the need before the target allows more on loan; it is lowered only when fewer than"
          + " the need itself would be home, so demand may move within this band without changing it (hysteresis)."
          + " 1, chosen from the margin sweeps on the ResourceManager and in the simulator (docs/evaluation.md,"
          + " Inference while lending): at 0 a rise took every lent node back, and the simulator's inference was short"
          + " 65% longer for 2% more loaned GPU-hours; at 2 a 3-server pool needing 1 lends nothing. Raise it on a large pool"
          + " whose replicas start slowly: the simulator's 36 servers with 30 s starts were short 88% less at 8, for"
          + " 16% fewer loaned GPU-hours."),
  LOAN_HOLD_MS(
      "aryl.labels.loan.hold-ms",
      "300000",
      "Demand must have allowed a higher loan target continuously for this many milliseconds before it is raised."),
  LOAN_COOLDOWN_MS(
      "aryl.labels.loan.cooldown-ms",
      "600000",
      "The loan target is not raised for this many milliseconds after it was lowered: rising demand rarely falls at"
          + " once."),
  LOAN_MAX_STEP(
      "aryl.labels.loan.max-step",
      "4",
      "A raised loan target allows at most this many servers on loan beyond those on loan now."),
  RECLAIM_DEADLINE_MS(
      "aryl.labels.reclaim.deadline-ms",
      "120000",
      "When the loan target is lowered, the servers above it must be back within this many milliseconds of the"
          + " decision (the target's returnByMs)."),
  TIME_TO_SERVE_SEED_MS(
      "aryl.labels.time-to-serve.seed-ms",
      "30000",
      "Milliseconds from the decision that lowers the loan target to the servers it asks back being home (the"
          + " scheduler's shrink or preemption, drain and relabel), assumed until the controller has measured one of"
          + " its own reclaims; from then on the p90 of the last time-to-serve.window measures is used. The replica's"
          + " start-up after that is measured apart, from the services' own events (the serve source), and added;"
          + " it has no seed: 0 until measured."),
  TIME_TO_SERVE_WINDOW(
      "aryl.labels.time-to-serve.window",
      "20",
      "How many of the latest reclaims, and apart how many of the latest inference replicas' start-ups, each part"
          + " of the measured time to serve is the p90 of."),
  FORECAST_TREND_MS(
      "aryl.labels.forecast.trend-ms",
      "60000",
      "Milliseconds of demand the rate's trend is read over: the target is decided on the rate that trend reaches one"
          + " time to serve ahead, never below the rate now, so a rising rate asks servers back that much earlier;"
          + " 0: the rate now only."),
  DEMAND_SOURCES(
      "aryl.labels.demand.sources",
      "yarn-queue",
      "Comma-separated demand sources, the largest demand wins: replay, http, yarn-queue, serve (the running"
          + " aryl-serve inference services' status: their measured rate and the replicas they run or ask for)."),
  REPLAY_FILE(
      "aryl.labels.demand.replay.file",
      "",
      "ServeGen rate CSV (model,window_start_s,total_rate_rps,...) replayed by the replay source."),
  REPLAY_MODEL(
      "aryl.labels.demand.replay.model",
      "",
      "Model whose rows the replay source reads; empty: the first model in the file."),
  REPLAY_TIME_SCALE(
      "aryl.labels.demand.replay.time-scale",
      "1",
      "Trace seconds replayed per wall-clock second (e.g. 600: one 10-minute window per second)."),
  REPLAY_START_S(
      "aryl.labels.demand.replay.start-s",
      "0",
      "Trace time, in seconds, the replay starts at; the replay wraps around at the end of the trace."),
  REPLAY_RATE_SCALE(
      "aryl.labels.demand.replay.rate-scale",
      "1",
      "Factor applied to every replayed rate (to fit a trace to the size of this cluster)."),
  HTTP_URL(
      "aryl.labels.demand.http.url",
      "",
      "URL the http source GETs; it must answer JSON with the current request rate."),
  HTTP_POINTER(
      "aryl.labels.demand.http.pointer",
      "/rate",
      "JSON pointer (RFC 6901) of the rate, in requests per second, in the http source's answer."),
  HTTP_TIMEOUT_MS(
      "aryl.labels.demand.http.timeout-ms",
      "2000",
      "Connect and read timeout of the http source, in milliseconds."),
  QUEUE_PATH(
      "aryl.labels.demand.yarn.queue",
      "root.inference",
      "Queue (full path) whose used and pending GPUs on the inference label the yarn-queue source reads."),
  GPUS_PER_SERVER(
      "aryl.labels.demand.yarn.gpus-per-server",
      "8",
      "GPUs of one inference server: the yarn-queue source counts ceil((used + pending GPUs) / this) servers busy."),
  SCHEDULER_URL(
      "aryl.labels.scheduler.url",
      "",
      "Base URL of the ResourceManager web app (http://host:port), or a comma-separated list of candidates of which"
          + " the active one is used; empty: yarn.resourcemanager.webapp.address, or with HA"
          + " yarn.resourcemanager.webapp.address.ID for each ID of yarn.resourcemanager.ha.rm-ids (the https"
          + " addresses under yarn.http.policy=HTTPS_ONLY)."),
  HTTP_PORT(
      "aryl.labels.http.port",
      "8099",
      "Port of the controller's own status endpoint (GET /status, JSON); 0: any free port; -1: none."),
  HTTP_HOST(
      "aryl.labels.http.host", "0.0.0.0", "Address the controller's status endpoint binds to.");

  /**
   * Prefix of every key above; a key with this prefix that is not above is a typo and refused at
   * start-up.
   */
  public static final String PREFIX = "aryl.labels.";

  /**
   * Keys that are gone, and why: each is refused at start-up with one line naming it, so a
   * configuration written for an earlier controller does not silently keep a setting that no longer
   * does anything.
   */
  public static final Map<String, String> GONE =
      Map.of(
          "aryl.labels.reclaim.unknown-grace-ms",
          "the loan controller keeps no ledger of reclaims any more: it sends a"
              + " loan target, and the scheduler tracks the reclaims that meet it itself");

  private final String key;
  private final String defaultValue;
  private final String doc;

  LabelsConf(String key, String defaultValue, String doc) {
    this.key = key;
    this.defaultValue = defaultValue;
    this.doc = doc;
  }

  public String key() {
    return key;
  }

  public String defaultValue() {
    return defaultValue;
  }

  public String doc() {
    return doc;
  }

  public static Optional<LabelsConf> byKey(String key) {
    return Arrays.stream(values()).filter(c -> c.key.equals(key)).findFirst();
  }

  public static List<String> keys() {
    return Arrays.stream(values()).map(LabelsConf::key).toList();
  }
}
