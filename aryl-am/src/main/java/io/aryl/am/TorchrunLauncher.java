package io.aryl.am;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.LocalResource;

/**
 * The launch context of a container of a {@code --launcher torchrun} job: its main process is the
 * supervisor ({@link AmKeys#SUPERVISOR_FILE}), which runs {@value #SCRIPT_FILE}, which execs
 * torchrun's elastic agent ({@code PYTHON -m torch.distributed.run}, what the {@code torchrun}
 * script runs) with the options built here, followed by the job's command (the training script and
 * its arguments):
 *
 * <pre>
 * PYTHON -m torch.distributed.run --nnodes=MIN:MAX --nproc_per_node=K --rdzv_backend=c10d
 *     --rdzv_endpoint=AM_HOST:STORE_PORT --rdzv_id=RUN_ID
 *     --rdzv_conf=is_host=false,join_timeout=J,last_call_timeout=L --max_restarts=R --monitor_interval=1
 *     --redirects=1 --tee=1 --log_dir=&lt;LOG_DIR&gt;/torchelastic SCRIPT ARGS...
 * </pre>
 *
 * <ul>
 *   <li>The rendezvous store is the AM's ({@link RendezvousStore}), on the AM's host, which no
 *       reclaim takes; {@code is_host=false}: no agent tries to host it, not even one on the AM's
 *       host.
 *   <li>{@code RUN_ID} is the application id, with {@code -N} for the N-th rendezvous of this AM
 *       attempt (after a restart of every agent: see {@link AgentGroup}).
 *   <li>{@code R} = {@code --max-restarts} + {@value AmKeys#TORCHRUN_CHANGE_ALLOWANCE} (default
 *       {@value AmKeys#TORCHRUN_CHANGE_ALLOWANCE_DEFAULT}): torchrun charges an agent one restart
 *       whenever its workers fail, and the survivors' workers of a shrink fail their collective;
 *       the allowance is for those.
 *   <li>MASTER_ADDR/MASTER_PORT of the workers are torchrun's (the rank-0 agent takes a free port
 *       on its host for each round), so containers on one host cannot collide; the AM sets no RANK,
 *       WORLD_SIZE or MASTER_* here.
 * </ul>
 */
public final class TorchrunLauncher {
  /** The script between the supervisor and the agent, staged by the AM like the supervisor. */
  public static final String SCRIPT_FILE = "aryl-torchrun.sh";

  /**
   * torchrun's --monitor_interval: how often an agent looks at its workers and for nodes waiting to
   * join.
   */
  static final int MONITOR_INTERVAL_S = 1;

  /**
   * torchrun's log level for the agents (its rendezvous lines: rounds, ranks, master port), unless
   * --env sets it.
   */
  static final String LOG_LEVEL = "LOGLEVEL";

  /** The AM's settings for the agents (yarn-site.xml, as the other aryl.am keys). */
  public record Settings(int changeAllowance, int joinTimeoutS, int lastCallTimeoutS) {
    /**
     * @throws IllegalArgumentException naming the key and the value
     */
    public Settings {
      require(
          changeAllowance >= 0,
          AmKeys.TORCHRUN_CHANGE_ALLOWANCE + " must be >= 0, was " + changeAllowance);
      require(
          joinTimeoutS >= 1, AmKeys.TORCHRUN_JOIN_TIMEOUT_S + " must be >= 1, was " + joinTimeoutS);
      require(
          lastCallTimeoutS >= 1,
          AmKeys.TORCHRUN_LAST_CALL_TIMEOUT_S + " must be >= 1, was " + lastCallTimeoutS);
    }

    public static Settings of(Configuration conf) {
      return new Settings(
          conf.getInt(AmKeys.TORCHRUN_CHANGE_ALLOWANCE, AmKeys.TORCHRUN_CHANGE_ALLOWANCE_DEFAULT),
          conf.getInt(AmKeys.TORCHRUN_JOIN_TIMEOUT_S, AmKeys.TORCHRUN_JOIN_TIMEOUT_S_DEFAULT),
          conf.getInt(
              AmKeys.TORCHRUN_LAST_CALL_TIMEOUT_S, AmKeys.TORCHRUN_LAST_CALL_TIMEOUT_S_DEFAULT));
    }

    public static Settings defaults() {
      return new Settings(
          AmKeys.TORCHRUN_CHANGE_ALLOWANCE_DEFAULT,
          AmKeys.TORCHRUN_JOIN_TIMEOUT_S_DEFAULT,
          AmKeys.TORCHRUN_LAST_CALL_TIMEOUT_S_DEFAULT);
    }
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  private final JobSpec spec;
  private final Settings settings;
  private final String jobId;
  private final WorkerLauncher base;
  private final LocalResource script;

  /**
   * @param base the env launcher's builder, for what every container has (files, supervisor, Aryl's
   *     variables)
   * @param script {@value #SCRIPT_FILE}, staged ({@link SupervisorScript#stage(Configuration,
   *     org.apache.hadoop.fs.Path, String)})
   */
  public TorchrunLauncher(
      JobSpec spec, Settings settings, String jobId, WorkerLauncher base, LocalResource script) {
    this.spec = spec;
    this.settings = settings;
    this.jobId = jobId;
    this.base = base;
    this.script = script;
  }

  /**
   * The rendezvous id of the job's {@code incarnation}-th rendezvous in this AM attempt's store.
   */
  public static String runId(String jobId, int incarnation) {
    return incarnation <= 1 ? jobId : jobId + "-" + incarnation;
  }

  /**
   * torchrun's --max_restarts: the job's --max-restarts plus the allowance for the scheduler's
   * changes.
   */
  public static int maxRestarts(JobSpec spec, Settings settings) {
    return spec.maxRestarts() + settings.changeAllowance();
  }

  /**
   * The agent's command line up to the training script, which {@value #SCRIPT_FILE} appends from
   * the job.
   */
  public static List<String> agentCommand(
      JobSpec spec, Settings settings, String storeHost, int storePort, String runId) {
    List<String> c = new ArrayList<>(List.of(spec.python(), "-m", "torch.distributed.run"));
    c.add("--nnodes=" + spec.minWorkers() + ":" + spec.maxWorkers());
    c.add("--nproc_per_node=" + spec.nprocPerNode());
    c.add("--rdzv_backend=c10d");
    c.add("--rdzv_endpoint=" + storeHost + ":" + storePort);
    c.add("--rdzv_id=" + runId);
    c.add(
        "--rdzv_conf=is_host=false,join_timeout="
            + settings.joinTimeoutS()
            + ",last_call_timeout="
            + settings.lastCallTimeoutS());
    c.add("--max_restarts=" + maxRestarts(spec, settings));
    c.add("--monitor_interval=" + MONITOR_INTERVAL_S);
    // torch 1.13's default --redirects/--tee 0 fails on Python 3.11; 1 keeps the workers' stdout in
    // the log directory
    // too, and on the agent's stdout.
    c.add("--redirects=1");
    c.add("--tee=1");
    c.add("--log_dir=" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + "/torchelastic");
    return c;
  }

  /**
   * The container's command: the supervisor, running {@value #SCRIPT_FILE} with the agent's command
   * line.
   */
  static String command(List<String> agent) {
    String log = ApplicationConstants.LOG_DIR_EXPANSION_VAR;
    return "exec /bin/bash "
        + AmKeys.SUPERVISOR_FILE
        + " /bin/bash "
        + SCRIPT_FILE
        + " "
        + String.join(" ", agent)
        + " 1>>"
        + log
        + "/worker.stdout 2>>"
        + log
        + "/worker.stderr";
  }

  /**
   * The environment of an agent of rendezvous {@code incarnation}: the user's, then Aryl's job-wide
   * variables (no RANK, WORLD_SIZE or MASTER_*: torchrun sets those for each worker), and {@link
   * AmKeys#GENERATION} = the incarnation, for the supervisor's exit report only ({@value
   * #SCRIPT_FILE} unsets it for the agent).
   */
  Map<String, String> env(int incarnation) {
    Map<String, String> env = new HashMap<>(spec.env());
    env.putIfAbsent(LOG_LEVEL, "INFO");
    env.putAll(base.jobEnv());
    env.put(AmKeys.GENERATION, Integer.toString(incarnation));
    return env;
  }

  /**
   * The launch context of an agent of rendezvous {@code incarnation}, against the store at
   * host:port.
   */
  public ContainerLaunchContext agent(int incarnation, String storeHost, int storePort) {
    Map<String, LocalResource> resources = new HashMap<>(base.resources());
    resources.put(SCRIPT_FILE, script);
    String command =
        command(agentCommand(spec, settings, storeHost, storePort, runId(jobId, incarnation)));
    return ContainerLaunchContext.newInstance(
        resources, env(incarnation), List.of(command), null, null, null);
  }

  public Settings settings() {
    return settings;
  }
}
