package io.aryl.core.speedup;

import io.aryl.core.model.Checks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Turns measured throughput tables into a {@link MeasuredSpeedup}: how much faster a real model
 * trains as it gains workers.
 *
 * <p>A worker is one data-parallel replica processing a fixed local (per-replica) batch, so the
 * tables are read as weak scaling: at a chosen {@code local_bsz}, the throughput of {@code n}
 * replicas is {@code n * local_bsz / step_time} samples/s, and the speedup is that relative to one
 * replica. Of the placements measured for a replica count (how replicas are spread over nodes), the
 * fastest is kept: the scheduler is assumed to be able to pack a job well. Statistical efficiency
 * (a larger global batch may need more samples) is not modelled.
 *
 * <p>Data: the Pollux (OSDI'21) throughput profiles, repository petuum/adaptdl, branch {@code
 * osdi21-artifact}, {@code simulator/traces/<model>/}, Apache-2.0. Each model directory holds
 * {@value #PLACEMENTS} ({@code placement,local_bsz,step_time,sync_time}; {@code placement} is a
 * digit string, one digit per node giving its replicas, e.g. {@code 22} = 4 replicas on 2 nodes)
 * and {@value #SCALABILITY} ({@code num_nodes,num_replicas,local_bsz,step_time,sync_time}). Every
 * line is checked; a bad one is an error naming the file, the line and the value, never skipped.
 */
public final class ThroughputProfiles {
  public static final String PLACEMENTS = "placements.csv";
  public static final String SCALABILITY = "scalability.csv";

  private static final List<String> PLACEMENTS_COLUMNS =
      List.of("placement", "local_bsz", "step_time", "sync_time");
  private static final List<String> SCALABILITY_COLUMNS =
      List.of("num_nodes", "num_replicas", "local_bsz", "step_time", "sync_time");

  private ThroughputProfiles() {}

  /**
   * The model in {@code modelDir} at its {@linkplain #defaultLocalBatchSize(Path) default local
   * batch size}.
   */
  public static MeasuredSpeedup load(Path modelDir) {
    Profile profile = Profile.read(modelDir);
    return profile.speedup(profile.defaultLocalBatchSize());
  }

  /**
   * The model in {@code modelDir} at {@code localBatchSize} per replica, which must be measured at
   * 1 replica.
   */
  public static MeasuredSpeedup load(Path modelDir, int localBatchSize) {
    Checks.positive("localBatchSize", localBatchSize);
    return Profile.read(modelDir).speedup(localBatchSize);
  }

  /**
   * The local batch size {@link #load(Path)} uses: of those measured at 1 replica, the one measured
   * at the most replica counts; on a tie, the largest.
   */
  public static int defaultLocalBatchSize(Path modelDir) {
    return Profile.read(modelDir).defaultLocalBatchSize();
  }

  /**
   * Every model directory directly under {@code profilesRoot} that has both files, by directory
   * name in sorted order. A directory with only one of the two files is an error, as is a root
   * holding no model at all.
   */
  public static Map<String, MeasuredSpeedup> loadAll(Path profilesRoot) {
    if (!Files.isDirectory(profilesRoot)) {
      throw new IllegalArgumentException(profilesRoot + ": not a directory of throughput profiles");
    }
    SortedMap<String, MeasuredSpeedup> models = new TreeMap<>();
    List<Path> dirs;
    try (Stream<Path> children = Files.list(profilesRoot)) {
      dirs = children.filter(Files::isDirectory).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(profilesRoot + ": cannot list", e);
    }
    for (Path dir : dirs) {
      boolean placements = Files.isRegularFile(dir.resolve(PLACEMENTS));
      boolean scalability = Files.isRegularFile(dir.resolve(SCALABILITY));
      if (placements && scalability) {
        models.put(dir.getFileName().toString(), load(dir));
      } else if (placements || scalability) {
        throw new IllegalArgumentException(
            dir.resolve(placements ? SCALABILITY : PLACEMENTS)
                + ": file not found (the model directory has only "
                + (placements ? PLACEMENTS : SCALABILITY)
                + ")");
      }
    }
    if (models.isEmpty()) {
      throw new IllegalArgumentException(
          profilesRoot + ": no model directory with both " + PLACEMENTS + " and " + SCALABILITY);
    }
    return Collections.unmodifiableSortedMap(models);
  }

  /** Best measured throughput (samples/s) by local batch size, then by replica count. */
  private record Profile(Path dir, String name, Map<Integer, SortedMap<Integer, Double>> byBatch) {
    static Profile read(Path modelDir) {
      Path dir = modelDir.toAbsolutePath().normalize();
      Path name = dir.getFileName();
      Profile profile =
          new Profile(dir, name == null ? dir.toString() : name.toString(), new TreeMap<>());
      profile.readPlacements(dir.resolve(PLACEMENTS));
      profile.readScalability(dir.resolve(SCALABILITY));
      return profile;
    }

    void readPlacements(Path file) {
      forEachRow(
          file,
          PLACEMENTS_COLUMNS,
          row -> {
            int replicas = row.placementReplicas("placement");
            int localBsz = row.positiveInt("local_bsz");
            double stepTime = row.positiveNumber("step_time");
            row.nonNegativeNumber("sync_time");
            add(localBsz, replicas, replicas * (double) localBsz / stepTime);
          });
    }

    void readScalability(Path file) {
      forEachRow(
          file,
          SCALABILITY_COLUMNS,
          row -> {
            int nodes = row.positiveInt("num_nodes");
            int replicas = row.positiveInt("num_replicas");
            if (replicas < nodes) {
              throw row.error(
                  "num_replicas must be >= num_nodes (" + nodes + ")", row.get("num_replicas"));
            }
            int localBsz = row.positiveInt("local_bsz");
            double stepTime = row.positiveNumber("step_time");
            row.nonNegativeNumber("sync_time");
            add(localBsz, replicas, replicas * (double) localBsz / stepTime);
          });
    }

    void add(int localBsz, int replicas, double throughput) {
      byBatch
          .computeIfAbsent(localBsz, k -> new TreeMap<>())
          .merge(replicas, throughput, Math::max);
    }

    int defaultLocalBatchSize() {
      int best = -1;
      int bestCounts = 0;
      for (Map.Entry<Integer, SortedMap<Integer, Double>> e : byBatch.entrySet()) { // ascending bsz
        int counts = e.getValue().size();
        if (e.getValue().containsKey(1) && counts >= bestCounts) {
          best = e.getKey();
          bestCounts = counts;
        }
      }
      if (best < 0) {
        throw new IllegalArgumentException(
            dir.resolve(PLACEMENTS)
                + ": no row at 1 replica (placement '1') at any "
                + "local_bsz "
                + byBatch.keySet()
                + "; a speedup is relative to 1 replica");
      }
      return best;
    }

    MeasuredSpeedup speedup(int localBsz) {
      SortedMap<Integer, Double> table = byBatch.get(localBsz);
      if (table == null) {
        throw new IllegalArgumentException(
            dir
                + ": no row with local_bsz "
                + localBsz
                + " in "
                + PLACEMENTS
                + " or "
                + SCALABILITY
                + "; measured local_bsz: "
                + byBatch.keySet());
      }
      if (!table.containsKey(1)) {
        List<Integer> withOne = new ArrayList<>();
        byBatch.forEach(
            (bsz, t) -> {
              if (t.containsKey(1)) {
                withOne.add(bsz);
              }
            });
        throw new IllegalArgumentException(
            dir.resolve(PLACEMENTS)
                + ": no row at 1 replica with local_bsz "
                + localBsz
                + "; a speedup is relative to 1 replica; local_bsz measured at 1 replica: "
                + withOne);
      }
      return new MeasuredSpeedup(name, table);
    }
  }

  private interface RowHandler {
    void accept(Row row);
  }

  private static void forEachRow(Path file, List<String> required, RowHandler handler) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException(file + ": file not found", e);
    } catch (IOException e) {
      throw new UncheckedIOException(file + ": cannot read", e);
    }
    if (lines.isEmpty()) {
      throw new IllegalArgumentException(
          file + ":1: missing header, expected '" + String.join(",", required) + "'");
    }
    String header = lines.get(0);
    String[] names = header.split(",", -1);
    Map<String, Integer> index = new HashMap<>();
    for (int i = 0; i < names.length; i++) {
      String column = names[i].strip();
      if (index.putIfAbsent(column, i) != null) {
        throw new IllegalArgumentException(
            file + ":1: header repeats column '" + column + "', was '" + header + "'");
      }
    }
    for (String column : required) {
      if (!index.containsKey(column)) {
        throw new IllegalArgumentException(
            file
                + ":1: header has no column '"
                + column
                + "', was '"
                + header
                + "', expected '"
                + String.join(",", required)
                + "'");
      }
    }
    for (int i = 1; i < lines.size(); i++) {
      String line = lines.get(i);
      String[] fields = line.split(",", -1);
      Row row = new Row(file, i + 1, index, List.of(fields));
      if (fields.length != names.length) {
        throw row.error("expected " + names.length + " columns, found " + fields.length, line);
      }
      handler.accept(row);
    }
  }

  /** One data line, with messages naming {@code file:line}. */
  private record Row(Path file, int line, Map<String, Integer> index, List<String> fields) {
    private static final Pattern DECIMAL =
        Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");

    String get(String column) {
      return fields.get(index.get(column)).strip();
    }

    IllegalArgumentException error(String what, String value) {
      return new IllegalArgumentException(
          file + ":" + line + ": " + what + ", was '" + value + "'");
    }

    int positiveInt(String column) {
      String value = get(column);
      try {
        int n = Integer.parseInt(value);
        if (n > 0) {
          return n;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw error(column + " must be an integer > 0", value);
    }

    double positiveNumber(String column) {
      String value = get(column);
      double x = number(value);
      if (!(x > 0) || Double.isInfinite(x)) {
        throw error(column + " must be a number > 0", value);
      }
      return x;
    }

    double nonNegativeNumber(String column) {
      String value = get(column);
      double x = number(value);
      if (!(x >= 0) || Double.isInfinite(x)) {
        throw error(column + " must be a number >= 0", value);
      }
      return x;
    }

    /** Replicas of a placement: the sum of its digits, one digit (1-9) per node. */
    int placementReplicas(String column) {
      String value = get(column);
      if (value.isEmpty()) {
        throw error(column + " must not be empty (one digit per node: its replicas)", value);
      }
      int replicas = 0;
      for (int i = 0; i < value.length(); i++) {
        char c = value.charAt(i);
        if (c < '1' || c > '9') {
          throw error(column + " must be digits 1-9 (one per node: its replicas)", value);
        }
        replicas += c - '0';
      }
      return replicas;
    }

    /**
     * Plain decimal numbers only: no NaN, Infinity, hex or type suffixes that Double.parseDouble
     * would accept.
     */
    private static double number(String value) {
      if (!DECIMAL.matcher(value).matches()) {
        return Double.NaN;
      }
      return Double.parseDouble(value);
    }
  }
}
