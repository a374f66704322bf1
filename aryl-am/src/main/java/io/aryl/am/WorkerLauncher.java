package io.aryl.am;

import io.aryl.core.job.CheckpointReport;
import io.aryl.yarnapp.StagedFile;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.LocalResource;

/**
 * Builds the launch context of a worker of a generation: the container's main process is the
 * supervisor ({@link AmKeys#SUPERVISOR_FILE}), which runs the job's command ({@link
 * AmKeys#WORKER_SCRIPT}) as its child.
 */
public final class WorkerLauncher {
  private final JobSpec spec;
  private final String jobId;
  private final String amUrl;
  private final String reportToken;
  private final LocalResource supervisor;

  /**
   * @param amUrl the status server of this attempt, where supervisors report their worker's exit
   * @param reportToken what they show it with
   * @param supervisor the staged supervisor script ({@link SupervisorScript#stage})
   */
  public WorkerLauncher(
      JobSpec spec, String jobId, String amUrl, String reportToken, LocalResource supervisor) {
    this.spec = spec;
    this.jobId = jobId;
    this.amUrl = amUrl;
    this.reportToken = reportToken;
    this.supervisor = supervisor;
  }

  /**
   * The environment of worker {@code id} in generation {@code g}: the user's, then Aryl's (which
   * wins).
   */
  public Map<String, String> env(Generation g, String id) {
    Map<String, String> env = new HashMap<>(spec.env());
    env.putAll(g.env(id));
    env.putAll(jobEnv());
    return env;
  }

  /**
   * Aryl's variables that no generation changes (checkpoint directory and marker, discovery script,
   * the AM's URL and report token, the job id): every container's, whatever its launcher ({@link
   * TorchrunLauncher} too).
   */
  Map<String, String> jobEnv() {
    Map<String, String> env = new HashMap<>();
    env.put(AmKeys.CHECKPOINT_DIR, spec.checkpointDir());
    if (!spec.checkpointDir().isEmpty()) {
      env.put(CheckpointReport.MARKER_ENV, CheckpointReport.markerPath(spec.checkpointDir()));
    }
    env.put(
        AmKeys.DISCOVERY_SCRIPT,
        ApplicationConstants.Environment.PWD.$$() + "/" + AmKeys.DISCOVERY_FILE);
    env.put(AmKeys.AM_URL, amUrl);
    env.put(AmKeys.JOB_ID, jobId);
    env.put(AmKeys.REPORT_TOKEN, reportToken);
    return env;
  }

  /** The supervisor's command line: it is the container's process (exec), the worker its child. */
  static String command() {
    String log = ApplicationConstants.LOG_DIR_EXPANSION_VAR;
    return "exec /bin/bash "
        + AmKeys.SUPERVISOR_FILE
        + " /bin/bash "
        + AmKeys.WORKER_SCRIPT
        + " 1>>"
        + log
        + "/worker.stdout 2>>"
        + log
        + "/worker.stderr";
  }

  public ContainerLaunchContext worker(Generation g, String id) {
    return ContainerLaunchContext.newInstance(
        resources(), env(g, id), List.of(command()), null, null, null);
  }

  /** The job's files and the supervisor, linked into the container's working directory. */
  Map<String, LocalResource> resources() {
    Map<String, LocalResource> out = StagedFile.localResources(spec.files());
    out.put(AmKeys.SUPERVISOR_FILE, supervisor);
    return out;
  }
}
