package io.aryl.it.spark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.resource.ResourceInformation;

/**
 * SparkPi with GPU tasks: every task takes one GPU ({@code spark.task.resource.gpu.amount=1}), samples points of the
 * unit square and reports where it ran and which GPU addresses Spark assigned it. The driver writes what the tasks
 * reported, then the estimate, to the file named by its second argument (renamed into place once complete): in yarn
 * cluster mode the driver runs in the ApplicationMaster's container, whose logs the NodeManager deletes with the
 * application.
 *
 * <p>Arguments: {@code SLICES RESULT_FILE}. Each result line: {@code task PARTITION executor=ID container=CONTAINER_ID
 * gpus=A,B inside=N}; the last one {@code pi=ESTIMATE samples=N}.
 */
public final class GpuPi {
  private static final int SAMPLES_PER_SLICE = 100_000;

  private GpuPi() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      throw new IllegalArgumentException("usage: GpuPi SLICES RESULT_FILE, was " + List.of(args));
    }
    int slices = Integer.parseInt(args[0]);
    Path result = Path.of(args[1]);
    List<String> tasks;
    try (JavaSparkContext sc = new JavaSparkContext(new SparkConf())) {
      List<Integer> partitions = IntStream.range(0, slices).boxed().toList();
      tasks = sc.parallelize(partitions, slices).map(GpuPi::sample).collect();
    }
    List<String> lines = new ArrayList<>(tasks);
    long inside = 0;
    for (String t : tasks) {
      inside += Long.parseLong(t.substring(t.lastIndexOf("inside=") + "inside=".length()));
    }
    long samples = (long) slices * SAMPLES_PER_SLICE;
    lines.add("pi=" + 4.0 * inside / samples + " samples=" + samples);
    Path tmp = result.resolveSibling(result.getFileName() + ".tmp");
    Files.write(tmp, lines, StandardCharsets.UTF_8);
    Files.move(tmp, result, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /** One slice: points inside the quarter circle, and where it ran with which GPUs. */
  private static String sample(int partition) {
    TaskContext task = TaskContext.get();
    Map<String, ResourceInformation> resources = task.resourcesJMap();
    ResourceInformation gpu = resources.get("gpu");
    String gpus = gpu == null ? "" : String.join(",", gpu.addresses());
    SplittableRandom random = new SplittableRandom(partition);
    long inside = 0;
    for (int i = 0; i < SAMPLES_PER_SLICE; i++) {
      double x = random.nextDouble();
      double y = random.nextDouble();
      if (x * x + y * y <= 1) {
        inside++;
      }
    }
    return "task " + partition + " executor=" + SparkEnv.get().executorId() + " container="
        + System.getenv("CONTAINER_ID") + " gpus=" + gpus + " inside=" + inside;
  }
}
