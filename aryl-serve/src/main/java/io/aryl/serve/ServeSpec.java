package io.aryl.serve;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.serve.core.OptionCheck;
import io.aryl.serve.core.ScalingSettings;
import io.aryl.yarnapp.StagedFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;

/**
 * An inference service as the client submits it and its ApplicationMaster runs it: written by the
 * client as {@link ServeKeys#SPEC_FILE}, read once by the AM.
 *
 * @param name the application name
 * @param queue the YARN leaf queue
 * @param nodeLabel the partition replicas ask for (the queue's default label, named explicitly: the
 *     application's own label is the AM's partition)
 * @param scaling the bounds, the per-replica rate and the timings
 * @param gpus GPUs of a replica container
 * @param memoryMb memory of a replica container
 * @param vcores virtual cores of a replica container
 * @param pollMs how often the AM polls each replica's health and metrics
 * @param healthPath the replica's health check (200 = serving)
 * @param metricsPath the replica's metrics, Prometheus text
 * @param requestsMetric the counter of answered requests in them
 * @param command the replica command, as the client wrote it into {@link ServeKeys#REPLICA_SCRIPT}
 * @param files the files every replica gets in its working directory (the script among them)
 * @param stagingDir the service's staging directory
 * @param amMemoryMb memory of the AM's container
 */
public record ServeSpec(
    String name,
    String queue,
    String nodeLabel,
    ScalingSettings scaling,
    int gpus,
    int memoryMb,
    int vcores,
    long pollMs,
    String healthPath,
    String metricsPath,
    String requestsMetric,
    String command,
    List<StagedFile> files,
    String stagingDir,
    int amMemoryMb) {
  private static final ObjectMapper JSON = new ObjectMapper();

  public ServeSpec {
    files = files == null ? List.of() : List.copyOf(files);
    OptionCheck.atLeast("--gpus", gpus, 0);
    OptionCheck.atLeast("--memory-mb", memoryMb, 1);
    OptionCheck.atLeast("--vcores", vcores, 1);
    OptionCheck.atLeast("--poll-ms", pollMs, 100);
    for (String[] path :
        List.of(
            new String[] {"--health-path", healthPath},
            new String[] {"--metrics-path", metricsPath})) {
      if (path[1] == null || !path[1].startsWith("/")) {
        throw new IllegalArgumentException(path[0] + " must start with '/', was '" + path[1] + "'");
      }
    }
    if (requestsMetric == null || !requestsMetric.matches("[a-zA-Z_:][a-zA-Z0-9_:]*")) {
      throw new IllegalArgumentException(
          "--requests-metric must be a Prometheus metric name, was '" + requestsMetric + "'");
    }
    if (command == null || command.isBlank()) {
      throw new IllegalArgumentException("the replica command must not be empty");
    }
    OptionCheck.atLeast("--am-memory-mb", amMemoryMb, 64);
  }

  /** The same service with its files staged. */
  public ServeSpec withStaging(List<StagedFile> staged, String dir) {
    return with(nodeLabel, staged, dir);
  }

  /** The same service with its replicas on another partition. */
  public ServeSpec withNodeLabel(String label) {
    return with(label, files, stagingDir);
  }

  /** The same service but for what the client fills in after the options: where and what. */
  private ServeSpec with(String label, List<StagedFile> staged, String dir) {
    return new ServeSpec(
        name,
        queue,
        label,
        scaling,
        gpus,
        memoryMb,
        vcores,
        pollMs,
        healthPath,
        metricsPath,
        requestsMetric,
        command,
        staged,
        dir,
        amMemoryMb);
  }

  public void write(OutputStream out) throws IOException {
    JSON.writerWithDefaultPrettyPrinter().writeValue(out, this);
  }

  public static ServeSpec read(InputStream in) throws IOException {
    return JSON.readValue(in, ServeSpec.class);
  }
}
