package io.aryl.yarn.conf;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Every configuration key of the scheduler, with its default and what it does. Set them in
 * yarn-site.xml: the ResourceManager's own configuration (the Capacity Scheduler keeps
 * capacity-scheduler.xml apart, so keys there are not seen). {@link ArylSettings} reads and checks
 * them. The pools' labels are not here: the loan controller and aryl-am read them too, from
 * aryl-api's {@code PoolConf} ({@code aryl.pools.*}).
 */
public enum ArylConf {
  ENABLED(
      "aryl.scheduler.enabled",
      "true",
      "Run Aryl's rounds. false: the scheduler behaves exactly like the stock CapacityScheduler."),
  ROUND_INTERVAL_MS(
      "aryl.scheduler.round-interval-ms",
      "1000",
      "Milliseconds between planning rounds (admission, elastic allocation, reclaim progress)."),
  SHRINK_GRACE_MS(
      "aryl.scheduler.shrink-grace-ms",
      "30000",
      "Milliseconds a worker has between its PreemptionMessage and being killed: time to checkpoint."),
  RECLAIM_DEADLINE_MS(
      "aryl.scheduler.reclaim.default-deadline-ms",
      "120000",
      "Deadline of a reclaim request that does not name one, in milliseconds from the request."),
  INFERENCE_QUEUE(
      "aryl.scheduler.inference.queue",
      "root.inference",
      "Queue (full path) serving the inference label."),
  TRAINING_QUEUE(
      "aryl.scheduler.training.queue",
      "root.training",
      "Queue (full path) whose applications Aryl plans; sub-queues below it are included."),
  INFERENCE_NODES(
      "aryl.scheduler.inference.nodes",
      "",
      "Regular expression of node names (host or host:port) owned by inference; nodes ever seen with the inference"
          + " label are recognised too. A node owned by inference and labelled training is on loan."),
  GPU_TYPE(
      "aryl.scheduler.gpu-type",
      "gpu",
      "The GPU type of every node when aryl.scheduler.gpu-types is empty; with declared types, the type of a node"
          + " neither its attribute nor a rule of aryl.scheduler.gpu-type.nodes names, if it is one of them."),
  GPU_TYPES(
      "aryl.scheduler.gpu-types",
      "",
      "The cluster's GPU types, comma-separated (e.g. a100,t4), each with its training speed in"
          + " aryl.scheduler.gpu-type.TYPE.speed (relative to the reference GPU, default 1.0). Empty: one type,"
          + " aryl.scheduler.gpu-type. A node whose type is not declared is logged and left out of the plan."),
  GPU_TYPE_ATTRIBUTE(
      "aryl.scheduler.gpu-type.attribute",
      "gpu-type",
      "YARN node attribute (any prefix: nm.yarn.io from an NM attribute script, rm.yarn.io from yarn nodeattributes)"
          + " whose value is the node's GPU type."),
  GPU_TYPE_NODES(
      "aryl.scheduler.gpu-type.nodes",
      "",
      "For nodes without the attribute: type=regular-expression entries separated by spaces (e.g."
          + " 'a100=gpu-tr-.* t4=gpu-inf-.*'), matched against node names (host or host:port); the first match wins."),
  POLICY(
      "aryl.scheduler.policy",
      "aryl",
      "aryl (the paper's policy) or aryl+ (speed-aware: a gang on one GPU speed, extra workers never on slower GPUs"
          + " than the job's base, whole-job moves to faster GPUs as they free; spare GPUs shortest-remaining-first"
          + " unless aryl.scheduler.elastic-value is set; a long job stopped after its checkpoint for a much shorter"
          + " one, and a job that never ran and waited over an hour may stop one that has run an hour: see Concepts,"
          + " \"aryl+ under overload\")."),
  JOB_ORDER(
      "aryl.scheduler.job-order",
      "shortest-predicted-first",
      "Order queued jobs are offered their base workers: shortest-predicted-first or fifo."),
  ELASTIC(
      "aryl.scheduler.elastic",
      "true",
      "Give spare GPUs to elastic jobs above their minimum (phase 2). false: every job runs at its minimum."),
  ELASTIC_VALUE(
      "aryl.scheduler.elastic-value",
      "jct-reduction",
      "Worth of an elastic job's extra workers in phase 2: jct-reduction (predicted seconds saved, the paper) or"
          + " shortest-remaining-first (seconds saved weighted by 1/remaining^2: spare GPUs go to the jobs closest to"
          + " finishing)."),
  SPEEDUP_EXPONENT(
      "aryl.scheduler.speedup-exponent",
      "0.8",
      "How a job's throughput grows with its workers: n workers train n^exponent times as fast as one, the exponent"
          + " in (0, 1]; 1.0 is linear. Sets what an elastic job's extra workers are worth in phase 2; 0.8 is the"
          + " simulator's, which the policy is evaluated with."),
  STARVATION_WAIT_S(
      "aryl.scheduler.starvation-wait-s",
      "43200",
      "A job queued longer than this many seconds is starving: within the senior lane"
          + " (aryl.scheduler.starvation-share) it goes first, oldest first, and a starving job first in line that"
          + " does not fit reserves the servers that free soonest."),
  STARVATION_SHARE(
      "aryl.scheduler.starvation-share",
      "0.1",
      "The senior lane of the starvation guard: starving jobs among the oldest jobs (running or queued) holding this"
          + " share of the pool's GPUs (at least half of them while the starving jobs need no more GPUs than the pool"
          + " has) go before shorter ones; the rest of the pool stays in the job order, so overload cannot turn it into"
          + " first come, first served. In [0, 1]; 0: only the single oldest starving job goes first."),
  RESCALE_OVERHEAD_S(
      "aryl.scheduler.rescale-overhead-s",
      "30",
      "Seconds a job loses each time its width changes; prices growing and shrinking."),
  TENANT_RECLAIM_DELAY_S(
      "aryl.scheduler.tenant.reclaim-delay-s",
      "60",
      "With teams (child queues of the training queue): seconds a team's job, within the team's guarantee, waits"
          + " before other teams' jobs running on GPUs they borrowed from it are preempted; other teams' extra workers"
          + " are shrunk for it at once."),
  PREDICTOR(
      "aryl.scheduler.predictor",
      "tag",
      "Runtime predictor: tag (the job's aryl.predicted-runtime-s) or history (median of finished jobs of the same"
          + " aryl.kind, falling back to the tag)."),
  STATE_STORE(
      "aryl.scheduler.state-store",
      "auto",
      "Where Aryl keeps what must survive a ResourceManager restart or failover (nodes inference owns, reclaims in"
          + " flight, containers being drained, jobs' progress): zookeeper (at hadoop.zk.address, fenced: use with"
          + " ResourceManager HA), filesystem (aryl.scheduler.state-store.dir), memory (lost on restart), or auto"
          + " (zookeeper when ResourceManager HA is on or the ResourceManager's own store is ZKRMStateStore, else"
          + " filesystem)."),
  STATE_STORE_DIR(
      "aryl.scheduler.state-store.dir",
      "",
      "Directory of the filesystem state store (any Hadoop file system URI). Empty: a folder aryl beside the"
          + " ResourceManager's own store when it keeps one (yarn.resourcemanager.fs.state-store.uri of a"
          + " FileSystemRMStateStore, the path of a LeveldbRMStateStore), else ${hadoop.tmp.dir}/yarn/system/aryl; a"
          + " default in a temporary folder (/tmp, /var/tmp, java.io.tmpdir) stops the start, naming the path: set"
          + " this key to durable storage."),
  STATE_STORE_ZK_ROOT(
      "aryl.scheduler.state-store.zk.root",
      "/aryl-scheduler",
      "ZooKeeper path of the zookeeper state store."),
  RECOVERY_MAX_WAIT_MS(
      "aryl.scheduler.recovery.max-wait-ms",
      "60000",
      "After a restart or failover, Aryl drains, kills, shrinks and relabels nothing until every node that held its"
          + " workers or is being reclaimed has re-registered, or this many milliseconds have passed (and never before"
          + " yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms)."),
  PARTIAL_GANG_GRACE_MS(
      "aryl.scheduler.partial-gang-grace-ms",
      "60000",
      "Milliseconds a job holding fewer workers than its minimum keeps them (a NodeManager re-registering late, a"
          + " worker being replaced) before they are drained to free their GPUs."),
  MOVE_TIMEOUT_MS(
      "aryl.scheduler.move-timeout-ms",
      "30000",
      "A job moved whole to other nodes (e.g. from slow lent GPUs to fast ones) keeps its workers until its new ones"
          + " are allocated there, then changes generation once; if they are not all allocated within this many"
          + " milliseconds the move is given up and the job keeps running where it is."),
  CHECKPOINT_POLL_MS(
      "aryl.scheduler.checkpoint-poll-ms",
      "10000",
      "Milliseconds between reads of each elastic job's last checkpoint (lastCheckpointMs in its ApplicationMaster's"
          + " status); a reclaim prices preempting a job by the work since its last checkpoint or the last change of its"
          + " workers, whichever is later. 0: off, and by the time since its workers last changed only."),
  MAX_WORKERS_PER_JOB(
      "aryl.scheduler.max-workers-per-job",
      "0",
      "Most workers one Aryl job may have (its aryl.max-workers): a larger job is rejected at submission, naming the"
          + " tag, the value and the cap. 0: no cap. A queue lowers it for its jobs and those of the queues below it"
          + " with yarn.scheduler.capacity.QUEUE.aryl.max-workers-per-job in capacity-scheduler.xml (QUEUE: the"
          + " queue's full path)."),
  MAX_GPUS_PER_JOB(
      "aryl.scheduler.max-gpus-per-job",
      "0",
      "Most GPUs one Aryl job may have (aryl.max-workers x aryl.gpus-per-worker): a larger job is rejected at"
          + " submission, naming the tags, the values and the cap. 0: no cap. A queue lowers it for its jobs and those"
          + " of the queues below it with yarn.scheduler.capacity.QUEUE.aryl.max-gpus-per-job in"
          + " capacity-scheduler.xml (QUEUE: the queue's full path)."),
  METRICS_QUANTILE_WINDOW_S(
      "aryl.scheduler.metrics.quantile-window-s",
      "60",
      "Seconds of each window over which the planning round and reclaim duration percentiles are taken (metrics"
          + " PlanningRoundLatency99thPercentileMs, ReclaimDuration99thPercentileMs and their 50th to 95th): a window's"
          + " percentiles are shown until the next window ends; a window without samples shows 0."),
  WEBAPP_NAV_LINK(
      "aryl.scheduler.webapp.nav-link",
      "true",
      "Add an Aryl entry, linking to Aryl's page (/ws/v1/cluster/aryl/page), to the Cluster menu of the"
          + " ResourceManager's web UI: at start-up Aryl appends its filter to hadoop.http.filter.initializers,"
          + " keeping the RM's own authentication set-up. false: the page is still served, with no entry in the"
          + " menu.");

  private final String key;
  private final String defaultValue;
  private final String doc;

  ArylConf(String key, String defaultValue, String doc) {
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

  public static Optional<ArylConf> byKey(String key) {
    return Arrays.stream(values()).filter(c -> c.key.equals(key)).findFirst();
  }

  public static List<String> keys() {
    return Arrays.stream(values()).map(ArylConf::key).toList();
  }

  /**
   * Prefix of every key above; a key with this prefix that is not above is a typo and refused at
   * start-up.
   */
  public static final String PREFIX = "aryl.scheduler.";
}
