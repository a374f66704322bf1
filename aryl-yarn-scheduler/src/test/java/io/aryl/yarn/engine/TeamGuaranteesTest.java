package io.aryl.yarn.engine;

import static io.aryl.yarn.engine.EngineRig.TRAINING;
import static io.aryl.yarn.engine.RoundEngineTest.GRACE_MS;
import static io.aryl.yarn.engine.RoundEngineTest.killed;
import static io.aryl.yarn.engine.RoundEngineTest.noticed;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The training pool shared by two teams, as hadoop-it's {@code TeamsIT} runs it on real daemons:
 * vision guaranteed 60% and nlp 40% of two training nodes of 8 GPUs. nlp's elastic job (1 to 4
 * workers of 4 GPUs) has borrowed all 16 GPUs; then vision asks for what it is owed.
 *
 * <p>The IT keeps what needs the ResourceManager: the teams read from the Capacity Scheduler's
 * queue tree, the PreemptionMessage and the kill at the grace reaching a real ApplicationMaster,
 * and the gang's start within a round plus the grace.
 */
@DisplayName(
    "Teams: each team is guaranteed its share; the owner takes back what another team borrowed")
class TeamGuaranteesTest {
  private final EngineRig rig = new EngineRig(RoundEngineTest.CONF);

  /** nlp's workers, oldest first: the first is its base worker. */
  private List<String> nlpWorkers;

  @BeforeEach
  void nlpBorrowsEveryGpu() {
    rig.node("t1", TRAINING, 8).node("t2", TRAINING, 8);
    rig.tenants(Map.of("vision", 0.6, "nlp", 0.4));
    rig.job("nlp", 1, 4, 4, 3_600, 0).team("nlp", "nlp");
    nlpWorkers =
        List.of(
            rig.worker("nlp", "t1"),
            rig.worker("nlp", "t1"),
            rig.worker("nlp", "t2"),
            rig.worker("nlp", "t2"));
    rig.asking("nlp", 0);
    rig.round(1_000_000);
  }

  @AfterEach
  void close() throws InterruptedException {
    rig.close();
  }

  @Test
  @DisplayName(
      "vision's gang is promised at once; two of nlp's extras are asked back, never its base, killed at the"
          + " grace, and nlp keeps 8 GPUs, above its guarantee of 6")
  void ownerTakesBackBorrowedGpus() {
    rig.job("vision", 2, 2, 4, 600, 10).team("vision", "vision");

    Outcome asked = rig.after(1_000);

    assertThat(asked.promises().book().target("vision").totalWorkers()).isEqualTo(2);
    List<String> extras = nlpWorkers.subList(1, 4);
    assertThat(noticed(asked)).as("nlp's workers asked back").hasSize(2).allMatch(extras::contains);
    assertThat(rig.after(GRACE_MS - 500).actions(Action.Kill.class))
        .as("before the grace")
        .isEmpty();
    Outcome due = rig.after(500);
    assertThat(killed(due)).containsExactlyInAnyOrderElementsOf(noticed(asked));
    rig.kill(due);
    rig.allocateGrants(rig.after(250));
    assertThat(rig.workersOf("vision")).isEqualTo(2);
    assertThat(rig.workersOf("nlp")).as("nlp's workers left").isEqualTo(2);
    assertThat(rig.workersOf("nlp", "t1"))
        .as("its base worker among them")
        .contains(nlpWorkers.get(0));

    rig.after(1_000);
    assertThat(rig.engine.status().lastInput().state().tenants().guarantees())
        .as("each team's share of the 16 GPUs, rounded down")
        .isEqualTo(Map.of("nlp", 6, "vision", 9));
    assertThat(noticed(rig.after(1_000))).as("nothing more is asked back").isEmpty();
  }

  @Test
  @DisplayName(
      "a plain application's GPU asks in vision's queue are demand: nlp's extras shrink for it, and the plain"
          + " application is never asked for a container, even when nlp asks for more again")
  void plainApplicationIsServed() {
    rig.plain("plain", 2, 4, "vision");

    Outcome asked = rig.after(1_000);

    assertThat(asked.promises().book().target("plain").totalWorkers()).isEqualTo(2);
    assertThat(noticed(asked))
        .as("nlp's extras asked back")
        .hasSize(2)
        .allMatch(nlpWorkers.subList(1, 4)::contains);
    Outcome due = rig.after(GRACE_MS);
    rig.kill(due);
    rig.plain("plain", 0, 4, "vision"); // both containers allocated: nothing pending any more
    List<String> plainContainers = new java.util.ArrayList<>();
    asked
        .promises()
        .book()
        .target("plain")
        .workersByServer()
        .forEach(
            (node, n) -> {
              for (int i = 0; i < n; i++) {
                plainContainers.add(rig.start("plain", node, 4, false));
              }
            });
    String p1 = plainContainers.get(0);
    String p2 = plainContainers.get(1);

    rig.asking("nlp", 2);
    for (int i = 0; i < 8; i++) {
      Outcome o = rig.after(500);
      assertThat(noticed(o)).as("notices, round %d", i).doesNotContain(p1, p2);
      assertThat(killed(o)).as("kills, round %d", i).doesNotContain(p1, p2);
    }
    assertThat(rig.workersOf("nlp")).isEqualTo(2);
  }
}
