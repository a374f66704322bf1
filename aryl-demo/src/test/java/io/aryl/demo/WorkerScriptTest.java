package io.aryl.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkerScriptTest {
  @TempDir Path dir;

  private Process start(String command, int rank, int worldSize) throws Exception {
    return start(command, rank, worldSize, null);
  }

  /**
   * A worker on the NodeManager of port {@code nmPort}, speeds from {@code speeds} (null: neither
   * set).
   */
  private Process start(String command, int rank, int worldSize, Integer nmPort) throws Exception {
    ProcessBuilder pb = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true);
    pb.environment().put("ARYL_CHECKPOINT_DIR", dir.resolve("ckpt").toString());
    pb.environment().put("RANK", Integer.toString(rank));
    pb.environment().put("WORLD_SIZE", Integer.toString(worldSize));
    pb.environment().put("ARYL_GENERATION", "3");
    if (nmPort != null) {
      pb.environment().put("NM_PORT", Integer.toString(nmPort));
      pb.environment().put(WorkerScript.SPEEDS_ENV, dir.resolve("speeds").toString());
    }
    return pb.start();
  }

  @Test
  @DisplayName(
      "rank 0 counts WORLD_SIZE units a second and writes done; the others exit when it is done")
  void countsDownThenAllExit() throws Exception {
    String cmd = WorkerScript.command(4);
    long t0 = System.nanoTime();
    Process other = start(cmd, 1, 2);
    Process rank0 = start(cmd, 0, 2);
    assertThat(rank0.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(rank0.exitValue()).isZero();
    double s = (System.nanoTime() - t0) / 1e9;
    assertThat(s).as("4 units at 2 a second").isBetween(1.9, 4.0);
    assertThat(other.waitFor(5, TimeUnit.SECONDS)).isTrue();
    assertThat(other.exitValue()).isZero();
    assertThat(Files.exists(dir.resolve("ckpt/done"))).isTrue();
  }

  @Test
  @DisplayName("a new generation resumes from the checkpoint")
  void resumes() throws Exception {
    Files.createDirectories(dir.resolve("ckpt"));
    Files.writeString(dir.resolve("ckpt/left"), "1\n");
    long t0 = System.nanoTime();
    Process rank0 = start(WorkerScript.command(1000), 0, 1);
    assertThat(rank0.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(rank0.exitValue()).isZero();
    assertThat((System.nanoTime() - t0) / 1e9).as("1 unit left, not 1000").isLessThan(4);
    assertThat(Files.readString(dir.resolve("ckpt/left")).trim()).isEqualTo("0");
  }

  @Test
  @DisplayName(
      "a job runs at its slowest worker's pace: WORLD_SIZE x the lowest speed of its ranks' nodes")
  void slowestWorkerSetsThePace() throws Exception {
    Files.writeString(dir.resolve("speeds"), "41001 1000\n41002 500\n");
    String cmd = WorkerScript.command(4);
    long t0 = System.nanoTime();
    Process rank0 = start(cmd, 0, 2, 41001); // fast node
    Process slow = start(cmd, 1, 2, 41002); // half-speed node
    assertThat(rank0.waitFor(15, TimeUnit.SECONDS)).isTrue();
    assertThat(rank0.exitValue()).isZero();
    double s = (System.nanoTime() - t0) / 1e9;
    assertThat(s).as("4 units at 2 x 0.5 a second, not 2 a second").isBetween(3.9, 7.0);
    assertThat(slow.waitFor(5, TimeUnit.SECONDS)).isTrue();
    assertThat(Files.readString(dir.resolve("ckpt/speed.g3.r1")).trim())
        .as("rank 1 reports its speed")
        .isEqualTo("500");
  }

  @Test
  @DisplayName(
      "on full-speed nodes, or nodes the file does not list, the pace is WORLD_SIZE a second")
  void fullSpeedAndUnlisted() throws Exception {
    Files.writeString(dir.resolve("speeds"), "41001 1000\n");
    String cmd = WorkerScript.command(4);
    long t0 = System.nanoTime();
    Process other = start(cmd, 1, 2, 41009); // not listed: speed 1
    Process rank0 = start(cmd, 0, 2, 41001);
    assertThat(rank0.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat((System.nanoTime() - t0) / 1e9).as("4 units at 2 a second").isBetween(1.9, 4.0);
    assertThat(other.waitFor(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  @DisplayName("rank 0 makes no progress until every rank of its generation has reported")
  void waitsForEveryRank() throws Exception {
    Process rank0 = start(WorkerScript.command(2), 0, 2);
    assertThat(rank0.waitFor(3, TimeUnit.SECONDS)).as("rank 1 never started").isFalse();
    assertThat(Files.readString(dir.resolve("ckpt/left")).trim()).isEqualTo("2");
    Process other = start(WorkerScript.command(2), 1, 2);
    assertThat(rank0.waitFor(5, TimeUnit.SECONDS)).isTrue();
    assertThat(other.waitFor(5, TimeUnit.SECONDS)).isTrue();
  }
}
