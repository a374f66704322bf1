package io.aryl.am;

import io.aryl.yarnapp.RefusedSubmission;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code submit}: builds a {@link JobSpec} from the options, refuses a bad one or one the cluster
 * cannot run ({@link SubmissionChecks}), submits it, optionally waits.
 */
@Command(
    name = "submit",
    sortOptions = false,
    description = "Submit an elastic training job.",
    footer =
        "%nExample:%n  yarn jar aryl-am.jar submit --name bert --min-workers 2 --max-workers 8 --gpus 1 \\%n"
            + "    --predicted-runtime-s 3600 --checkpoint-dir hdfs:///ckpt/bert --wait -- python train.py")
final class SubmitCommand implements Callable<Integer> {
  @ParentCommand Main main;
  @Spec CommandSpec commandSpec;

  @Option(
      names = "--name",
      description = "Job name (default: ${DEFAULT-VALUE}).",
      defaultValue = "aryl-job")
  String name;

  @Option(
      names = "--queue",
      description = "YARN queue (default: ${DEFAULT-VALUE}).",
      defaultValue = "training")
  String queue;

  @Option(
      names = "--min-workers",
      required = true,
      description = "Base workers, started together or not at all.")
  int minWorkers;

  @Option(
      names = "--max-workers",
      description = "Most workers the job can use (default: --min-workers).")
  Integer maxWorkers;

  @Option(
      names = "--gpus",
      description = "GPUs per worker (default: ${DEFAULT-VALUE}).",
      defaultValue = "1")
  int gpus;

  @Option(
      names = "--memory-mb",
      description = "Memory per worker, MB (default: ${DEFAULT-VALUE}).",
      defaultValue = "4096")
  int memoryMb;

  @Option(
      names = "--vcores",
      description = "Virtual cores per worker (default: ${DEFAULT-VALUE}).",
      defaultValue = "1")
  int vcores;

  @Option(
      names = "--predicted-runtime-s",
      required = true,
      description = "Predicted runtime at --min-workers, seconds (orders the queue).")
  long predictedRuntimeS;

  @Option(
      names = "--kind",
      description = "Job family, for the scheduler's history predictor.",
      defaultValue = "")
  String kind;

  @Option(
      names = "--checkpoint-dir",
      description = "Where workers checkpoint and resume (ARYL_CHECKPOINT_DIR).",
      defaultValue = "")
  String checkpointDir;

  @Option(
      names = "--max-restarts",
      description = "Worker failures the job survives (default: ${DEFAULT-VALUE}).",
      defaultValue = "3")
  int maxRestarts;

  @Option(
      names = "--grace-ms",
      description =
          "Milliseconds a preempted worker has after SIGTERM before its "
              + "container is released (default: ${DEFAULT-VALUE}).",
      defaultValue = "30000")
  long graceMs;

  @Option(
      names = "--env",
      description = "Environment variable of every worker, NAME=VALUE (repeatable).")
  Map<String, String> env = Map.of();

  @Option(
      names = "--file",
      description = "Local file shipped to every worker's working directory (repeatable).")
  List<File> files = new ArrayList<>();

  @Option(
      names = "--am-memory-mb",
      description = "ApplicationMaster memory, MB (default: ${DEFAULT-VALUE}).",
      defaultValue = "512")
  int amMemoryMb;

  @Option(
      names = "--am-node-label",
      paramLabel = "LABEL",
      description =
          "Partition of the ApplicationMaster's container: auto (the default partition when a "
              + "NodeManager runs there, else the workers' partition), '' (the default partition) "
              + "or a node label (default: "
              + AmKeys.AM_NODE_LABEL
              + ", else auto).")
  String amNodeLabel;

  @Option(
      names = "--am-attempts",
      description =
          "ApplicationMaster attempts; workers survive an AM restart "
              + "(default: ${DEFAULT-VALUE}).",
      defaultValue = "2")
  int amAttempts;

  @Option(
      names = "--launcher",
      description =
          "How each worker container runs the command: env (the AM sets RANK, "
              + "WORLD_SIZE, MASTER_* for each generation) or torchrun (a torchrun elastic agent per container, the command "
              + "being the training script and its arguments) (default: ${DEFAULT-VALUE}).",
      defaultValue = JobSpec.ENV_LAUNCHER)
  String launcher;

  @Option(
      names = "--nproc-per-node",
      description =
          "With --launcher torchrun: worker processes per container, at most "
              + "--gpus (default: --gpus).")
  Integer nprocPerNode;

  @Option(
      names = "--python",
      description =
          "With --launcher torchrun: the Python with PyTorch that runs the agents "
              + "and the AM's rendezvous store (default: ${DEFAULT-VALUE}).",
      defaultValue = JobSpec.DEFAULT_PYTHON)
  String python;

  @Option(
      names = "--gpu-types",
      split = ",",
      paramLabel = "TYPE",
      description = "GPU types the job may run on, comma-separated (e.g. a100,h100); default: any.")
  List<String> gpuTypes = new ArrayList<>();

  @Option(
      names = "--wait",
      description = "Follow the job to its end; exit 0 if it succeeded, 1 if not.")
  boolean waitForEnd;

  @Parameters(
      paramLabel = "COMMAND",
      arity = "0..*",
      description = "After --: the worker command (one argument is a shell command line).")
  List<String> command = new ArrayList<>();

  JobSpec spec() {
    return new JobSpec(
        name,
        queue,
        minWorkers,
        maxWorkers == null ? minWorkers : maxWorkers,
        gpus,
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
        shellCommand(command),
        List.of(),
        "",
        launcher,
        nprocPerNode != null ? nprocPerNode : JobSpec.TORCHRUN_LAUNCHER.equals(launcher) ? gpus : 1,
        python,
        gpuTypes.stream().map(String::trim).toList());
  }

  /**
   * One argument: a shell command line as given. Several: each quoted, so they reach the program
   * unchanged.
   */
  static String shellCommand(List<String> args) {
    if (args.size() == 1) {
      return args.get(0);
    }
    List<String> quoted = new ArrayList<>();
    for (String a : args) {
      quoted.add(a.matches("[A-Za-z0-9_./:=,+@%-]+") ? a : "'" + a.replace("'", "'\\''") + "'");
    }
    return String.join(" ", quoted);
  }

  @Override
  public Integer call() throws Exception {
    JobSpec spec;
    try {
      spec = spec().validate();
      for (File f : files) {
        if (!f.isFile()) {
          throw new IllegalArgumentException("--file: no such file '" + f + "'");
        }
      }
    } catch (IllegalArgumentException e) {
      throw new ParameterException(commandSpec.commandLine(), e.getMessage());
    }
    try (JobSubmitter submitter = new JobSubmitter(main.conf())) {
      JobSubmitter.NewJob job = submitter.newJob();
      List<String> warnings;
      SubmissionChecks.ClusterFacts facts = submitter.facts(job);
      try {
        warnings = SubmissionChecks.check(spec, facts, main.conf());
      } catch (IllegalArgumentException e) {
        throw new ParameterException(commandSpec.commandLine(), e.getMessage());
      }
      String amLabel;
      try {
        amLabel = submitter.amNodeLabel(amNodeLabel, spec, facts);
      } catch (IllegalArgumentException e) {
        // The options are right; the cluster has nowhere to start the AM: one line, no usage.
        throw new RefusedSubmission(e.getMessage(), e);
      }
      for (String w : warnings) {
        commandSpec.commandLine().getErr().println("warning: " + w);
      }
      ApplicationId id = submitter.submit(job, spec, files, amLabel);
      main.out().println("submitted " + id);
      main.out().flush();
      return waitForEnd ? submitter.waitFor(id, main.out()) : 0;
    }
  }
}
