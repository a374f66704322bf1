package io.aryl.yarn.engine;

import static io.aryl.yarn.engine.EngineRig.TRAINING;
import static org.assertj.core.api.Assertions.assertThat;

import io.aryl.core.model.BelowMax;
import io.aryl.core.model.QueuePlace;
import io.aryl.core.model.QueuePlace.Standing;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.test.GenericTestUtils.LogCapturer;
import org.apache.log4j.Level;
import org.apache.log4j.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The round says why, from what it decided: a hand-written cluster in, the diagnostics of waiting
 * jobs and the reason an elastic job runs below its maximum out (the status's {@code
 * belowMaxBecause}, and the log when it changes). The starvation wait is 50 s; rounds run 100 s
 * after the engine became active, unless a test says otherwise.
 */
@DisplayName("RoundEngine: why a job waits, and why an elastic job runs below its maximum")
class RoundEngineWhyTest {
  static final long START_MS = 1_000_000;

  EngineRig rig = new EngineRig(Map.of("aryl.scheduler.starvation-wait-s", "50"));

  /**
   * The engine's log at INFO, whatever level tests before this one left it at (MockArylRm turns the
   * root to WARN).
   */
  final Logger engineLog = Logger.getLogger(RoundEngine.class);

  final Level levelBefore = engineLog.getLevel();
  final LogCapturer log = LogCapturer.captureLogs(LoggerFactory.getLogger(RoundEngine.class));

  @BeforeEach
  void logAtInfo() {
    engineLog.setLevel(Level.INFO);
  }

  @AfterEach
  void close() throws InterruptedException {
    log.stopCapturing();
    engineLog.setLevel(levelBefore);
    rig.close();
  }

  /**
   * The diagnostics a round sets (null: cleared), by application, in the order the actions came.
   */
  static Map<String, String> diagnostics(Outcome o) {
    Map<String, String> out = new LinkedHashMap<>();
    o.actions(Action.Diagnose.class).forEach(d -> out.put(d.appId(), d.message()));
    return out;
  }

  /**
   * What the status says of the job after the last round: why it runs below its maximum, or null.
   */
  String belowMaxBecause(String app) {
    EngineStatus s = rig.engine.status();
    EngineRig.Job j = rig.job(app);
    WhyBelowMax why =
        WhyBelowMax.of(
            app, j.shape, s.lastInput().liveWorkers(app), j.asking, s.lastInput(), s.lastPlan());
    return why == null ? null : why.words();
  }

  /** The lines the engine logged saying how wide a job runs and why. */
  List<String> widthLines() {
    return log.getOutput()
        .lines()
        .filter(l -> l.contains(" runs "))
        .map(l -> l.substring(l.indexOf("Aryl: ")))
        .toList();
  }

  @Nested
  @DisplayName("a job waiting for its gang")
  class Waiting {
    @Test
    @DisplayName("is told its place in the queue as the round's admission recorded it")
    void placeAsRecorded() {
      rig.node("t1", TRAINING, 4).job("a", 1, 1, 4, 36_000).worker("a", "t1");
      rig.job("short", 1, 1, 4, 600).job("long", 1, 1, 4, 6_000);
      Outcome o = rig.round(START_MS + 10_000); // queued 10 s: not starving
      assertThat(rig.engine.status().lastPlan().waiting())
          .containsEntry("short", new QueuePlace(0, 0, Standing.NOT_STARVING, false))
          .containsEntry("long", new QueuePlace(1, 1, Standing.NOT_STARVING, false));
      assertThat(diagnostics(o))
          .containsOnly(
              Map.entry(
                  "short",
                  "Aryl: waiting for 1 worker x 4 GPUs (4 GPUs) on training; 0 GPUs free now, largest"
                      + " node 0 free"),
              Map.entry(
                  "long",
                  "Aryl: waiting for 1 worker x 4 GPUs (4 GPUs) on training; 0 GPUs free now, largest"
                      + " node 0 free; queued behind 1 job (shortest predicted first)"));
    }

    @Test
    @DisplayName(
        "starving, is told whether the senior lane holds it and whether nodes are held for it")
    void starving() {
      // a (submitted at 60 s) holds both nodes; s1 (10 s) and s2 (20 s) have waited past the 50 s
      // starvation wait.
      // The lane, half the pool while the starving jobs fit in it, holds s1 only.
      rig.node("t1", TRAINING, 4).node("t2", TRAINING, 4).job("a", 2, 2, 4, 6_000, 60);
      rig.worker("a", "t1");
      rig.worker("a", "t2");
      rig.job("s1", 1, 1, 4, 600, 10).job("s2", 1, 1, 4, 60, 20);
      Map<String, String> told = diagnostics(rig.round(START_MS + 100_000));
      assertThat(rig.engine.status().lastPlan().waiting())
          .containsEntry("s1", new QueuePlace(0, 0, Standing.IN_THE_LANE, true))
          .containsEntry("s2", new QueuePlace(1, 1, Standing.OUTSIDE_THE_LANE, false));
      assertThat(told.get("s1"))
          .endsWith(
              "; waited past aryl.scheduler.starvation-wait-s and is in the senior lane:"
                  + " it goes first, and nodes are held for it as they free");
      assertThat(told.get("s2"))
          .endsWith(
              "; waited past aryl.scheduler.starvation-wait-s, but older jobs fill the"
                  + " senior lane: queued behind 1 job (shortest predicted first)");
    }
  }

  @Nested
  @DisplayName("an elastic job below its maximum")
  class BelowItsMaximum {
    @Test
    @DisplayName(
        "no spare GPUs: said in the status, logged once, and once more when it runs at its maximum")
    void noSpareGpus() {
      // r holds 2 of t1's 4 GPUs, e the other 2 at 1 GPU a worker, asking for 2 more up to its
      // maximum of 4.
      rig.node("t1", TRAINING, 4).job("r", 1, 1, 2, 36_000).worker("r", "t1");
      rig.job("e", 1, 4, 1, 36_000);
      rig.worker("e", "t1");
      rig.worker("e", "t1");
      rig.asking("e", 2);
      rig.round(START_MS + 100_000);
      assertThat(rig.engine.status().lastPlan().belowMax())
          .containsExactly(Map.entry("e", new BelowMax.NoRoom(List.of("gpu"), 0, 0)));
      assertThat(belowMaxBecause("e")).isEqualTo("no spare GPUs of the types it may use (gpu)");
      assertThat(belowMaxBecause("r")).as("a rigid job runs at its maximum").isNull();
      rig.after(1_000);
      assertThat(widthLines())
          .as("logged once, not every round")
          .containsExactly(
              "Aryl: e runs 2 of its 4 workers: no spare GPUs of the types it may use (gpu)");

      rig.finish("r", true);
      assertThat(rig.after(1_000).promises().book().target("e").totalWorkers()).isEqualTo(4);
      assertThat(belowMaxBecause("e")).isNull();
      rig.after(1_000);
      assertThat(widthLines())
          .containsExactly(
              "Aryl: e runs 2 of its 4 workers: no spare GPUs of the types it may use (gpu)",
              "Aryl: e runs all 4 of its workers");
    }

    @Test
    @DisplayName(
        "one more worker is not worth the re-scale pause: both numbers; logged once though they move")
    void notWorthThePause() {
      // 100 s predicted at 1 worker; n workers train n^0.8 times as fast
      // (aryl.scheduler.speedup-exponent): 57.4 s at
      // the 2 it runs, 41.5 s at 3. 6 GPUs idle.
      rig.node("t1", TRAINING, 8).job("e", 1, 4, 1, 100);
      rig.worker("e", "t1");
      rig.worker("e", "t1");
      rig.asking("e", 2);
      rig.round(START_MS + 100_000);
      assertThat(rig.engine.status().lastPlan().belowMax().get("e"))
          .isInstanceOf(BelowMax.NotWorthThePause.class);
      assertThat(belowMaxBecause("e"))
          .isEqualTo(
              "one more worker would save 15.9 s of its predicted runtime, no more"
                  + " than the 30.0 s re-scale pause it costs (aryl.scheduler.rescale-overhead-s)");
      rig.after(5_000); // it progressed: the numbers moved, the reason did not
      assertThat(belowMaxBecause("e"))
          .isNotEqualTo(
              "one more worker would save 15.9 s of its predicted runtime, no"
                  + " more than the 30.0 s re-scale pause it costs (aryl.scheduler.rescale-overhead-s)");
      assertThat(widthLines())
          .singleElement()
          .asString()
          .startsWith("Aryl: e runs 2 of its 4 workers: one more" + " worker would save 15.9 s");
    }

    @Test
    @DisplayName(
        "its ApplicationMaster asks for fewer: the scheduler's reason, which the round never sees")
    void asksForFewer() {
      rig.node("t1", TRAINING, 8).job("e", 1, 4, 1, 36_000);
      rig.worker("e", "t1");
      rig.worker("e", "t1");
      rig.asking("e", 0);
      rig.round(START_MS + 100_000);
      assertThat(rig.engine.status().lastPlan().belowMax())
          .as("the round planned it at its asked maximum")
          .isEmpty();
      assertThat(belowMaxBecause("e"))
          .isEqualTo(
              "its ApplicationMaster asks for no more: it holds and asks for 2 workers in all");

      rig.asking("e", 1);
      assertThat(rig.after(1_000).promises().book().target("e").totalWorkers()).isEqualTo(3);
      assertThat(belowMaxBecause("e"))
          .as("the same reason: no new line")
          .isEqualTo(
              "its ApplicationMaster asks for no more: it holds and asks for 3 workers in all");
      assertThat(widthLines())
          .containsExactly(
              "Aryl: e runs 2 of its 4 workers: its ApplicationMaster asks for no"
                  + " more: it holds and asks for 2 workers in all");
    }
  }
}
