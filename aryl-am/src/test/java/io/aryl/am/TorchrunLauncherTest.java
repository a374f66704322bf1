package io.aryl.am;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.LocalResourceType;
import org.apache.hadoop.yarn.api.records.LocalResourceVisibility;
import org.apache.hadoop.yarn.api.records.URL;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What every container of a {@code --launcher torchrun} job runs: the agent's command line and
 * environment.
 */
@DisplayName("TorchrunLauncher: the agent's command line")
class TorchrunLauncherTest {
  private static final String JOB = "application_1_0007";

  @TempDir Path dir;

  private static JobSpec torchrunJob(
      int min, int max, int gpus, int nproc, int restarts, String python) {
    return new JobSpec(
        "j",
        "training",
        min,
        max,
        gpus,
        1024,
        1,
        60,
        "",
        "/ckpt",
        restarts,
        1000,
        512,
        2,
        Map.of("MY_VAR", "x"),
        "train.py --steps 10",
        List.of(),
        "",
        JobSpec.TORCHRUN_LAUNCHER,
        nproc,
        python);
  }

  private static LocalResource resource(String name) {
    return LocalResource.newInstance(
        URL.newInstance("file", "", -1, "/staging/" + name),
        LocalResourceType.FILE,
        LocalResourceVisibility.APPLICATION,
        10,
        20);
  }

  private static TorchrunLauncher launcher(JobSpec spec) {
    WorkerLauncher base =
        new WorkerLauncher(spec, JOB, "http://am:1234/", "token", resource(AmKeys.SUPERVISOR_FILE));
    return new TorchrunLauncher(
        spec,
        TorchrunLauncher.Settings.defaults(),
        JOB,
        base,
        resource(TorchrunLauncher.SCRIPT_FILE));
  }

  @Test
  @DisplayName(
      "the agent gets the AM's store with is_host=false, --nnodes=min:max, the run id and the sized"
          + " --max_restarts, exactly so")
  void theExactCommandLine() {
    ContainerLaunchContext clc =
        launcher(torchrunJob(2, 4, 4, 2, 3, "/usr/bin/python3")).agent(1, "amhost", 45229);
    assertThat(clc.getCommands())
        .containsExactly(
            "exec /bin/bash aryl-supervise.sh /bin/bash aryl-torchrun.sh"
                + " /usr/bin/python3 -m torch.distributed.run --nnodes=2:4 --nproc_per_node=2 --rdzv_backend=c10d"
                + " --rdzv_endpoint=amhost:45229 --rdzv_id=application_1_0007"
                + " --rdzv_conf=is_host=false,join_timeout=3600,last_call_timeout=3 --max_restarts=103 --monitor_interval=1"
                + " --redirects=1 --tee=1 --log_dir=<LOG_DIR>/torchelastic"
                + " 1>><LOG_DIR>/worker.stdout 2>><LOG_DIR>/worker.stderr");
    assertThat(clc.getLocalResources())
        .containsKeys(AmKeys.SUPERVISOR_FILE, TorchrunLauncher.SCRIPT_FILE);
  }

  @Test
  @DisplayName("each rendezvous after the first of an AM attempt has its own run id")
  void runIds() {
    assertThat(TorchrunLauncher.runId(JOB, 1)).isEqualTo(JOB);
    assertThat(TorchrunLauncher.runId(JOB, 2)).isEqualTo(JOB + "-2");
    assertThat(
            launcher(torchrunJob(1, 1, 1, 1, 0, "python3")).agent(3, "h", 1).getCommands().get(0))
        .contains(" --rdzv_id=" + JOB + "-3 ");
  }

  @Test
  @DisplayName(
      "the agent's environment has Aryl's job-wide variables, and none a generation sets: torchrun sets"
          + " RANK, WORLD_SIZE and MASTER_* for each worker")
  void environment() {
    Map<String, String> env = launcher(torchrunJob(2, 4, 4, 2, 3, "python3")).env(2);
    assertThat(env)
        .doesNotContainKeys(
            AmKeys.RANK,
            AmKeys.WORLD_SIZE,
            AmKeys.MASTER_ADDR,
            AmKeys.MASTER_PORT,
            AmKeys.LOCAL_RANK,
            AmKeys.LOCAL_WORLD_SIZE,
            AmKeys.HOSTS);
    assertThat(env)
        .containsEntry(AmKeys.GENERATION, "2")
        .containsEntry(AmKeys.CHECKPOINT_DIR, "/ckpt")
        .containsEntry(AmKeys.JOB_ID, JOB)
        .containsEntry(AmKeys.REPORT_TOKEN, "token")
        .containsEntry("MY_VAR", "x")
        .containsEntry("LOGLEVEL", "INFO");
  }

  @Test
  @DisplayName("torchrun's --max_restarts is --max-restarts plus the change allowance")
  void maxRestarts() {
    Configuration conf = new Configuration(false);
    conf.setInt(AmKeys.TORCHRUN_CHANGE_ALLOWANCE, 7);
    assertThat(
            TorchrunLauncher.maxRestarts(
                torchrunJob(1, 1, 1, 1, 2, "p"), TorchrunLauncher.Settings.of(conf)))
        .isEqualTo(9);
  }

  static Stream<Arguments> badSettings() {
    return Stream.of(
        Arguments.of(
            AmKeys.TORCHRUN_CHANGE_ALLOWANCE,
            -1,
            "aryl.am.torchrun.change-allowance must be >= 0, was -1"),
        Arguments.of(
            AmKeys.TORCHRUN_JOIN_TIMEOUT_S,
            0,
            "aryl.am.torchrun.join-timeout-s must be >= 1, was 0"),
        Arguments.of(
            AmKeys.TORCHRUN_LAST_CALL_TIMEOUT_S,
            0,
            "aryl.am.torchrun.last-call-timeout-s must be >= 1, was 0"));
  }

  @ParameterizedTest(name = "{0} = {1}")
  @MethodSource("badSettings")
  @DisplayName("bad settings are refused naming the key and the value")
  void badSettingsAreRefused(String key, int value, String message) {
    Configuration conf = new Configuration(false);
    conf.setInt(key, value);
    assertThatThrownBy(() -> TorchrunLauncher.Settings.of(conf))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @Test
  @DisplayName(
      "aryl-torchrun.sh execs the agent with the job's command read as the shell reads it, and without"
          + " ARYL_GENERATION")
  void theScriptPassesTheCommandThroughAndHidesTheGeneration() throws Exception {
    Files.write(
        dir.resolve(TorchrunLauncher.SCRIPT_FILE),
        SupervisorScript.text(TorchrunLauncher.SCRIPT_FILE));
    Files.writeString(
        dir.resolve(AmKeys.WORKER_SCRIPT),
        "#!/bin/bash\n"
            + SubmitCommand.shellCommand(List.of("train.py", "--msg", "it's $HOME", "--n", "3"))
            + "\n");
    // A stand-in agent: prints the arguments it got after its own, one a line, then
    // ARYL_GENERATION.
    ProcessBuilder pb =
        new ProcessBuilder(
                "/bin/bash",
                TorchrunLauncher.SCRIPT_FILE,
                "/bin/bash",
                "-c",
                "printf '%s\\n' \"$@\"; echo \"generation=${ARYL_GENERATION-unset}\"",
                "agent",
                "--nnodes=1:2")
            .directory(dir.toFile())
            .redirectErrorStream(true);
    pb.environment().put(AmKeys.GENERATION, "5");
    Process p = pb.start();
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(out.lines().toList())
        .containsExactly(
            "--nnodes=1:2", "train.py", "--msg", "it's $HOME", "--n", "3", "generation=unset");
    assertThat(p.exitValue()).isZero();
  }
}
