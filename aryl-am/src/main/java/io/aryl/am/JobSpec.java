package io.aryl.am;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.aryl.core.job.JobShape;
import io.aryl.yarnapp.StagedFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the client asks for and the AM runs: the job's shape, worker size, command and files.
 * Travels to the AM as {@link AmKeys#JOB_FILE} (JSON).
 *
 * @param command the worker's shell command (run by bash in the worker's working directory)
 * @param files files shipped to every worker, already staged (filled in by the client)
 * @param stagingDir the job's staging directory on the default file system (filled in by the
 *     client)
 * @param launcher how each container runs the command: {@value #ENV_LAUNCHER} (the AM forms every
 *     generation and sets RANK, WORLD_SIZE, MASTER_*) or {@value #TORCHRUN_LAUNCHER} (one torchrun
 *     agent per container; see {@link TorchrunLauncher})
 * @param nprocPerNode worker processes per container (torchrun's {@code --nproc_per_node}); 1 with
 *     the env launcher
 * @param python the interpreter with PyTorch, for torchrun's agents and the AM's rendezvous store
 * @param gpuTypes the GPU types the job may run on ({@code aryl.gpu-types}); empty: any
 */
public record JobSpec(
    String name,
    String queue,
    int minWorkers,
    int maxWorkers,
    int gpusPerWorker,
    int memoryMb,
    int vcores,
    long predictedRuntimeS,
    String kind,
    String checkpointDir,
    int maxRestarts,
    long graceMs,
    int amMemoryMb,
    int amAttempts,
    Map<String, String> env,
    String command,
    List<StagedFile> files,
    String stagingDir,
    String launcher,
    int nprocPerNode,
    String python,
    List<String> gpuTypes) {

  /**
   * The default launcher: the AM forms every generation itself, workers read RANK, WORLD_SIZE and
   * MASTER_*.
   */
  public static final String ENV_LAUNCHER = "env";

  /** torchrun's elastic agent in every container, with the AM hosting its rendezvous store. */
  public static final String TORCHRUN_LAUNCHER = "torchrun";

  public static final String DEFAULT_PYTHON = "python3";

  private static final ObjectMapper JSON = new ObjectMapper();

  public JobSpec {
    launcher = launcher == null ? ENV_LAUNCHER : launcher;
    python = python == null ? DEFAULT_PYTHON : python;
    kind = kind == null ? "" : kind;
    checkpointDir = checkpointDir == null ? "" : checkpointDir;
    env = env == null ? Map.of() : new TreeMap<>(env);
    files = files == null ? List.of() : List.copyOf(files);
    stagingDir = stagingDir == null ? "" : stagingDir;
    gpuTypes = gpuTypes == null ? List.of() : List.copyOf(gpuTypes);
  }

  /** A job of any GPU type. */
  public JobSpec(
      String name,
      String queue,
      int minWorkers,
      int maxWorkers,
      int gpusPerWorker,
      int memoryMb,
      int vcores,
      long predictedRuntimeS,
      String kind,
      String checkpointDir,
      int maxRestarts,
      long graceMs,
      int amMemoryMb,
      int amAttempts,
      Map<String, String> env,
      String command,
      List<StagedFile> files,
      String stagingDir,
      String launcher,
      int nprocPerNode,
      String python) {
    this(
        name,
        queue,
        minWorkers,
        maxWorkers,
        gpusPerWorker,
        memoryMb,
        vcores,
        predictedRuntimeS,
        kind,
        checkpointDir,
        maxRestarts,
        graceMs,
        amMemoryMb,
        amAttempts,
        env,
        command,
        files,
        stagingDir,
        launcher,
        nprocPerNode,
        python,
        List.of());
  }

  /** A job of the env launcher: one worker process per container. */
  public JobSpec(
      String name,
      String queue,
      int minWorkers,
      int maxWorkers,
      int gpusPerWorker,
      int memoryMb,
      int vcores,
      long predictedRuntimeS,
      String kind,
      String checkpointDir,
      int maxRestarts,
      long graceMs,
      int amMemoryMb,
      int amAttempts,
      Map<String, String> env,
      String command,
      List<StagedFile> files,
      String stagingDir) {
    this(
        name,
        queue,
        minWorkers,
        maxWorkers,
        gpusPerWorker,
        memoryMb,
        vcores,
        predictedRuntimeS,
        kind,
        checkpointDir,
        maxRestarts,
        graceMs,
        amMemoryMb,
        amAttempts,
        env,
        command,
        files,
        stagingDir,
        ENV_LAUNCHER,
        1,
        DEFAULT_PYTHON);
  }

  /** This job with another launcher, processes per container and interpreter. */
  public JobSpec withLauncher(String launcher, int nprocPerNode, String python) {
    return new JobSpec(
        name,
        queue,
        minWorkers,
        maxWorkers,
        gpusPerWorker,
        memoryMb,
        vcores,
        predictedRuntimeS,
        kind,
        checkpointDir,
        maxRestarts,
        graceMs,
        amMemoryMb,
        amAttempts,
        env,
        command,
        files,
        stagingDir,
        launcher,
        nprocPerNode,
        python,
        gpuTypes);
  }

  /** This job, accepting only these GPU types (none: any). */
  public JobSpec withGpuTypes(List<String> types) {
    return new JobSpec(
        name,
        queue,
        minWorkers,
        maxWorkers,
        gpusPerWorker,
        memoryMb,
        vcores,
        predictedRuntimeS,
        kind,
        checkpointDir,
        maxRestarts,
        graceMs,
        amMemoryMb,
        amAttempts,
        env,
        command,
        files,
        stagingDir,
        launcher,
        nprocPerNode,
        python,
        types);
  }

  /** Whether each container runs a torchrun agent ({@code --launcher torchrun}). */
  public boolean torchrun() {
    return TORCHRUN_LAUNCHER.equals(launcher);
  }

  /**
   * Refuses a spec that cannot run.
   *
   * @throws IllegalArgumentException naming the field and the value
   */
  public JobSpec validate() {
    require(name != null && !name.isBlank(), "--name must not be empty, was '" + name + "'");
    require(queue != null && !queue.isBlank(), "--queue must not be empty, was '" + queue + "'");
    require(minWorkers >= 1, "--min-workers must be >= 1, was " + minWorkers);
    require(
        maxWorkers >= minWorkers,
        "--max-workers must be >= --min-workers (" + minWorkers + "), was " + maxWorkers);
    require(
        maxWorkers <= JobShape.MAX_WORKERS_LIMIT,
        "--max-workers must be <= " + JobShape.MAX_WORKERS_LIMIT + ", was " + maxWorkers);
    require(gpusPerWorker >= 1, "--gpus must be >= 1, was " + gpusPerWorker);
    require(memoryMb >= 1, "--memory-mb must be >= 1, was " + memoryMb);
    require(vcores >= 1, "--vcores must be >= 1, was " + vcores);
    require(predictedRuntimeS >= 1, "--predicted-runtime-s must be >= 1, was " + predictedRuntimeS);
    require(maxRestarts >= 0, "--max-restarts must be >= 0, was " + maxRestarts);
    require(graceMs >= 0, "--grace-ms must be >= 0, was " + graceMs);
    require(amMemoryMb >= 128, "--am-memory-mb must be >= 128, was " + amMemoryMb);
    require(amAttempts >= 1, "--am-attempts must be >= 1, was " + amAttempts);
    require(command != null && !command.isBlank(), "the worker command (after --) is missing");
    require(
        kind.matches("[A-Za-z0-9_.-]*"),
        "--kind must be letters, digits, '.', '_' or '-', was '" + kind + "'");
    for (String key : env.keySet()) {
      require(
          key.matches("[A-Za-z_][A-Za-z0-9_]*"),
          "--env name must be a shell variable name, was '" + key + "'");
    }
    require(
        launcher.equals(ENV_LAUNCHER) || launcher.equals(TORCHRUN_LAUNCHER),
        "--launcher must be "
            + ENV_LAUNCHER
            + " or "
            + TORCHRUN_LAUNCHER
            + ", was '"
            + launcher
            + "'");
    require(nprocPerNode >= 1, "--nproc-per-node must be >= 1, was " + nprocPerNode);
    require(
        torchrun() || nprocPerNode == 1,
        "--nproc-per-node "
            + nprocPerNode
            + " needs --launcher "
            + TORCHRUN_LAUNCHER
            + " (the "
            + ENV_LAUNCHER
            + " launcher runs one worker process per container)");
    require(
        nprocPerNode <= gpusPerWorker,
        "--nproc-per-node "
            + nprocPerNode
            + " is more than --gpus "
            + gpusPerWorker
            + ": each worker process takes at least one of its container's GPUs");
    for (String t : gpuTypes) {
      require(
          t.matches("[A-Za-z0-9][A-Za-z0-9_.-]*"),
          "--gpu-types must be GPU type names (letters, digits, '.', '_', '-') separated by commas, was '"
              + String.join(",", gpuTypes)
              + "'");
    }
    require(
        python.matches("[A-Za-z0-9_./+-]+"),
        "--python must be a program name or path (letters, digits, '.', '_', '/', '+', '-'), was '"
            + python
            + "'");
    return this;
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  /** The job's shape as the scheduler reads it from the application tags (the job contract). */
  public JobShape shape() {
    return new JobShape(
        minWorkers, maxWorkers, gpusPerWorker, predictedRuntimeS, kind, new TreeSet<>(gpuTypes));
  }

  public JobSpec withStaging(List<StagedFile> staged, String dir) {
    return new JobSpec(
        name,
        queue,
        minWorkers,
        maxWorkers,
        gpusPerWorker,
        memoryMb,
        vcores,
        predictedRuntimeS,
        kind,
        checkpointDir,
        maxRestarts,
        graceMs,
        amMemoryMb,
        amAttempts,
        env,
        command,
        staged,
        dir,
        launcher,
        nprocPerNode,
        python,
        gpuTypes);
  }

  public void write(OutputStream out) throws IOException {
    JSON.writerWithDefaultPrettyPrinter().writeValue(out, this);
  }

  /** Reads a spec; one written before the launcher options were there is an env launcher job. */
  public static JobSpec read(InputStream in) throws IOException {
    ObjectNode tree = (ObjectNode) JSON.readTree(in);
    if (!tree.has("nprocPerNode")) {
      tree.put("nprocPerNode", 1);
    }
    return JSON.treeToValue(tree, JobSpec.class);
  }
}
