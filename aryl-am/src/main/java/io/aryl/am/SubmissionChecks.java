package io.aryl.am;

import io.aryl.api.conf.PoolConf;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;

/**
 * What the client checks against the cluster before it submits a job, so that a job that cannot run
 * is refused at once, naming the option and the value, instead of failing in the ResourceManager or
 * in its first worker. In order: the queue ({@link QueueCheck}), the worker's size ({@link
 * ContainerSizeCheck}), the base gang against the nodes ({@link GangFitCheck}), the checkpoint
 * directory ({@link CheckpointDirCheck}).
 */
final class SubmissionChecks {
  /**
   * The scheduler's key (aryl-yarn-scheduler's ArylConf) declaring the cluster's GPU types. Checked
   * only when this client's configuration sets it; otherwise the ResourceManager checks {@code
   * --gpu-types} at submission.
   */
  static final String GPU_TYPES = "aryl.scheduler.gpu-types";

  /**
   * What the ResourceManager says about where a job would run.
   *
   * @param queues every queue of the tree, root included
   * @param maxContainerGpus GPUs of the largest container; negative when unknown
   * @param nodes the running nodes
   */
  record ClusterFacts(
      List<QueueCheck.Queue> queues, long maxContainerGpus, List<GangFitCheck.Node> nodes) {
    ClusterFacts {
      queues = List.copyOf(queues);
      nodes = List.copyOf(nodes);
    }
  }

  private SubmissionChecks() {}

  /**
   * @return warnings for the submitter (the job is submitted all the same)
   * @throws IllegalArgumentException for the first check that refuses the job, naming the option
   *     and the value
   */
  static List<String> check(JobSpec spec, ClusterFacts facts, Configuration conf) {
    refuseRenamedKeys(conf);
    QueueCheck.Queue queue = QueueCheck.leaf(spec.queue(), facts.queues());
    ContainerSizeCheck.check(spec.gpusPerWorker(), facts.maxContainerGpus());
    List<String> warnings = new ArrayList<>();
    GangFitCheck.check(
            spec.minWorkers(),
            spec.gpusPerWorker(),
            queue.defaultNodeLabel(),
            inferenceLabel(conf),
            facts.nodes())
        .ifPresent(warnings::add);
    CheckpointDirCheck.check(spec.checkpointDir(), conf);
    checkGpuTypes(spec.gpuTypes(), conf.getTrimmed(GPU_TYPES, ""));
    return warnings;
  }

  /**
   * The inference pool's label, from the key the scheduler and the loan controller read in the same
   * yarn-site.xml (aryl-api's {@link PoolConf}): its nodes are the ones that may be lent to
   * training.
   */
  static String inferenceLabel(Configuration conf) {
    return conf.getTrimmed(PoolConf.INFERENCE_LABEL.key(), PoolConf.INFERENCE_LABEL.defaultValue());
  }

  /**
   * A pool's label under a key it no longer has would be ignored here: refused, naming the key to
   * set instead.
   */
  private static void refuseRenamedKeys(Configuration conf) {
    for (Map.Entry<String, String> e : conf) {
      Optional<String> renamed = PoolConf.renamed(e.getKey(), e.getValue());
      if (renamed.isPresent()) {
        throw new IllegalArgumentException(renamed.get());
      }
    }
  }

  /** Every type asked for must be one the cluster declares, when this client knows which. */
  static void checkGpuTypes(List<String> asked, String declared) {
    if (declared.isEmpty()) {
      return;
    }
    List<String> known =
        java.util.Arrays.stream(declared.split(","))
            .map(t -> t.trim().toLowerCase(java.util.Locale.ROOT))
            .filter(t -> !t.isEmpty())
            .toList();
    for (String t : asked) {
      if (!known.contains(t.toLowerCase(java.util.Locale.ROOT))) {
        throw new IllegalArgumentException(
            "--gpu-types: '"
                + t
                + "' is not a GPU type of this cluster (its types: "
                + String.join(", ", known)
                + ")");
      }
    }
  }
}
