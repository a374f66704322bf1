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
    ProcessBuilder pb = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true);
    pb.environment().put("ARYL_CHECKPOINT_DIR", dir.resolve("ckpt").toString());
    pb.environment().put("RANK", Integer.toString(rank));
    pb.environment().put("WORLD_SIZE", Integer.toString(worldSize));
    return pb.start();
  }

  @Test
  @DisplayName("rank 0 counts WORLD_SIZE units a second and writes done; the others exit when it is done")
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
}
