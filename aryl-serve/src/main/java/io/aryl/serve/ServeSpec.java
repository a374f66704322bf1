package io.aryl.serve;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.aryl.serve.core.ScalingSettings;
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

  /**
   * A file in the staging directory, localised into each replica's directory under {@code name}.
   */
  public record StagedFile(String name, String uri, long size, long modificationTime) {}

  public ServeSpec {
    files = files == null ? List.of() : List.copyOf(files);
    if (gpus < 0) {
      throw new IllegalArgumentException("--gpus must be >= 0, was " + gpus);
    }
    if (memoryMb < 1) {
      throw new IllegalArgumentException("--memory-mb must be >= 1, was " + memoryMb);
    }
    if (vcores < 1) {
      throw new IllegalArgumentException("--vcores must be >= 1, was " + vcores);
    }
    if (pollMs < 100) {
      throw new IllegalArgumentException("--poll-ms must be >= 100, was " + pollMs);
    }
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
    if (amMemoryMb < 64) {
      throw new IllegalArgumentException("--am-memory-mb must be >= 64, was " + amMemoryMb);
    }
  }

  /** The same service with its files staged. */
  public ServeSpec withStaging(List<StagedFile> staged, String dir) {
    return new ServeSpec(
        name,
        queue,
        nodeLabel,
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

  /** The same service with its replicas on another partition. */
  public ServeSpec withNodeLabel(String label) {
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
        files,
        stagingDir,
        amMemoryMb);
  }

  public void write(OutputStream out) throws IOException {
    JSON.writerWithDefaultPrettyPrinter().writeValue(out, this);
  }

  public static ServeSpec read(InputStream in) throws IOException {
    return JSON.readValue(in, ServeSpec.class);
  }
}
