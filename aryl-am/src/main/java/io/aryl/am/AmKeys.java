package io.aryl.am;

/**
 * Every configuration key, environment variable and file name shared by the client, the AM and the
 * workers.
 */
public final class AmKeys {
  private AmKeys() {}

  // Configuration keys (yarn-site.xml or -D on the client).
  /**
   * Directory on the default file system where the client stages a job's files; one sub-directory
   * per job.
   */
  public static final String STAGING_DIR = "aryl.am.staging-dir";

  /**
   * The aryl-am jar to ship as the AM's code, when the client does not run from that jar (e.g. from
   * an IDE).
   */
  public static final String AM_JAR = "aryl.am.jar";

  /**
   * The partition of the AM's container, the default of {@code --am-node-label}: {@value
   * #AM_NODE_LABEL_AUTO} (the default partition when a NodeManager runs there, else the workers'
   * partition), "" (the default partition) or a node label. Workers use the queue's label either
   * way. See {@code AmPartition}.
   */
  public static final String AM_NODE_LABEL = "aryl.am.node-label-expression";

  /** The value of {@link #AM_NODE_LABEL} that lets the client choose the AM's partition. */
  public static final String AM_NODE_LABEL_AUTO = "auto";

  public static final String AM_NODE_LABEL_DEFAULT = AM_NODE_LABEL_AUTO;

  /**
   * Environment of the AM: the node label its workers ask for (the queue's default label at
   * submission; "" is the default partition). Workers name it because the application's own label
   * is the AM's partition.
   */
  public static final String WORKER_NODE_LABEL_ENV = "ARYL_WORKER_NODE_LABEL";

  /**
   * Milliseconds the AM waits after a membership change before starting a new generation (batches
   * changes); also the longest a new AM attempt waits for the previous attempt's workers to come
   * back before giving up adopting them.
   */
  public static final String SETTLE_MS = "aryl.am.settle-ms";

  public static final long SETTLE_MS_DEFAULT = 1000;

  /** Milliseconds between the AM's heartbeats to the RM. */
  public static final String HEARTBEAT_MS = "aryl.am.heartbeat-ms";

  public static final int HEARTBEAT_MS_DEFAULT = 500;

  /**
   * {@code --launcher torchrun}: restarts added to {@code --max-restarts} in torchrun's {@code
   * --max_restarts}, for the changes of membership an agent survives (each may charge it once). See
   * {@link TorchrunLauncher}.
   */
  public static final String TORCHRUN_CHANGE_ALLOWANCE = "aryl.am.torchrun.change-allowance";

  public static final int TORCHRUN_CHANGE_ALLOWANCE_DEFAULT = 100;

  /**
   * {@code --launcher torchrun}: torchrun's join_timeout, seconds an agent waits in a rendezvous
   * for min nodes.
   */
  public static final String TORCHRUN_JOIN_TIMEOUT_S = "aryl.am.torchrun.join-timeout-s";

  public static final int TORCHRUN_JOIN_TIMEOUT_S_DEFAULT = 3600;

  /**
   * {@code --launcher torchrun}: torchrun's last_call_timeout, seconds a rendezvous of at least min
   * nodes waits for more before it completes.
   */
  public static final String TORCHRUN_LAST_CALL_TIMEOUT_S = "aryl.am.torchrun.last-call-timeout-s";

  public static final int TORCHRUN_LAST_CALL_TIMEOUT_S_DEFAULT = 3;

  // Environment of a worker (what torchrun-style launchers read, and Aryl's own).
  public static final String WORLD_SIZE = "WORLD_SIZE";
  public static final String RANK = "RANK";
  public static final String LOCAL_RANK = "LOCAL_RANK";
  public static final String LOCAL_WORLD_SIZE = "LOCAL_WORLD_SIZE";
  public static final String MASTER_ADDR = "MASTER_ADDR";
  public static final String MASTER_PORT = "MASTER_PORT";
  public static final String GENERATION = "ARYL_GENERATION";
  public static final String CHECKPOINT_DIR = "ARYL_CHECKPOINT_DIR";

  /** host:slots of every worker of the generation, comma-separated. */
  public static final String HOSTS = "ARYL_HOSTS";

  /** Path of the host-discovery script (Horovod elastic's --host-discovery-script). */
  public static final String DISCOVERY_SCRIPT = "ARYL_DISCOVERY_SCRIPT";

  /** The AM's status page (its /hosts prints the current generation's hosts). */
  public static final String AM_URL = "ARYL_AM_URL";

  public static final String JOB_ID = "ARYL_JOB_ID";

  /**
   * What the worker's supervisor shows the ApplicationMaster with its exit reports (one per AM
   * attempt).
   */
  public static final String REPORT_TOKEN = "ARYL_REPORT_TOKEN";

  // Files in the AM's and workers' working directories (YARN local resources).
  public static final String JOB_FILE = "aryl-job.json";
  public static final String WORKER_SCRIPT = "aryl-worker.sh";
  public static final String DISCOVERY_FILE = "aryl-discover-hosts.sh";

  /**
   * The main process of every worker container: runs the worker, keeps the container between
   * generations and reports the worker's exit to the AM. The AM stages it in the job's staging
   * directory.
   */
  public static final String SUPERVISOR_FILE = "aryl-supervise.sh";

  public static final String AM_JAR_FILE = "aryl-am.jar";

  /**
   * The submitting client's configuration, shipped to the AM of a MiniYARNCluster job (it knows the
   * RM address).
   */
  public static final String CLIENT_CONF_FILE = "yarn-site.xml";

  /**
   * In the staging directory: the current generation's {@link GenerationRecord} (JSON), so that the
   * next AM attempt can adopt the running workers or at least continue the generation count.
   */
  public static final String GENERATION_RECORD_FILE = "generation.json";

  /** YARN application type of Aryl jobs: `list` shows these. */
  public static final String APPLICATION_TYPE = "ARYL";

  public static final String GPU = "yarn.io/gpu";
}
